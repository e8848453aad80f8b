package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kubestandup/standup/internal/input"
	"github.com/kubestandup/standup/pkg/render"
)

// TriggerPlaceholder is the trigger kind a skeleton entry carries when the
// cluster does not say which object makes the operator create the CRDs
// (standup audit --from-cluster). Parse refuses it, so an unedited
// skeleton cannot be committed.
const TriggerPlaceholder = "TODO"

const (
	// APIVersion is the apiVersion of standup.yaml.
	APIVersion = "standup.kubestandup.io/v1alpha1"
	// Kind is the kind of standup.yaml.
	Kind = "Config"
)

// GroupKind names a Kubernetes kind by API group and kind; the core group is
// the empty string.
type GroupKind struct {
	Group string `json:"group" yaml:"group"`
	Kind  string `json:"kind" yaml:"kind"`
}

// String renders the kind as Kind.group, or Kind for the core group, the
// way kubectl names resources.
func (gk GroupKind) String() string {
	if gk.Group == "" {
		return gk.Kind
	}
	return gk.Kind + "." + gk.Group
}

// NamespacedName names a namespaced object.
type NamespacedName struct {
	Namespace string `json:"namespace" yaml:"namespace"`
	Name      string `json:"name" yaml:"name"`
}

// String renders the name as namespace/name.
func (n NamespacedName) String() string { return n.Namespace + "/" + n.Name }

// RuntimeCRD declares kinds whose CRD an operator creates at runtime, after
// it has reconciled an object of the trigger kind (CDI's CDI creates
// StorageProfile, DataVolume, DataSource and DataImportCron).
type RuntimeCRD struct {
	// Trigger is the kind whose objects make the operator create the CRDs.
	Trigger GroupKind `json:"trigger" yaml:"trigger"`
	// Kinds are the kinds whose CRD appears only after a trigger object has
	// been reconciled.
	Kinds []GroupKind `json:"kinds" yaml:"kinds"`
	// OperatorTimeout, a Go duration ("5m"), is how long resume and crds
	// wait for the operator to create the CRDs while it shows progress
	// (--operator-timeout overrides it); empty: the catalog's, else 2m.
	OperatorTimeout string `json:"operatorTimeout,omitempty" yaml:"operatorTimeout,omitempty"`
	// Operator is the operator's Deployment, whose rollout counts as its
	// progress while a walk waits for it.
	Operator *NamespacedName `json:"operator,omitempty" yaml:"operator,omitempty"`
}

// Timeout parses OperatorTimeout; zero when it is empty.
func (r RuntimeCRD) Timeout() (time.Duration, error) {
	if r.OperatorTimeout == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(r.OperatorTimeout)
	if err == nil && d <= 0 {
		err = errors.New("not positive")
	}
	return d, err
}

// ChartCRD declares kinds whose CRD the chart of a HelmRelease installs.
type ChartCRD struct {
	// HelmRelease is the HelmRelease that installs the chart.
	HelmRelease NamespacedName `json:"helmRelease" yaml:"helmRelease"`
	// Kinds are the kinds whose CRD the chart ships.
	Kinds []GroupKind `json:"kinds" yaml:"kinds"`
}

// KustomizationCRD declares kinds whose CRD a Kustomization that the
// checkout does not render applies: one that builds from another source
// (kyverno's release manifests, another team's repository).
type KustomizationCRD struct {
	// Kustomization is the Kustomization that applies the CRDs.
	Kustomization NamespacedName `json:"kustomization" yaml:"kustomization"`
	// Kinds are the kinds whose CRD it applies.
	Kinds []GroupKind `json:"kinds" yaml:"kinds"`
}

// BootstrapCRDs declares kinds installed before Flux starts (by talosctl,
// a helmfile, kubectl apply in a bootstrap script) that audit does not find
// in the repository's own bootstrap files.
type BootstrapCRDs struct {
	// Groups are API groups whose every kind is installed before Flux.
	Groups []string `json:"groups,omitempty" yaml:"groups"`
	// Kinds are single kinds installed before Flux.
	Kinds []GroupKind `json:"kinds,omitempty" yaml:"kinds"`
}

