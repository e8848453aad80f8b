package render

import (
	"runtime"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render/kbuild"
	"github.com/kubestandup/standup/pkg/tiers"
)

// The loader walks the graph one Kustomization at a time, in an order that
// its results depend on (the first ConfigMap of a name wins, a
// Kustomization waits for its substituteFrom objects). The build of a
// Kustomization depends on nothing the walk learns, only on its spec and
// its directory, so the builds of the Kustomizations queued next run ahead
// in the background, on the other cores (shared builds run side by side,
// see buildLock), while the walk substitutes and indexes the current one.
// A build is used only if the walk then builds the same spec in the same
// directory; the walk's order and results are those of building each in
// turn.

// future is a build running ahead of the walk.
type future struct {
	// manifest, v and dir are what it builds.
	manifest *unstructured.Unstructured
	v        kbuild.View
	dir      string
	done     chan struct{}
	res      *kbuild.Output
	err      error
}

// ahead returns how many builds run ahead of the walk: one per core.
func ahead() int {
	return max(1, runtime.GOMAXPROCS(0))
}

// prefetch starts the builds of the Kustomizations queued next, up to
// ahead() running or waiting to be used.
func (l *loader) prefetch() {
	waiting := l.waiting
	for _, id := range l.queue {
		if waiting >= ahead() {
			return
		}
		if _, started := l.futures[id]; started {
			continue
		}
		v, dir, ok := l.plan(id)
		if !ok {
			continue
		}
		f := &future{manifest: l.entries[id].manifest.Object, v: v, dir: dir, done: make(chan struct{})}
		l.futures[id] = f
		l.waiting++
		waiting++
		go func() {
			defer close(f.done)
			f.res, f.err = l.b.BuildIn(f.v, f.manifest.Object, f.dir)
		}()
	}
}

// plan returns what the walk will build for id, when it can tell without
// changing anything: a Kustomization of the checkout, or of an artifact a
// generator already rendered produces, whose directory exists.
func (l *loader) plan(id tiers.ID) (kbuild.View, string, bool) {
	e := l.entries[id]
	if e.done {
		return nil, "", false
	}
	ks, err := l.kustomization(id)
	if err != nil || ks.Spec.SourceRef.Kind == "" || ks.Spec.SourceRef.Name == "" {
		return nil, "", false
	}
	src := flux.KustomizationSource(ks)
	if src.Kind == kbuild.KindExternalArtifact {
		a, resolved := l.artifactAhead(src)
		if !resolved || a.view == nil {
			return nil, "", false
		}
		dir, err := l.artifactDir(id, a.view, ks, e.manifest.File)
		return a.view, dir, err == nil
	}
	if !l.local[src] {
		return nil, "", false
	}
	dir, err := l.resolvePath(id, ks, e.manifest.File)
	return l.b.Checkout(), dir, err == nil
}

// build returns the build of id: the one run ahead when it built the same
// object in the same directory of the same view, else one run now.
func (l *loader) build(id tiers.ID, v kbuild.View, manifest *unstructured.Unstructured, dir string) (*kbuild.Output, error) {
	if f := l.futures[id]; f != nil {
		l.futures[id] = nil // used, or not to be used
		l.waiting--
		<-f.done
		if f.manifest == manifest && f.v == v && f.dir == dir {
			return f.res, f.err
		}
	}
	return l.b.BuildIn(v, manifest.Object, dir)
}

// drainFutures waits for the builds still running ahead, so that none
// outlives the render.
func (l *loader) drainFutures() {
	for _, f := range l.futures {
		if f != nil {
			<-f.done
		}
	}
}
