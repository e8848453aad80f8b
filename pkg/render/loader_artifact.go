package render

import (
	"fmt"
	"reflect"
	"sort"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"

	"github.com/kubestandup/standup/pkg/render/kbuild"
	"github.com/kubestandup/standup/pkg/tiers"
)

// artifactSource is what the loader knows of an ExternalArtifact a
// Kustomization builds from.
type artifactSource struct {
	// view is the artifact's tree; nil when it is not rendered.
	view *kbuild.ArtifactView
	// why says why it is not rendered, when the checkout's generator of it
	// copies from elsewhere or cannot be reproduced ("" when no generator
	// of the checkout produces it).
	why string
}

// indexGenerator records an ArtifactGenerator of the rendered output; the
// first of a name wins, as for every other object.
func (l *loader) indexGenerator(m Manifest) {
	g, err := kbuild.NewArtifactGenerator(m)
	if err != nil {
		l.warn(err.Error() + "; the ExternalArtifacts it generates are not rendered")
		return
	}
	if _, seen := l.generators[g.ID()]; !seen {
		l.generators[g.ID()] = g
	}
}

// generatorOf finds the ArtifactGenerator of the checkout that produces the
// ExternalArtifact src, and that artifact's spec. dir returns the
// directory of a source, for generators that expand a pathPattern.
func (l *loader) generatorOf(src tiers.ID, dir func(tiers.ID) (string, bool)) (*kbuild.ArtifactGenerator, *kbuild.OutputArtifact) {
	var gens []*kbuild.ArtifactGenerator
	for id, g := range l.generators {
		if id.Namespace == src.Namespace {
			gens = append(gens, g)
		}
	}
	sort.Slice(gens, func(i, j int) bool { return gens[i].ID().Less(gens[j].ID()) })
	for _, g := range gens {
		outs, err := g.Outputs(dir, l.b.Ignored)
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

// localDir returns the checkout's root for a source the checkout stands for.
func (l *loader) localDir(src tiers.ID) (string, bool) {
	return l.root, l.local[src]
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
	g   *kbuild.ArtifactGenerator
	out *kbuild.OutputArtifact
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
func (l *loader) resolveArtifact(src tiers.ID, g *kbuild.ArtifactGenerator, out *kbuild.OutputArtifact) artifactSource {
	by := fmt.Sprintf("%s (%s)", g.ID(), kbuild.OrUnknown(g.File()))
	if s := out.UnsupportedStrategy(); s != "" {
		return artifactSource{why: fmt.Sprintf("which %s fills with copy strategy %s (the content of tarballs), not read offline", by, s)}
	}
	dirs := map[string]string{}
	for _, alias := range out.Aliases() {
		source, ok := g.Source(alias)
		if !ok {
			return artifactSource{why: fmt.Sprintf("which %s copies from source alias %q, which it does not define (source-watcher fails it)", by, alias)}
		}
		if !l.local[source] {
			return artifactSource{why: fmt.Sprintf("which %s generates from %s, not from the source of the path", by, source)}
		}
		dirs[alias] = l.root
	}
	v, err := l.b.NewArtifactView(src, *out, dirs)
	if err != nil {
		return artifactSource{why: fmt.Sprintf("which %s cannot generate: %v (source-watcher fails it)", by, err)}
	}
	return artifactSource{view: v}
}

// artifactDir resolves spec.path inside an artifact the way
// kustomize-controller does inside the extracted artifact, and checks that
// it exists there.
func (l *loader) artifactDir(id tiers.ID, v *kbuild.ArtifactView, ks *kustomizev1.Kustomization, file string) (string, error) {
	dir, exists, isDir := v.Resolve(ks.Spec.Path)
	if !isDir {
		if exists {
			return "", fmt.Errorf("%s: kustomization path is not a directory: %s (defined in %s) in %s", id, ks.Spec.Path, kbuild.OrUnknown(file), v.Artifact())
		}
		return "", fmt.Errorf("%s: kustomization path not found: %s (defined in %s): %s holds no such directory", id, ks.Spec.Path, kbuild.OrUnknown(file), v.Artifact())
	}
	return dir, nil
}

// seedSources returns the sources a starting point stands for: its
// sourceRef, or, for an ExternalArtifact that a generator of Path's build
// produces, the sources that generator copies it from.
func (l *loader) seedSources(src tiers.ID) []tiers.ID {
	if src.Kind != kbuild.KindExternalArtifact {
		return []tiers.ID{src}
	}
	// The sources are not known to be the checkout yet: expand path
	// patterns as if they were.
	g, out := l.generatorOf(src, func(tiers.ID) (string, bool) { return l.root, true })
	if g == nil {
		return nil
	}
	var sources []tiers.ID
	for _, alias := range out.Aliases() {
		if s, ok := g.Source(alias); ok {
			sources = append(sources, s)
		}
	}
	return sources
}
