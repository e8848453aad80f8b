package config

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/internal/input"
	"github.com/kubestandup/standup/pkg/catalog"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/render"
)

// Find finds the standup.yaml a live command (resume, crds) reads:
// file when given, which must exist; else standup.yaml at the root of the
// checkout holding dir (render.FindRepoRoot: the nearest ancestor with .git
// or standup.yaml), when there is one; else none. It returns the config,
// the zero Config when there is none, and the file it read ("" for none).
// A file that exists but does not parse is an error naming it: a walk
// must not prove deadlocks on a half-read declaration.
func Find(ctx context.Context, file, dir string) (*Config, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	if file == "" {
		root, err := render.FindRepoRoot(dir)
		if errors.Is(err, render.ErrNoRepoRoot) {
			return &Config{}, "", nil
		}
		if err != nil {
			return nil, "", err
		}
		file = filepath.Join(root, render.ConfigFile)
		if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
			return &Config{}, "", nil
		}
	}
	data, _, err := input.ReadBounded(file)
	if lim, ok := input.IsLimit(err); ok {
		return nil, "", &input.LimitError{File: file, Reason: lim.Reason}
	}
	if err != nil {
		return nil, "", fmt.Errorf("config %s: %w", file, err)
	}
	cfg, err := Parse(data)
	if err != nil {
		return nil, "", fmt.Errorf("config %s: %w", file, err)
	}
	return cfg, file, nil
}

// RuntimeTriggers answers, for a kind whose CRD is missing, which trigger
// kinds make an operator create it, by audit's rules of origin: a kind
// standup.yaml declares (cfg, read from the file from) has the origin it
// declares there, runtimeCRDs giving its one trigger, and any other
// declaration none; the catalog answers for the rest, every runtime entry
// that creates the kind giving its trigger, and none at all when an entry
// installs the kind as well (a chart or a manifest may then bring the CRD).
// Each trigger carries its declaration's operator timeout and operator
// Deployment, if it names them.
func RuntimeTriggers(cfg *Config, from string, cat *catalog.Catalog) crds.Triggers {
	if from == "" {
		from = render.ConfigFile
	}
	runtime := map[GroupKind][]crds.Trigger{}
	other := map[GroupKind]bool{}
	var otherGroups []string
	if cfg != nil {
		for _, r := range cfg.RuntimeCRDs {
			tr := crds.Trigger{Kind: schema.GroupKind(r.Trigger), From: from}
			tr.Timeout, _ = r.Timeout() // Parse refused a bad one
			if r.Operator != nil {
				tr.Operator = r.Operator.String()
			}
			for _, gk := range r.Kinds {
				runtime[gk] = append(runtime[gk], tr)
			}
		}
		for _, c := range cfg.ChartCRDs {
			markAll(other, c.Kinds)
		}
		for _, k := range cfg.KustomizationCRDs {
			markAll(other, k.Kinds)
		}
		if b := cfg.BootstrapCRDs; b != nil {
			markAll(other, b.Kinds)
			otherGroups = b.Groups
		}
	}
	return func(gk schema.GroupKind) []crds.Trigger {
		k := GroupKind(gk)
		if ts, ok := runtime[k]; ok {
			return ts
		}
		if other[k] || cat == nil {
			return nil
		}
		for _, g := range otherGroups {
			if g == gk.Group {
				return nil
			}
		}
		return catalogTriggers(cat, catalog.GroupKind(gk))
	}
}

func markAll(set map[GroupKind]bool, kinds []GroupKind) {
	for _, gk := range kinds {
		set[gk] = true
	}
}

// catalogTriggers is the triggers of every catalog runtime set that
// creates gk, or none when an entry installs gk too; for a kind no entry
// knows in a Crossplane provider's group, Crossplane's Provider.
func catalogTriggers(cat *catalog.Catalog, gk catalog.GroupKind) []crds.Trigger {
	var out []crds.Trigger
	for i := range cat.Entries {
		e := &cat.Entries[i]
		if e.Installs(gk) != nil {
			return nil
		}
		for _, r := range e.Runtime {
			if r.Has(gk) && r.Trigger != gk {
				tr := crds.Trigger{Kind: schema.GroupKind(r.Trigger), From: "the catalog's " + e.Name + " entry", Timeout: r.Timeout()}
				if e.Operator != nil {
					tr.Operator = e.Operator.Namespace + "/" + e.Operator.Deployment
				}
				out = append(out, tr)
			}
		}
	}
	if len(out) == 0 && catalog.IsProviderGroup(gk.Group) {
		// A Crossplane provider's kind: Crossplane's package manager
		// creates its CRD once a Provider of its package is installed
		// (catalog.PackageGroups, by the providers' naming).
		out = append(out, crds.Trigger{Kind: schema.GroupKind(catalog.CrossplaneProvider), From: "Crossplane's provider package naming (" + gk.Group + ")"})
	}
	return out
}
