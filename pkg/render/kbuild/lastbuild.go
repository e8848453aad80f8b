package kbuild

import "sync"

// buildKey says what a build depends on: the directory and the
// kustomization file Flux's generator made for it (the repository itself is
// read-only).
type buildKey struct {
	dir, kfile, data string
	// addedOrigin is true when the build adds origin annotations of its own.
	addedOrigin bool
}

// lastBuild remembers the latest build. The build of Path is repeated at once
// by the flux-system Kustomization that builds Path (with the same
// kustomization file, unless its spec patches or renames), and a cluster
// directory of thousands of Kustomizations takes long to build.
type lastBuild struct {
	mu  sync.Mutex
	key buildKey
	res *Output
}

// get returns a copy of the result of the build key, or nil.
func (c *lastBuild) get(key buildKey) *Output {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.res == nil || c.key != key {
		return nil
	}
	return c.res.deepCopy()
}

// put remembers a copy of res, the result of the build key.
func (c *lastBuild) put(key buildKey, res *Output) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.key, c.res = key, res.deepCopy()
}

// deepCopy returns a copy of r whose objects callers may change (postBuild
// substitution replaces them).
func (r *Output) deepCopy() *Output {
	c := *r
	c.objects = make([]built, len(r.objects))
	for i, o := range r.objects {
		c.objects[i] = built{Manifest: o.Manifest.deepCopy(), json: o.json}
	}
	c.SOPS = make([]Manifest, len(r.SOPS))
	for i, m := range r.SOPS {
		c.SOPS[i] = m.deepCopy()
	}
	c.Remote = append([]string(nil), r.Remote...)
	return &c
}

func (m Manifest) deepCopy() Manifest {
	return Manifest{Object: m.Object.DeepCopy(), File: m.File, Line: m.Line}
}