// Config is standup.yaml: what standup needs to know about a repository that
// its manifests cannot tell. The zero Config declares nothing.
type Config struct {
	// APIVersion is APIVersion; it may be left out.
	APIVersion string `json:"apiVersion,omitempty" yaml:"apiVersion"`
	// Kind is Kind; it may be left out.
	Kind string `json:"kind,omitempty" yaml:"kind"`
	// RuntimeCRDs declares the kinds whose CRD an operator creates at runtime.
	RuntimeCRDs []RuntimeCRD `json:"runtimeCRDs,omitempty" yaml:"runtimeCRDs"`
	// ChartCRDs declares the kinds whose CRD a HelmRelease's chart installs.
	ChartCRDs []ChartCRD `json:"chartCRDs,omitempty" yaml:"chartCRDs"`
	// KustomizationCRDs declares the kinds whose CRD a Kustomization the
	// checkout does not render applies.
	KustomizationCRDs []KustomizationCRD `json:"kustomizationCRDs,omitempty" yaml:"kustomizationCRDs"`
	// BootstrapCRDs declares the kinds installed before Flux starts.
	BootstrapCRDs *BootstrapCRDs `json:"bootstrapCRDs,omitempty" yaml:"bootstrapCRDs"`
	// CustomApplyStageKinds are the kinds of kustomize-controller's
	// --custom-apply-stage-kinds flag (v1.8 and later), which audit cannot
	// see offline: each Kustomization applies them in a stage of their own,
	// after the *Class kinds and before the rest.
	CustomApplyStageKinds []GroupKind `json:"customApplyStageKinds,omitempty" yaml:"customApplyStageKinds"`
}

// Parse decodes and validates the bytes of standup.yaml. It rejects
// unknown fields, a wrong apiVersion or kind, an entry without kinds, a kind
// declared twice, and YAML over a limit of input.CheckYAML (an alias bomb).
// An empty document is the zero Config.
func Parse(data []byte) (*Config, error) {
	if err := input.CheckYAML(render.ConfigFile, data); err != nil {
		return nil, err
	}
	var cfg Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", render.ConfigFile, &yamlError{err: err})
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", render.ConfigFile, err)
	}
	return &cfg, nil
}

// Load reads standup.yaml at the repository root, bounded
// (internal/input: a named pipe, a file over 16 MiB or an alias bomb is a
// *input.LimitError naming standup.yaml). A repository without one has the
// zero Config.
func Load(ctx context.Context, repoRoot string) (*Config, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, _, err := input.ReadBounded(filepath.Join(repoRoot, render.ConfigFile))
	if errors.Is(err, fs.ErrNotExist) {
		return &Config{}, nil
	}
	if lim, ok := input.IsLimit(err); ok {
		return nil, &input.LimitError{File: render.ConfigFile, Reason: lim.Reason}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", render.ConfigFile, err)
	}
	return Parse(data)
}

