package kbuild

import (
	"runtime"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// buildKey says what a build depends on: the directory and the
// kustomization file Flux's generator made for it (the repository itself is
// read-only).
type buildKey struct {
	dir, kfile, data string
	// addedOrigin is true when the build adds origin annotations of its own.
	addedOrigin bool
}

// lastBuild remembers the latest build of Path (Builder.Build). It is
// repeated at once by the flux-system Kustomization that builds Path (with
// the same kustomization file, unless its spec patches or renames), and a
// cluster directory of thousands of Kustomizations takes long to build.
// The builds of Kustomizations are looked up, not remembered: copying
// each, in case the next repeated it, was a fiftieth of a render of
// thousands of them, for a repeat that does not come.
type lastBuild struct {
	mu  sync.Mutex
	key buildKey
	res *Output
}

// get returns the result of the build key, or nil, and forgets it: the
// flux-system Kustomization repeats the build of Path once. Its objects are
// decoded again from the JSON kustomize printed of them (collectNamed), so
// that the caller may change them, and the first caller's may have changed.
func (c *lastBuild) get(key buildKey) *Output {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.res == nil || c.key != key {
		return nil
	}
	res := c.res
	c.res = nil
	workers := 1
	if len(res.objects) >= parallelFiles {
		workers = runtime.GOMAXPROCS(0)
	}
	decoded := inParallel(workers, len(res.objects), func(i int) bool {
		obj, err := decodeJSON(res.objects[i].json, nil)
		res.objects[i].Object = &unstructured.Unstructured{Object: obj}
		return err == nil
	})
	if !decoded {
		return nil // decoded once already: cannot happen; build again
	}
	return res
}

// put remembers res, the result of the build key: what its objects were
// printed as (their JSON), not the objects, which would be a copy of the
// largest build a render makes (a cluster directory of thousands of
// Kustomizations) held until its repeat.
func (c *lastBuild) put(key buildKey, res *Output) {
	c.mu.Lock()
	defer c.mu.Unlock()
	saved := *res
	saved.objects = make([]built, len(res.objects))
	for i, o := range res.objects {
		saved.objects[i] = built{Manifest: Manifest{File: o.File, Line: o.Line}, json: o.json}
	}
	saved.SOPS = make([]Manifest, len(res.SOPS))
	for i, m := range res.SOPS {
		saved.SOPS[i] = m.deepCopy()
	}
	saved.Remote = slices.Clone(res.Remote)
	saved.Warnings = slices.Clone(res.Warnings)
	c.key, c.res = key, &saved
}

// deepCopy returns a copy of m whose object the caller may change.
func (m Manifest) deepCopy() Manifest {
	return Manifest{Object: m.Object.DeepCopy(), File: m.File, Line: m.Line}
}
