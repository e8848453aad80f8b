package kbuild

import (
	"encoding/json"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/pkg/tiers"
)

// Source-watcher's ArtifactGenerator (source.extensions.fluxcd.io/v1beta1)
// composes ExternalArtifacts from other sources by copying files. A
// Kustomization whose sourceRef is such an ExternalArtifact builds from the
// artifact's tree, not from the checkout's: standup rebuilds that tree as a
// mapping of paths onto the checkout when the generator is in the checkout
// and copies only from sources the checkout stands for
// (github.com/fluxcd/source-watcher, internal/builder and
// internal/controller/artifactgenerator_pathpattern.go).
const (
	extensionGroup        = "source.extensions.fluxcd.io"
	kindArtifactGenerator = "ArtifactGenerator"
	// KindExternalArtifact is the kind of source an ArtifactGenerator
	// produces.
	KindExternalArtifact = "ExternalArtifact"
	// copyStrategyMerge and copyStrategyExtract are the copy strategies
	// other than the default Overwrite.
	copyStrategyMerge   = "Merge"
	copyStrategyExtract = "Extract"
)

// ArtifactGenerator is source-watcher's ArtifactGenerator, as found in the
// rendered output of the checkout.
type ArtifactGenerator struct {
	id   tiers.ID
	file string
	// sources maps each alias to the source it names (the namespace
	// defaults to the generator's).
	sources map[string]tiers.ID
	spec    generatorSpec
}

