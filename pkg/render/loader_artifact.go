package render

import (
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"

	"github.com/kubestandup/standup/pkg/tiers"
)

// artifactSource is what the loader knows of an ExternalArtifact a
// Kustomization builds from.
type artifactSource struct {
	// view is the artifact's tree; nil when it is not rendered.
	view *artifactView
	// why says why it is not rendered, when the checkout's generator of it
	// copies from elsewhere or cannot be reproduced ("" when no generator
	// of the checkout produces it).
	why string
}

// indexGenerator records an ArtifactGenerator of the rendered output; the
// first of a name wins, as for every other object.
func (l *loader) indexGenerator(m Manifest) {
	g, err := newArtifactGenerator(m)
	if err != nil {
		l.warn(err.Error() + "; the ExternalArtifacts it generates are not rendered")
		return
	}
	if _, seen := l.generators[g.id]; !seen {
		l.generators[g.id] = g
	}
}

// generatorOf finds the ArtifactGenerator of the checkout that produces the
// ExternalArtifact src, and that artifact's spec. dir returns the
// directory of a source, for generators that expand a pathPattern.
func (l *loader) generatorOf(src tiers.ID, dir func(tiers.ID) (string, bool)) (*artifactGenerator, *outputArtifact) {
	var gens []*artifactGenerator
	for id, g := range l.generators {
		if id.Namespace == src.Namespace {
			gens = append(gens, g)
		}
	}
	sort.Slice(gens, func(i, j int) bool { return gens[i].id.Less(gens[j].id) })
	for _, g := range gens {
		outs, err := g.outputs(dir, l.sourceIgnored)
		if err != nil {
			continue
		}
		for i := range outs {
			if outs[i].Name == src.Name {
				return g, &outs[i]
			}
		}
	}
	return nil, nil
}

// sourceIgnored reports whether source-controller leaves an absolute path
// of the checkout out of its artifact.
func (l *loader) sourceIgnored(abs string, dir bool) bool {
	return l.b.ignored.Match(strings.Split(abs, string(filepath.Separator)), dir)
}

// localDir returns the checkout's root for a source the checkout stands for.
func (l *loader) localDir(src tiers.ID) (string, bool) {
	return l.b.root, l.local[src]
}

// artifact resolves the ExternalArtifact src. The second result is false
// while no generator of the checkout produces it: one may yet be found in a
// build still to come.
func (l *loader) artifact(src tiers.ID) (artifactSource, bool) {
	if a, ok := l.artifacts[src]; ok {
		return a, true
	}
	a, ok := l.generated(src)
	if !ok {
		return artifactSource{}, false
	}
	delete(l.ahead, src)
	l.artifacts[src] = a.a
	return a.a, true
}

// aheadArtifact is an ExternalArtifact resolved for a build run ahead of
// the walk (plan): the walk takes it when it finds the same generator
// producing the same output, else resolves the artifact again.
type aheadArtifact struct {
	g   *artifactGenerator
	out *outputArtifact
	a   artifactSource
}

// artifactAhead resolves the ExternalArtifact src for a build run ahead of
// the walk, without deciding it for the walk: a generator found later may
// still produce it instead (artifact).
func (l *loader) artifactAhead(src tiers.ID) (artifactSource, bool) {
	if a, ok := l.artifacts[src]; ok {
		return a, true
	}
	a, ok := l.generated(src)
	if !ok {
		return artifactSource{}, false
	}
	l.ahead[src] = a
	return a.a, true
}

// generated resolves src from the generator rendered so far that produces
// it, reusing the artifact resolved ahead from the same generator and
// output; false while none produces it.
func (l *loader) generated(src tiers.ID) (aheadArtifact, bool) {
	g, out := l.generatorOf(src, l.localDir)
	if g == nil {
		return aheadArtifact{}, false
	}
	if a, ok := l.ahead[src]; ok && a.g == g && reflect.DeepEqual(*a.out, *out) {
		return a, true
	}
	return aheadArtifact{g: g, out: out, a: l.resolveArtifact(src, g, out)}, true
}

// resolveArtifact builds the tree of the artifact out of g, when every
// source it copies from is one the checkout stands for.
func (l *loader) resolveArtifact(src tiers.ID, g *artifactGenerator, out *outputArtifact) artifactSource {
	by := fmt.Sprintf("%s (%s)", g.id, orUnknown(g.file))
	if s := out.unsupportedStrategy(); s != "" {
		return artifactSource{why: fmt.Sprintf("which %s fills with copy strategy %s (the content of tarballs), not read offline", by, s)}
	}
	dirs := map[string]string{}
	for _, alias := range out.aliases() {
		source, ok := g.sources[alias]
		if !ok {
			return artifactSource{why: fmt.Sprintf("which %s copies from source alias %q, which it does not define (source-watcher fails it)", by, alias)}
		}
		if !l.local[source] {
			return artifactSource{why: fmt.Sprintf("which %s generates from %s, not from the source of the path", by, source)}
		}
		dirs[alias] = l.b.root
	}
	tree, err := buildArtifactTree(*out, dirs, l.sourceIgnored, l.b.disk.ReadFile)
	if err != nil {
		return artifactSource{why: fmt.Sprintf("which %s cannot generate: %v (source-watcher fails it)", by, err)}
	}
	return artifactSource{view: &artifactView{fs: newArtifactFS(src, l.b.root, tree, l.b.disk, l.b.rel), b: l.b}}
}

// artifactDir resolves spec.path inside an artifact the way
// kustomize-controller does inside the extracted artifact, and checks that
// it exists there.
func (l *loader) artifactDir(id tiers.ID, v *artifactView, ks *kustomizev1.Kustomization, file string) (string, error) {
	dir := v.fs.path(cleanArtifactPath(ks.Spec.Path))
	if !v.fs.IsDir(dir) {
		if v.fs.Exists(dir) {
			return "", fmt.Errorf("%s: kustomization path is not a directory: %s (defined in %s) in %s", id, ks.Spec.Path, orUnknown(file), v.fs.id)
		}
		return "", fmt.Errorf("%s: kustomization path not found: %s (defined in %s): %s holds no such directory", id, ks.Spec.Path, orUnknown(file), v.fs.id)
	}
	return dir, nil
}

// seedSources returns the sources a starting point stands for: its
// sourceRef, or, for an ExternalArtifact that a generator of Path's build
// produces, the sources that generator copies it from.
func (l *loader) seedSources(src tiers.ID) []tiers.ID {
	if src.Kind != kindExternalArtifact {
		return []tiers.ID{src}
	}
	// The sources are not known to be the checkout yet: expand path
	// patterns as if they were.
	g, out := l.generatorOf(src, func(tiers.ID) (string, bool) { return l.b.root, true })
	if g == nil {
		return nil
	}
	var sources []tiers.ID
	for _, alias := range out.aliases() {
		if s, ok := g.sources[alias]; ok {
			sources = append(sources, s)
		}
	}
	return sources
}
