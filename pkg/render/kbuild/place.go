package kbuild

import (
	"fmt"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// Every object's file comes from kustomize's origin annotations, which the
// builder turns on (buildMetadata: [originAnnotations]). They cost a
// seventh of a render: with them on, kustomize also records every
// transformer of every kustomization level on every object, parsing and
// printing an annotation that grows with each. A build without them says
// where its objects came from just as well when each object can be traced
// to one document of the files the build read as resources, or to one
// generator of its kustomization files: placeBuild does that tracing, and
// only a build it cannot trace without doubt is run again with kustomize's
// annotations (runPlaced). What it traces is held equal to kustomize's
// origin annotations by TestPlacedMatchesOrigin.

// placement is where each object of a build came from, as kustomize's
// origin annotation would say it: Path, absolute, for an object read from a
// file; ConfiguredIn and ConfiguredBy for one a generator made. An object
// it does not hold carries kustomize's annotation.
type placement map[*resource.Resource]*resource.Origin

// placeBuild traces every object of a build made without origin
// annotations (rs, from fs, of dir) to the document or generator it came
// from, and reports false when any object cannot be traced to exactly one,
// when a document of a resource file is traced by no object (kustomize
// dropped or renamed it), when a replacement or transformer configuration
// read may write names, or when a path the build read went through a
// symbolic link (kustomize's origin names the path as written, the build
// reads it resolved).
func (b *Builder) placeBuild(v View, fs *recordingFS, dir string, rs []*resource.Resource) (placement, bool) {
	t := newTracer(b, v, fs)
	if !t.kdirs[filepath.Clean(dir)] {
		return nil, false
	}
	t.reached[filepath.Clean(dir)] = true
	if !t.readKfiles(fs.kfilesRead) || !t.reachedAll() {
		return nil, false
	}
	t.indexDocs()
	out := make(placement, len(rs))
	for _, r := range rs {
		from, ok := t.place(r)
		if !ok {
			return nil, false
		}
		out[r] = from
	}
	for _, d := range t.docs {
		if !d.matched {
			return nil, false
		}
	}
	return out, true
}

// tracer is placeBuild's state: what the kustomization files a build read
// list, and the documents and generators its objects can come from.
type tracer struct {
	b *Builder
	v View
	// kdirs are the directories of the kustomization files read; reached,
	// those a kustomization file read names (or the build's own).
	kdirs, reached map[string]bool
	docs           []*tracedDoc
	gens           []tracedGen
	// renames: some kustomization file sets a namePrefix or nameSuffix.
	renames bool
	// outer is the namespace that the outermost kustomization file
	// including a directory or a file sets (the last namespace kustomize
	// writes as a Namespace's name), "" for none, conflictingNamespace
	// when two of them include it under different ones.
	outer    map[string]string
	seenFile map[string]bool
	seenGen  map[tracedGen]bool
	byKind   map[[2]string][]*tracedDoc
	byName   map[[3]string][]*tracedDoc
}

// tracedDoc is a document of a resource file, and whether an object was
// traced to it.
type tracedDoc struct {
	file    string
	d       *docStart
	matched bool
}

// tracedGen is a generator entry of a kustomization file.
type tracedGen struct {
	kfile string
	g     generated
}

func newTracer(b *Builder, v View, fs *recordingFS) *tracer {
	t := &tracer{b: b, v: v, kdirs: map[string]bool{}, reached: map[string]bool{}, outer: map[string]string{},
		seenFile: map[string]bool{}, seenGen: map[tracedGen]bool{}}
	for _, k := range fs.kfilesRead {
		t.kdirs[filepath.Dir(k.path)] = true
	}
	return t
}

// include records that a kustomization file under the namespace ns
// includes path.
func (t *tracer) include(path, ns string) {
	if prev, ok := t.outer[path]; ok && prev != ns {
		ns = conflictingNamespace
	}
	t.outer[path] = ns
}

// readKfiles gathers the documents and generators of the kustomization
// files read, in order; false when one of them makes the build
// untraceable.
func (t *tracer) readKfiles(read []readKfile) bool {
	for _, k := range read {
		l := k.k.layout()
		if l.untraceable {
			return false
		}
		t.renames = t.renames || l.renames
		kdir := filepath.Dir(k.path)
		ns := t.outer[kdir]
		if ns == "" {
			ns = l.namespace
		}
		if t.mayRename(kdir, l) {
			return false
		}
		for _, c := range l.components {
			t.reached[filepath.Join(kdir, c)] = true
			t.include(filepath.Join(kdir, c), ns)
		}
		for _, e := range l.resources {
			if !t.readResource(filepath.Join(kdir, e), ns) {
				return false
			}
		}
		for _, g := range l.generators {
			if x := (tracedGen{kfile: k.path, g: g}); !t.seenGen[x] {
				t.seenGen[x] = true
				t.gens = append(t.gens, x)
			}
		}
	}
	return true
}

// mayRename reports whether a transformer configuration or a replacement
// file of the kustomization file in kdir may rename objects.
func (t *tracer) mayRename(kdir string, l *kfileLayout) bool {
	for _, c := range l.configurations {
		if t.b.configurationRenames(t.v, filepath.Join(kdir, c)) {
			return true
		}
	}
	for _, r := range l.replacementFiles {
		if t.b.replacementRenames(t.v, filepath.Join(kdir, r)) {
			return true
		}
	}
	return false
}

// readResource records a resources entry (path, absolute) included under
// the namespace ns: a directory of a kustomization file read, or a file
// whose documents the build's objects can come from. False when the file
// cannot be indexed.
func (t *tracer) readResource(path, ns string) bool {
	t.include(path, ns)
	if t.kdirs[path] {
		t.reached[path] = true
		return true
	}
	if t.seenFile[path] {
		return true
	}
	t.seenFile[path] = true
	disk := t.v.diskPath(path)
	if disk == "" {
		return false
	}
	ix := t.b.fileLines(disk)
	if ix == nil {
		return false
	}
	for _, d := range ix.identities() {
		t.docs = append(t.docs, &tracedDoc{file: path, d: d})
	}
	return true
}

// reachedAll reports whether every kustomization directory read was named
// by a kustomization file: one kustomize reached through a symbolic link
// is read at its resolved path, which no resources entry names.
func (t *tracer) reachedAll() bool {
	for d := range t.kdirs {
		if !t.reached[d] {
			return false
		}
	}
	return true
}

// indexDocs indexes the documents by group and kind, and by name too where
// names are compared whole: a build of thousands of files stays linear.
func (t *tracer) indexDocs() {
	t.byKind, t.byName = map[[2]string][]*tracedDoc{}, map[[3]string][]*tracedDoc{}
	for _, d := range t.docs {
		group := groupOf(d.d.apiVersion)
		t.byKind[[2]string{group, d.d.kind}] = append(t.byKind[[2]string{group, d.d.kind}], d)
		t.byName[[3]string{group, d.d.kind, d.d.name}] = append(t.byName[[3]string{group, d.d.kind, d.d.name}], d)
	}
}

// named reports whether an object of kind rendered with the name rendered
// can be the one written with the name written in file ("" for a
// generator).
func (t *tracer) named(kind, rendered, written, file string) bool {
	switch ns := t.outer[file]; {
	case kind == "Namespace" && ns == conflictingNamespace:
		return true
	case kind == "Namespace" && ns != "":
		return rendered == ns
	case t.renames:
		return written != "" && strings.Contains(rendered, written)
	}
	return rendered == written
}

// place traces r to its one document or generator; false when there is
// none or more than one.
func (t *tracer) place(r *resource.Resource) (*resource.Origin, bool) {
	kind, name, group := r.GetKind(), r.GetName(), r.GetGvk().Group
	candidates := t.byName[[3]string{group, kind, name}]
	if t.renames || kind == "Namespace" {
		candidates = t.byKind[[2]string{group, kind}]
	}
	var from *resource.Origin
	n := 0
	for _, d := range candidates {
		// Where no kustomization file sets a namespace, kustomize leaves
		// the one written: two objects of one name in two namespaces are
		// told apart by it.
		if t.named(kind, name, d.d.name, d.file) && (t.outer[d.file] != "" || d.d.namespace == r.GetNamespace()) {
			n++
			d.matched = true
			from = &resource.Origin{Path: d.file}
		}
	}
	for _, g := range t.gens {
		if g.g.kind == kind && group == "" && (t.named(kind, name, g.g.name, "") || hashed(name, g.g.name)) {
			n++
			from = &resource.Origin{ConfiguredIn: g.kfile, ConfiguredBy: kyaml.ResourceIdentifier{
				TypeMeta: kyaml.TypeMeta{APIVersion: "builtin", Kind: g.g.generator}}}
		}
	}
	return from, n == 1
}

// hashed reports whether rendered is written with kustomize's name hash
// appended ("-" and ten characters).
func hashed(rendered, written string) bool {
	rest, ok := strings.CutPrefix(rendered, written+"-")
	return ok && len(rest) == 10
}

// runPlaced runs kustomize on a new recordingFS (newFS) holding the
// kustomization file kfile of dir: as plain, without origin annotations,
// when plain is set and placeBuild traces every object of the build; else
// as withOrigin, with them. A build that fails, refuses a file or needs an
// exclusive build is returned as it is: kustomize-controller builds without
// origin annotations too, so the failure is the one Flux meets, and
// building it again would fail again.
func (b *Builder) runPlaced(v View, dir, kfile string, plain []byte, withOrigin kfileBytes, mode buildMode, parallel bool, newFS func() *recordingFS) (*recordingFS, resmap.ResMap, []string, error) {
	if plain != nil {
		fs := newFS()
		if err := fs.WriteFile(kfile, plain); err != nil {
			return nil, nil, nil, fmt.Errorf("kustomization generation failed: %w", err)
		}
		m, printed, err := runKustomize(fs, dir, mode, parallel)
		if err != nil || fs.exclusive || fs.limit != nil {
			return fs, m, printed, err
		}
		if placed, ok := b.placeBuild(v, fs, dir, m.Resources()); ok {
			fs.placed = placed
			return fs, m, printed, nil
		}
	}
	data, err := withOrigin()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("kustomization generation failed: %w", err)
	}
	fs := newFS()
	if err := fs.WriteFile(kfile, data); err != nil {
		return nil, nil, nil, fmt.Errorf("kustomization generation failed: %w", err)
	}
	m, printed, err := runKustomize(fs, dir, mode, parallel)
	return fs, m, printed, err
}

// conflictingNamespace marks a file two kustomization files include under
// different namespaces.
const conflictingNamespace = "\x00"

// groupOf is the API group of an apiVersion ("" for the core group).
func groupOf(apiVersion string) string {
	group, _, found := strings.Cut(apiVersion, "/")
	if !found {
		return ""
	}
	return group
}
