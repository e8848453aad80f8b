package kbuild

import (
	"bytes"
	"maps"
	"path/filepath"
	"reflect"
	"slices"

	"sigs.k8s.io/kustomize/api/resource"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	sigsyaml "sigs.k8s.io/yaml"
)

// chunkSize is the number of resource files a chunked build hands to one
// kustomize run. kustomize checks each resource it adds against every one
// added before (resWrangler.Append scans its list, parsing each object's
// GVK again), so a build's time grows with the square of its resources: a
// cluster directory of 2,000 Kustomization files took seconds. Chunks keep
// that square small.
const chunkSize = 64

// kustomize runs kustomize on dir, whose kustomization file kfile (already
// written to fs) is kus, and returns the resources built. A plain
// kustomization (nothing but files among its resources: no transformers,
// generators, components or directories) with many resources is built in
// chunks of files (see chunkSize): for such a kustomization, kustomize's
// result is the union of the results of its files, and the one check across
// files, that no two resources share an ID, is made here. Whatever the
// chunks cannot reproduce exactly (a failure, a refused file, a duplicate
// ID, a resource that kustomize would hash or drop) falls back to the one
// build, so results and errors are kustomize's own.
func (b *Builder) kustomize(v View, dir, kfile string, plain []byte, data kfileBytes, kus *kustypes.Kustomization, mode buildMode) (*recordingFS, []*resource.Resource, []string, error) {
	traced := plain != nil
	if mode == sharedBuild && chunkable(v.base(), dir, kus) {
		if rs, placed, printed, ok := b.buildChunks(v, dir, kfile, kus, traced); ok {
			return &recordingFS{name: v.name, placed: placed}, rs, printed, nil
		}
	}
	if mode == sharedBuild && !b.kustomizeAlways && splittable(v.base(), dir, v.name(kfile), data, kus) {
		if fs, rs, printed, ok := b.splitBuild(v, dir, kfile, kus, traced); ok {
			return fs, rs, printed, nil
		}
	}
	for {
		fs, m, printed, err := b.runPlaced(v, dir, kfile, plain, data, mode, b.parallel.Load(), func() *recordingFS {
			return &recordingFS{FileSystem: newOverlayFS(v.base()), name: v.name, shared: mode == sharedBuild, kfiles: &b.kfiles}
		})
		if fs == nil {
			return nil, nil, nil, err
		}
		if fs.exclusive {
			mode = exclusiveBuild
			continue
		}
		if err != nil {
			return fs, nil, printed, err
		}
		return fs, m.Resources(), printed, nil
	}
}

// chunkable reports whether kus is a plain kustomization of more than
// chunkSize resources, each a file of dir's tree that kustomize builds as it
// is: no name-hash annotation (its rename would reach references in other
// files) and no local-config annotation (such a resource is dropped after
// the ID check).
func chunkable(base filesys.FileSystem, dir string, kus *kustypes.Kustomization) bool {
	if len(kus.Resources) <= chunkSize {
		return false
	}
	rest := *kus
	rest.TypeMeta, rest.Resources, rest.BuildMetadata = kustypes.TypeMeta{}, nil, nil
	if !reflect.DeepEqual(rest, kustypes.Kustomization{}) {
		return false
	}
	for _, r := range kus.Resources {
		path := filepath.Join(dir, r)
		if !filepath.IsLocal(r) || !base.Exists(path) || base.IsDir(path) {
			return false
		}
		data, err := base.ReadFile(path)
		if err != nil || bytes.Contains(data, []byte("needs-hash")) || bytes.Contains(data, []byte("local-config")) {
			return false
		}
	}
	return true
}

// buildChunks builds kus's resources chunkSize files at a time, each chunk
// with kus's own settings, and returns the resources in order. It returns
// false when a chunk fails, a file is refused or read from the network, or
// two resources of different chunks share an ID.
func (b *Builder) buildChunks(v View, dir, kfile string, kus *kustypes.Kustomization, traced bool) ([]*resource.Resource, placement, []string, bool) {
	var groups [][]string
	for start := 0; start < len(kus.Resources); start += chunkSize {
		groups = append(groups, kus.Resources[start:min(start+chunkSize, len(kus.Resources))])
	}
	parts, ok := b.buildEach(v, dir, kfile, kus, groups, 1, b.parallel.Load(), traced)
	if !ok {
		return nil, nil, nil, false
	}
	for _, p := range parts {
		if len(p.fs.remote) > 0 {
			return nil, nil, nil, false
		}
	}
	all, printed, ok := joinParts(parts)
	return all, joinPlaced(parts), printed, ok
}

// part is kustomize's build of some of a kustomization's resources under
// its other settings.
type part struct {
	fs      *recordingFS
	rs      []*resource.Resource
	printed []string
}

// buildEach builds kus once for each group of resources (its own
// resources replaced by the group), on workers goroutines, and returns the
// builds in the order of groups. It returns false when a build fails,
// refuses a file, or reads a kustomization file that needs an exclusive
// build.
func (b *Builder) buildEach(v View, dir, kfile string, kus *kustypes.Kustomization, groups [][]string, workers int, parallel, traced bool) ([]part, bool) {
	parts := make([]part, len(groups))
	ok := inParallel(workers, len(groups), func(i int) bool {
		entry := *kus
		entry.Resources = groups[i]
		data := printedLater(entry)
		var plain []byte
		if traced {
			entry.BuildMetadata = slices.DeleteFunc(slices.Clone(entry.BuildMetadata), func(s string) bool { return s == kustypes.OriginAnnotations })
			var err error
			if plain, err = sigsyaml.Marshal(entry); err != nil {
				return false
			}
		}
		fs, m, printed, err := b.runPlaced(v, dir, kfile, plain, data, sharedBuild, parallel, func() *recordingFS {
			return &recordingFS{FileSystem: newOverlayFS(v.base()), name: v.name, shared: true, kfiles: &b.kfiles}
		})
		if fs == nil || err != nil || fs.limit != nil || fs.exclusive {
			return false
		}
		parts[i] = part{fs: fs, rs: m.Resources(), printed: printed}
		return true
	})
	return parts, ok
}

// joinPlaced returns where placeBuild traced the objects of parts; the
// objects of a part it did not trace carry kustomize's origin annotations.
func joinPlaced(parts []part) placement {
	all := placement{}
	for _, p := range parts {
		maps.Copy(all, p.fs.placed)
	}
	return all
}

// joinParts returns the resources of parts in order and what their builds
// printed, and false when two resources of different parts share an ID
// (the one build's error).
func joinParts(parts []part) ([]*resource.Resource, []string, bool) {
	var all []*resource.Resource
	var printed []string
	seen := idSet{}
	for _, p := range parts {
		for _, r := range p.rs {
			if !seen.add(r) {
				return nil, nil, false
			}
		}
		all = append(all, p.rs...)
		printed = append(printed, p.printed...)
	}
	return all, printed, true
}

// idSet holds resource IDs the way kustomize compares them (group, version,
// kind, name and effective namespace: "" and "default" are one).
type idSet map[[5]string]bool

// idKey is the ID kustomize tells r's from others by.
func idKey(r *resource.Resource) [5]string {
	id := r.CurId()
	return [5]string{id.Group, id.Version, id.Kind, id.Name, id.EffectiveNamespace()}
}

// add adds r's current ID and reports whether it was new.
func (s idSet) add(r *resource.Resource) bool {
	key := idKey(r)
	if s[key] {
		return false
	}
	s[key] = true
	return true
}