// Validate checks what decoding cannot: every declaration names its kinds,
// and no placeholder or malformed duration is left.
func (c *Config) Validate() error {
	if c.APIVersion != "" && c.APIVersion != APIVersion {
		return fmt.Errorf("apiVersion %q is not supported (want %s)", c.APIVersion, APIVersion)
	}
	if c.Kind != "" && c.Kind != Kind {
		return fmt.Errorf("kind %q is not supported (want %s)", c.Kind, Kind)
	}
	// A kind has one origin. Several HelmReleases or Kustomizations may
	// install it, though: a hub-and-spoke repository installs the same chart
	// once per cluster. owner is "" for a runtime kind, else the installer.
	type declared struct {
		field string
		owner string
	}
	seen := map[GroupKind]declared{}
	declare := func(field, owner string, kinds []GroupKind) error {
		if len(kinds) == 0 {
			return fmt.Errorf("%s.kinds is empty", field)
		}
		for j, gk := range kinds {
			if gk.Kind == "" {
				return fmt.Errorf("%s.kinds[%d].kind is empty", field, j)
			}
			if prev, dup := seen[gk]; dup && (owner == "" || prev.owner == "" || owner == prev.owner || ownerKind(owner) != ownerKind(prev.owner)) {
				return fmt.Errorf("%s.kinds[%d]: %s is already declared by %s", field, j, gk, prev.field)
			}
			seen[gk] = declared{field: field, owner: owner}
		}
		return nil
	}
	for i, r := range c.RuntimeCRDs {
		field := fmt.Sprintf("runtimeCRDs[%d]", i)
		switch r.Trigger.Kind {
		case "":
			return fmt.Errorf("%s.trigger.kind is empty", field)
		case TriggerPlaceholder:
			return fmt.Errorf("%s.trigger.kind is still the skeleton's %s: name the kind whose objects make the operator create %s", field, TriggerPlaceholder, kindList(r.Kinds))
		}
		if err := declare(field, "", r.Kinds); err != nil {
			return err
		}
		if _, err := r.Timeout(); err != nil {
			return fmt.Errorf("%s.operatorTimeout %q: want a duration such as 5m (%w)", field, r.OperatorTimeout, err)
		}
		if op := r.Operator; op != nil && (op.Namespace == "" || op.Name == "") {
			return fmt.Errorf("%s.operator: want the operator Deployment's namespace and name", field)
		}
	}
	for i, h := range c.ChartCRDs {
		field := fmt.Sprintf("chartCRDs[%d]", i)
		if h.HelmRelease.Namespace == "" || h.HelmRelease.Name == "" {
			return fmt.Errorf("%s.helmRelease needs a namespace and a name", field)
		}
		if err := declare(field, "HelmRelease/"+h.HelmRelease.String(), h.Kinds); err != nil {
			return err
		}
	}
	if b := c.BootstrapCRDs; b != nil {
		if len(b.Groups) == 0 && len(b.Kinds) == 0 {
			return errors.New("bootstrapCRDs declares neither groups nor kinds")
		}
		for j, g := range b.Groups {
			if g == "" {
				return fmt.Errorf("bootstrapCRDs.groups[%d] is empty", j)
			}
		}
		if len(b.Kinds) > 0 {
			if err := declare("bootstrapCRDs", "", b.Kinds); err != nil {
				return err
			}
		}
	}
	for j, gk := range c.CustomApplyStageKinds {
		if gk.Kind == "" {
			return fmt.Errorf("customApplyStageKinds[%d].kind is empty", j)
		}
	}
	for i, k := range c.KustomizationCRDs {
		field := fmt.Sprintf("kustomizationCRDs[%d]", i)
		if k.Kustomization.Namespace == "" || k.Kustomization.Name == "" {
			return fmt.Errorf("%s.kustomization needs a namespace and a name", field)
		}
		if err := declare(field, "Kustomization/"+k.Kustomization.String(), k.Kinds); err != nil {
			return err
		}
	}
	if b := c.BootstrapCRDs; b != nil {
		var conflicts []string
		for gk, d := range seen {
			if slices.Contains(b.Groups, gk.Group) && d.field != "bootstrapCRDs" {
				conflicts = append(conflicts, fmt.Sprintf("%s: %s is already declared installed before Flux by bootstrapCRDs.groups", d.field, gk))
			}
		}
		if len(conflicts) > 0 {
			slices.Sort(conflicts) // one message, the same every time
			return errors.New(conflicts[0])
		}
	}
	return nil
}

// ownerKind is the kind of a declared installer, "HelmRelease/ns/name" or
// "Kustomization/ns/name": one kind may come from several installers of one
// kind (one per cluster), never from a chart and a Kustomization.
func ownerKind(owner string) string {
	kind, _, _ := strings.Cut(owner, "/")
	return kind
}

// yamlError words a decoding error for people: one line, and an unknown
// field named as such ("line 3: unknown field \"grup\"") rather than by the
// Go type it is missing from.
type yamlError struct{ err error }

var notFoundRE = regexp.MustCompile(`field (\S+) not found in type \S+`)

func (e *yamlError) Error() string {
	msg := strings.TrimPrefix(e.err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n  ")
	msg = strings.ReplaceAll(msg, "\n  ", "; ")
	return notFoundRE.ReplaceAllString(msg, `unknown field "$1"`)
}

func (e *yamlError) Unwrap() error { return e.err }

// kindList names kinds for a message: "StorageProfile.cdi.kubevirt.io, DataVolume.cdi.kubevirt.io".
func kindList(kinds []GroupKind) string {
	names := make([]string, len(kinds))
	for i, gk := range kinds {
		names[i] = gk.String()
	}
	if len(names) == 0 {
		return "its kinds"
	}
	return strings.Join(names, ", ")
}
