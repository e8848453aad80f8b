package kbuild

import (
	"bytes"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"sigs.k8s.io/kustomize/api/resource"
	kustypes "sigs.k8s.io/kustomize/api/types"
)

// listedBuild builds, without kustomize, a directory that Flux builds with
// a kustomization file it generates (no kustomization file of its own)
// and nothing for kustomize to transform: the spec of the Kustomization
// sets no targetNamespace, namePrefix, nameSuffix, patches, images,
// components or buildMetadata, so the generated file lists the manifests
// and nothing else. kustomize's build of such a file is each listed file
// parsed as its resource factory parses it, with kustomize's build
// annotations removed, checked for two resources of one ID, and sorted
// (which the render does anyway: it sorts each build). Most of a build's
// cost was kustomize's fixed per-build work (its default transformer
// configuration, a loader, a target, a resource map), which a repository
// of one Kustomization per application pays once per application.
//
// It returns false for anything whose result it cannot promise to be
// kustomize's own, which then builds the usual way: a listed directory
// (it holds its own kustomization file), a file it cannot read, a
// document that does not parse or a file of none, two resources of one
// ID (kustomize's error), and any file naming kustomize's or kyaml's
// annotations (config.kubernetes.io/local-config drops a resource,
// kustomize.config.k8s.io/needs-hash renames it, build annotations are
// removed), since the bytes alone say it is not plain.
// TestListedBuildMatchesKustomize holds it to kustomize's output over the
// fixtures and the corpus.
func (b *Builder) listedBuild(v View, dir string, kus *kustypes.Kustomization, parallel bool) (*Output, bool) {
	if b.kustomizeAlways || !onlyListed(kus) {
		return nil, false
	}
	base := v.base()
	for _, r := range kus.Resources {
		if path := filepath.Join(dir, r); !filepath.IsLocal(r) || !base.Exists(path) || base.IsDir(path) {
			return nil, false
		}
	}
	// An object's ID asks kyaml's OpenAPI schema whether its kind is
	// namespaced, which must not change while this build reads it.
	defer lockListedBuild(parallel)()
	// Each file is read, parsed and its objects collected at once, on every
	// core for a directory of many files: a file's parse (kyaml's tree of
	// it, several times its objects) is garbage as soon as they are
	// collected. Parsing every file first held them all: a sixth of the
	// memory of a render of thousands of Kustomizations, at its peak.
	workers := 1
	if len(kus.Resources) >= parallelFiles {
		workers = runtime.GOMAXPROCS(0)
	}
	parts := make([]listedPart, len(kus.Resources))
	if !inParallel(workers, len(parts), func(i int) bool { return b.collectFile(v, filepath.Join(dir, kus.Resources[i]), &parts[i]) }) {
		return nil, false
	}
	return joinListed(parts)
}

// listedPart is what a listed build makes of one file: its objects, and
// the ID of each resource, to refuse two of one ID across the files.
type listedPart struct {
	out *Output
	ids [][5]string
}

// collectFile reads and parses one listed file as kustomize does and
// collects its objects into part; false when the listed build does not
// take the file (it cannot be read, or names kustomize's or kyaml's
// annotations), or kustomize would fail or make something else of it (a
// parse error, no object, kustomize-controller's checks).
func (b *Builder) collectFile(v View, path string, part *listedPart) bool {
	data, err := v.base().ReadFile(path)
	if err != nil || bytes.Contains(data, []byte("config.kubernetes.io")) || bytes.Contains(data, []byte("kustomize.config.k8s.io")) {
		return false
	}
	rs, err := parseResources(b.resources, data)
	if err != nil || len(rs) == 0 {
		return false
	}
	part.ids = make([][5]string, len(rs))
	for i, r := range rs {
		r.RemoveBuildAnnotations()
		part.ids[i] = idKey(r)
	}
	part.out, err = b.collectNamed(rs, func(_ int, r *resource.Resource) (string, int) {
		return b.placeOf(v, "", &resource.Origin{Path: path}, r)
	}, false)
	return err == nil
}

// joinListed joins the parts of a listed build in order, and reports false
// when two resources have one ID (kustomize's error).
func joinListed(parts []listedPart) (*Output, bool) {
	seen := map[[5]string]bool{}
	res := &Output{}
	for _, p := range parts {
		for _, id := range p.ids {
			if seen[id] {
				return nil, false
			}
			seen[id] = true
		}
		res.objects = append(res.objects, p.out.objects...)
		res.SOPS = append(res.SOPS, p.out.SOPS...)
	}
	return res, true
}

// parallelFiles is the number of files from which listedBuild collects a
// directory on every core: the cluster directory of a repository of
// thousands of Kustomizations, which the walk waits for.
const parallelFiles = 64

// inParallel calls do for every index below n, spread over workers
// goroutines (in order, on this one, when workers is 1), and reports
// whether every call returned true; a call that panics returns false.
func inParallel(workers, n int, do func(i int) bool) bool {
	var failed atomic.Bool
	call := func(i int) {
		defer func() {
			if r := recover(); r != nil {
				failed.Store(true)
			}
		}()
		if !do(i) {
			failed.Store(true)
		}
	}
	if workers <= 1 {
		for i := range n {
			if call(i); failed.Load() {
				return false
			}
		}
		return true
	}
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n && !failed.Load(); i = int(next.Add(1) - 1) {
				call(i)
			}
		})
	}
	wg.Wait()
	return !failed.Load()
}

// onlyListed reports whether kus, generated by Flux for a directory
// without a kustomization file, lists resources and asks for nothing
// else than the origin annotations standup adds itself.
func onlyListed(kus *kustypes.Kustomization) bool {
	if len(kus.Resources) == 0 || !slices.Equal(kus.BuildMetadata, []string{kustypes.OriginAnnotations}) {
		return false
	}
	rest := *kus
	rest.TypeMeta, rest.Resources, rest.BuildMetadata = kustypes.TypeMeta{}, nil, nil
	return reflect.DeepEqual(rest, kustypes.Kustomization{})
}
