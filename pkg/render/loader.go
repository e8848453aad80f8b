package render

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render/kbuild"
	"github.com/kubestandup/standup/pkg/tiers"
)

// entry is one discovered Flux object.
type entry struct {
	kind      string
	manifest  Manifest
	appliedBy *tiers.ID
	done      bool
	// ks caches the decoded manifest of a Kustomization.
	ks *kustomizev1.Kustomization
	// set is what a ResourceSet's expansion said (loader_operator.go).
	set *setInfo
}

// loader walks the Kustomization graph of one repository.
type loader struct {
	// b is nil once the walk is over (releaseBuilder); root is its
	// repository root.
	b     *kbuild.Builder
	root  string
	kinds map[string]bool

	entries  map[tiers.ID]*entry
	queue    []tiers.ID
	deferred []tiers.ID
	// progressed is true when a Kustomization was built since the deferred
	// ones were last retried.
	progressed bool
	// local holds the sources that Path's own Kustomizations build from:
	// the sources this checkout stands for.
	local map[tiers.ID]bool
	vars  kbuild.VarIndex
	// sops holds the Kind/namespace/name of the SOPS documents skipped.
	sops map[tiers.ID]bool

	rendered map[tiers.ID][]Manifest
	warnings map[string]bool
	// sources holds the Flux sources the checkout defines; foreign, the
	// Kustomizations left unrendered because they build from another source.
	sources map[tiers.ID]bool
	foreign map[tiers.ID]flux.Object
	// foreignWhy says why a foreign Kustomization's ExternalArtifact is not
	// rendered although a generator of the checkout produces it.
	foreignWhy map[tiers.ID]string
	// generators holds the ArtifactGenerators of the rendered output;
	// artifacts, the ExternalArtifacts resolved so far.
	generators map[tiers.ID]*kbuild.ArtifactGenerator
	artifacts  map[tiers.ID]artifactSource
	// ahead holds the ExternalArtifacts resolved for builds run ahead.
	ahead  map[tiers.ID]aheadArtifact
	remote map[tiers.ID][]string
	// futures holds the builds run ahead of the walk (prefetch.go); nil
	// once used. waiting counts those not yet used (counting them in the
	// map was quadratic in a repository's Kustomizations). builds counts
	// the builds the walk made.
	futures map[tiers.ID]*future
	waiting int
	builds  int
	// failed holds the Kustomizations whose build read a file over a limit.
	failed []BuildFailure
	// sopsNamespaces maps "file: Kind/name" of a skipped SOPS document to
	// the namespaces it was rendered into.
	sopsNamespaces map[string]map[string]bool
}

func newLoader(b *kbuild.Builder, kinds map[string]bool) *loader {
	return &loader{
		b:        b,
		root:     b.Root(),
		kinds:    kinds,
		entries:  map[tiers.ID]*entry{},
		local:    map[tiers.ID]bool{},
		vars:     kbuild.VarIndex{},
		sops:     map[tiers.ID]bool{},
		rendered: map[tiers.ID][]Manifest{},
		warnings: map[string]bool{},
		sources:  map[tiers.ID]bool{},
		foreign:  map[tiers.ID]flux.Object{},
		remote:   map[tiers.ID][]string{},

		foreignWhy: map[tiers.ID]string{},
		generators: map[tiers.ID]*kbuild.ArtifactGenerator{},
		artifacts:  map[tiers.ID]artifactSource{},
		ahead:      map[tiers.ID]aheadArtifact{},
		futures:    map[tiers.ID]*future{},

		sopsNamespaces: map[string]map[string]bool{},
	}
}

// index records what later builds look up in a rendered object: postBuild
// variables, the Flux sources the checkout defines and the
// ArtifactGenerators that compose ExternalArtifacts from them.
func (l *loader) index(m Manifest) {
	l.vars.Add(m)
	u := m.Object
	switch {
	case strings.HasPrefix(u.GetAPIVersion(), sourceGroup+"/"):
		l.sources[tiers.ID{Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}] = true
	case kbuild.IsArtifactGenerator(u):
		l.indexGenerator(m)
	}
}

// sourceGroup is the API group of Flux's sources.
const sourceGroup = "source.toolkit.fluxcd.io"

// run builds path (absolute), then every Kustomization reachable from it.
func (l *loader) run(ctx context.Context, path string) (*Result, error) {
	relPath := l.b.Rel(path)
	out, err := l.b.Build(nil, path)
	if err != nil {
		return nil, fmt.Errorf("path %s: %w", relPath, err)
	}
	root := out.Manifests()
	l.noteSkipped(out)
	sortManifests(root)
	for _, m := range root {
		l.index(m)
	}
	if err := l.seed(ctx, root, path, relPath); err != nil {
		return nil, err
	}
	defer l.drainFutures()
	if err := l.drain(ctx); err != nil {
		return nil, err
	}
	l.releaseBuilder()
	return l.result(relPath, root)
}

// releaseBuilder lets the builder go once the walk is over: what it
// remembered of the disk for the render (every file read, every path
// checked) is garbage before the result is assembled, which is when a
// render of thousands of Kustomizations holds the most.
func (l *loader) releaseBuilder() {
	l.drainFutures()
	l.futures = nil
	l.b = nil
}

