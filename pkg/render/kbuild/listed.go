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
func (b *Builder) listedBuild(v View, dir string, kus *kustypes.Kustomization, parallel bool) (res *Output, ok bool) {
	if b.kustomizeAlways || !onlyListed(kus) {
		return nil, false
	}
	base := v.base()
	type file struct {
		path string
		data []byte
	}
	files := make([]file, 0, len(kus.Resources))
	for _, r := range kus.Resources {
		path := filepath.Join(dir, r)
		if !filepath.IsLocal(r) || !base.Exists(path) || base.IsDir(path) {
			return nil, false
		}
		data, err := base.ReadFile(path)
		if err != nil || bytes.Contains(data, []byte("config.kubernetes.io")) || bytes.Contains(data, []byte("kustomize.config.k8s.io")) {
			return nil, false
		}
		files = append(files, file{path: path, data: data})
	}
	// An object's ID asks kyaml's OpenAPI schema whether its kind is
	// namespaced, which must not be parsed while another build reads it.
	defer lockSharedBuild(parallel)()
	defer func() {
		if r := recover(); r != nil {
			res, ok = nil, false
		}
	}()
	parsed := make([][]*resource.Resource, len(files))
	for i, f := range files {
		rs, err := b.resources.SliceFromBytes(f.data)
		if err != nil || len(rs) == 0 {
			return nil, false
		}
		for _, r := range rs {
			r.RemoveBuildAnnotations()
		}
		parsed[i] = rs
	}
	seen := idSet{}
	var rs []*resource.Resource
	var paths []string
	for i, f := range files {
		for _, r := range parsed[i] {
			if !seen.add(r) {
				return nil, false
			}
			rs = append(rs, r)
			paths = append(paths, f.path)
		}
	}
	// A directory of many files is collected on every core (parsing them
	// together too held a third more memory): in as many runs as there are
	// workers, each of a contiguous run of objects, joined in order, so
	// that the first failure is the first of the earliest run that fails.
	workers := 1
	if len(files) >= parallelFiles {
		workers = runtime.GOMAXPROCS(0)
	}
	runs := make([]*Output, workers)
	per := (len(rs) + workers - 1) / workers
	inParallel(workers, workers, func(w int) bool {
		lo, hi := min(w*per, len(rs)), min((w+1)*per, len(rs))
		runs[w], _ = b.collectNamed(rs[lo:hi], func(i int, r *resource.Resource) (string, int) {
			return b.placeOf(v, "", &resource.Origin{Path: paths[lo+i]}, r)
		}, false)
		return true
	})
	res = &Output{}
	for _, run := range runs {
		if run == nil {
			// kustomize-controller's own checks failed: say it kustomize's way.
			return nil, false
		}
		res.objects = append(res.objects, run.objects...)
		res.SOPS = append(res.SOPS, run.SOPS...)
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