// generatorSpec is the part of an ArtifactGenerator's spec that says what
// goes into its artifacts.
type generatorSpec struct {
	Sources []struct {
		Alias     string `json:"alias"`
		Kind      string `json:"kind"`
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"sources"`
	PathPattern string           `json:"pathPattern"`
	Artifacts   []OutputArtifact `json:"artifacts"`
}

// OutputArtifact is one ExternalArtifact a generator produces: its name
// and the copy operations that fill it.
type OutputArtifact struct {
	Name string          `json:"name"`
	Copy []copyOperation `json:"copy"`
}

// copyOperation copies files of a source (From, "@alias/glob") into the
// artifact (To, "@artifact/path").
type copyOperation struct {
	From     string   `json:"from"`
	To       string   `json:"to"`
	Exclude  []string `json:"exclude,omitempty"`
	Strategy string   `json:"strategy,omitempty"`
}

// IsArtifactGenerator reports whether u is source-watcher's
// ArtifactGenerator.
func IsArtifactGenerator(u *unstructured.Unstructured) bool {
	return u.GroupVersionKind().Group == extensionGroup && u.GetKind() == kindArtifactGenerator
}

// NewArtifactGenerator decodes a rendered ArtifactGenerator; the error
// names its file.
func NewArtifactGenerator(m Manifest) (*ArtifactGenerator, error) {
	u := m.Object
	g := &ArtifactGenerator{
		id:      tiers.ID{Kind: kindArtifactGenerator, Namespace: u.GetNamespace(), Name: u.GetName()},
		file:    m.File,
		sources: map[string]tiers.ID{},
	}
	data, err := json.Marshal(u.Object["spec"])
	if err == nil {
		err = json.Unmarshal(data, &g.spec)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s: decode failed: %w", OrUnknown(m.File), g.id, err)
	}
	for _, s := range g.spec.Sources {
		ns := s.Namespace
		if ns == "" {
			ns = g.id.Namespace
		}
		g.sources[s.Alias] = tiers.ID{Kind: s.Kind, Namespace: ns, Name: s.Name}
	}
	return g, nil
}

// ID returns the generator's graph ID.
func (g *ArtifactGenerator) ID() tiers.ID { return g.id }

// File returns the file that defines the generator, relative to the
// repository root.
func (g *ArtifactGenerator) File() string { return g.file }

// Source returns the source an alias of the generator names (its
// namespace defaulted to the generator's), false for an alias it does not
// define.
func (g *ArtifactGenerator) Source(alias string) (tiers.ID, bool) {
	src, ok := g.sources[alias]
	return src, ok
}

// Outputs returns the artifacts g produces. With a pathPattern, they are
// expanded for every directory of the pattern's source that matches it,
// which needs that source's files: dir returns the directory of a source
// the checkout stands for, false for any other.
func (g *ArtifactGenerator) Outputs(dir func(tiers.ID) (string, bool), ignored func(string, bool) bool) ([]OutputArtifact, error) {
	if g.spec.PathPattern == "" {
		return g.spec.Artifacts, nil
	}
	alias, pattern, err := splitAlias(g.spec.PathPattern)
	if err != nil {
		return nil, fmt.Errorf("pathPattern %q: %w", g.spec.PathPattern, err)
	}
	srcDir, ok := dir(g.sources[alias])
	if !ok {
		return nil, fmt.Errorf("pathPattern %q: source %s is not the checkout", g.spec.PathPattern, g.sources[alias])
	}
	// As source-watcher does: "apps/{app}/envs/{env}" becomes
	// ^apps/(?P<app>[^/]+)/envs/(?P<env>[^/]+)$.
	capture := regexp.MustCompile(`\\\{([a-zA-Z0-9_]+)\\\}`)
	matcher, err := regexp.Compile("^" + capture.ReplaceAllString(regexp.QuoteMeta(pattern), `(?P<$1>[^/]+)`) + "$")
	if err != nil {
		return nil, fmt.Errorf("pathPattern %q: %w", g.spec.PathPattern, err)
	}
	names := matcher.SubexpNames()
	var out []OutputArtifact
	root := os.DirFS(srcDir)
	err = iofs.WalkDir(root, ".", func(p string, d iofs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == "." {
			return err
		}
		if ignored(p, true) {
			return iofs.SkipDir
		}
		match := matcher.FindStringSubmatch(p)
		if match == nil {
			return nil
		}
		raw, lower := map[string]string{}, map[string]string{}
		for i, name := range names {
			if i > 0 && name != "" {
				raw[name], lower[name] = match[i], strings.ToLower(match[i])
			}
		}
		for _, a := range g.spec.Artifacts {
			// Names use lower-cased captures, copy paths the captures as
			// written, as source-watcher renders them.
			r := OutputArtifact{Name: renderCaptures(a.Name, lower)}
			for _, op := range a.Copy {
				op.From, op.To = renderCaptures(op.From, raw), renderCaptures(op.To, raw)
				r.Copy = append(r.Copy, op)
			}
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

// renderCaptures replaces every {name} of tmpl with its capture.
func renderCaptures(tmpl string, captures map[string]string) string {
	for name, value := range captures {
		tmpl = strings.ReplaceAll(tmpl, "{"+name+"}", value)
	}
	return tmpl
}

// splitAlias splits "@alias/rest" into alias and rest.
func splitAlias(s string) (string, string, error) {
	if !strings.HasPrefix(s, "@") {
		return "", "", fmt.Errorf("must start with '@'")
	}
	alias, rest, ok := strings.Cut(s[1:], "/")
	if !ok {
		return "", "", fmt.Errorf("format must be '@alias/pattern'")
	}
	return alias, rest, nil
}

// Aliases returns the source aliases the copy operations of a read from.
func (a OutputArtifact) Aliases() []string {
	var out []string
	for _, op := range a.Copy {
		if alias, _, err := splitAlias(op.From); err == nil && !slices.Contains(out, alias) {
			out = append(out, alias)
		}
	}
	return out
}

// UnsupportedStrategy returns the first copy strategy of a that standup
// does not reproduce (Extract: the content of tarballs), or "".
func (a OutputArtifact) UnsupportedStrategy() string {
	for _, op := range a.Copy {
		if op.Strategy == copyStrategyExtract {
			return op.Strategy
		}
	}
	return ""
}

// cleanArtifactPath returns p, a slash-separated path relative to an
// artifact's root, cleaned: "." for the root, never climbing above it.
func cleanArtifactPath(p string) string {
	if clean := strings.TrimPrefix(path.Clean("/"+p), "/"); clean != "" {
		return clean
	}
	return "."
}