// seed records the Flux objects of Path's build and queues the
// Kustomizations to start from. When some of them build Path itself (the
// flux-system Kustomization of a bootstrapped cluster), the cluster's objects
// are what those build: they are the only starting points, and the others are
// dropped, to be found again, patched and substituted, in their build. The
// sources of the starting points are the sources this checkout stands for.
// When every one of those fails alone, the others are what is left to know:
// they start from Path's build, as written there.
func (l *loader) seed(ctx context.Context, root []Manifest, path, relPath string) error {
	seeds := l.discover(append(slices.Clone(root), l.syncs(root)...), nil)
	if len(seeds) == 0 {
		l.warn(fmt.Sprintf("path %s: no Flux Kustomization found", relPath))
	}
	var self []tiers.ID
	for _, id := range seeds {
		// Only one whose spec.path is Path as written can build it: the
		// others are decoded when they are built, if at all.
		if id.Kind != KindKustomization || !l.mayBuildPath(id, path) {
			continue
		}
		if builds, err := l.buildsPath(id, path); err == nil && builds {
			self = append(self, id)
		}
	}
	if len(self) == 0 {
		for _, id := range seeds {
			if id.Kind != KindKustomization {
				continue
			}
			if _, err := l.kustomization(id); err != nil {
				l.failAlone(id, err)
			}
		}
		l.markLocal(seeds, false)
		l.queue = seeds
		return nil
	}
	dropped := map[tiers.ID]*entry{}
	for id, e := range l.entries {
		if !slices.Contains(self, id) && e.appliedBy == nil {
			dropped[id] = e
			delete(l.entries, id)
		}
	}
	l.markLocal(self, true)
	failed := 0
	for _, id := range self {
		// Their substituteFrom objects can only come from Path's build,
		// which is indexed already: build them now; they queue the rest.
		if _, err := l.process(ctx, id, true); err != nil {
			if ctx.Err() != nil {
				return err
			}
			l.failAlone(id, err)
			failed++
		}
	}
	if failed == len(self) {
		l.restore(dropped, self)
	}
	return nil
}

// restore starts from the objects of Path's build that the Kustomizations
// building Path would have applied, had they not all failed: unpatched and
// unsubstituted, they are still the best view of the rest.
func (l *loader) restore(dropped map[tiers.ID]*entry, self []tiers.ID) {
	var rest []tiers.ID
	for id, e := range dropped {
		if _, found := l.entries[id]; found {
			continue
		}
		l.entries[id] = e
		if e.kind == KindKustomization || e.kind == KindResourceSet {
			rest = append(rest, id)
		}
	}
	if len(rest) == 0 {
		return
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i].Less(rest[j]) })
	l.markLocal(rest, false)
	l.queue = append(l.queue, rest...)
	names := make([]string, len(self))
	for i, id := range self {
		names[i] = id.String()
	}
	l.warn(fmt.Sprintf("%s failed: the Kustomizations of the path are rendered as its files hold them, without the patches and substitutions it would apply",
		strings.Join(names, ", ")))
}

// markLocal records the sources of the starting points as the sources this
// checkout stands for. When none of them builds Path itself, the checkout is
// anchored by nothing but its being a git checkout: only GitRepository
// sources stand for it, and a Kustomization of the same directory that builds
// from an OCIRepository or Bucket (Flux's own manifests, another team's
// artifact) is left unrendered rather than built from the wrong files. A
// directory whose Kustomizations build from no GitRepository at all (an OCI
// artifact pushed from this checkout) keeps them all. An ExternalArtifact
// never stands for the checkout: the sources its generator copies from do,
// when Path's build holds that generator.
func (l *loader) markLocal(seeds []tiers.ID, anchored bool) {
	sources := map[tiers.ID]bool{}
	fromGit := false
	for _, id := range seeds {
		ks, err := l.kustomization(id)
		if err != nil {
			continue // failed alone already, in seed, or not a Kustomization
		}
		for _, src := range l.seedSources(flux.KustomizationSource(ks)) {
			sources[src] = true
			fromGit = fromGit || src.Kind == sourceGitRepository
		}
	}
	for src := range sources {
		if anchored || !fromGit || src.Kind == sourceGitRepository {
			l.local[src] = true
		}
	}
}

// sourceGitRepository is the source kind a git checkout stands for.
const sourceGitRepository = "GitRepository"

// warnForeign explains each Kustomization left unrendered. A source the
// checkout does not define at all is worth a closer look: the common slip is
// a sourceRef without namespace, which Flux resolves in the Kustomization's
// own namespace.
func (l *loader) warnForeign() {
	for id, obj := range l.foreign {
		src := obj.SourceRef
		if why := l.foreignWhy[id]; why != "" {
			l.warn(fmt.Sprintf("%s: builds from %s, %s; not rendered", id, src, why))
			continue
		}
		if l.sources[src] {
			l.warn(fmt.Sprintf("%s: builds from %s, not from the source of the path; not rendered", id, src))
			continue
		}
		msg := fmt.Sprintf("%s: builds from %s, which the checkout does not define; not rendered", id, src)
		if ks, err := l.kustomization(id); err == nil && ks.Spec.SourceRef.Namespace == "" {
			var namespaces []string
			for other := range l.sources {
				if other.Kind == src.Kind && other.Name == src.Name && other.Namespace != src.Namespace && l.local[other] {
					namespaces = append(namespaces, other.Namespace)
				}
			}
			if len(namespaces) > 0 {
				ns := slices.Min(namespaces) // the same message on every run
				msg += fmt.Sprintf(" (its sourceRef has no namespace, so Flux looks in %s; the checkout's %s is in %s: set sourceRef.namespace: %s)",
					src.Namespace, src.Name, ns, ns)
			}
		}
		l.warn(msg)
	}
}
