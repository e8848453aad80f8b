package render

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	kustypes "sigs.k8s.io/kustomize/api/types"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"
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

// readKfile is a kustomization file a build read: its path as read, in the
// view's file system, and what was made of it.
type readKfile struct {
	path string
	k    *kfile
}

// kfileLayout is what placeBuild needs of a kustomization file.
type kfileLayout struct {
	// resources are its resources (bases included) and components, as
	// written.
	resources, components []string
	// generators are the objects its generators make.
	generators []generated
	// replacementFiles are the files of its replacements (path:), as
	// written; what they replace is read by placeBuild.
	replacementFiles []string
	// renames is set when it sets a namePrefix or a nameSuffix, which
	// leaves a written name inside the rendered one rather than equal to
	// it.
	renames bool
	// namespace is the namespace it sets, which kustomize also writes as
	// the name of every Namespace object under it.
	namespace string
	// configurations are its transformer configuration files, as written.
	configurations []string
	// untraceable is set when it can give objects names or kinds that no
	// document or generator holds (a replacement written in it that
	// writes a name or kind, a patch allowed to rename or change kinds,
	// plugins, Helm charts, its own CRDs or schema), or does not parse.
	untraceable bool
}

// generated is one generator entry: the kind it makes and its name.
type generated struct {
	kind, generator, name string
}

// layout parses k once.
func (k *kfile) layout() *kfileLayout {
	k.layoutOnce.Do(func() {
		var kus kustypes.Kustomization
		if err := sigsyaml.Unmarshal(k.local, &kus); err != nil {
			k.parsed = &kfileLayout{untraceable: true}
			return
		}
		kus.FixKustomization()
		l := &kfileLayout{resources: kus.Resources, components: kus.Components, namespace: kus.Namespace,
			configurations: kus.Configurations,
			renames:        kus.NamePrefix != "" || kus.NameSuffix != ""}
		for _, r := range kus.Replacements {
			if r.Path != "" {
				l.replacementFiles = append(l.replacementFiles, r.Path)
			} else if replacesName(r.Replacement) {
				l.untraceable = true
			}
		}
		l.untraceable = l.untraceable || len(kus.HelmCharts) > 0 || kus.HelmChartInflationGenerator != nil ||
			len(kus.Generators) > 0 || len(kus.Transformers) > 0 || len(kus.Validators) > 0 ||
			len(kus.PatchesJson6902) > 0 || len(kus.Crds) > 0 || kus.OpenAPI != nil
		for _, p := range kus.Patches {
			if p.Options != nil && (p.Options.AllowNameChange || p.Options.AllowKindChange) {
				l.untraceable = true
			}
		}
		for _, g := range kus.ConfigMapGenerator {
			l.generators = append(l.generators, generated{kind: "ConfigMap", generator: "ConfigMapGenerator", name: g.Name})
		}
		for _, g := range kus.SecretGenerator {
			l.generators = append(l.generators, generated{kind: "Secret", generator: "SecretGenerator", name: g.Name})
		}
		k.parsed = l
	})
	return k.parsed
}

// placeBuild traces every object of a build made without origin
// annotations (rs, from fs, of dir) to the document or generator it came
// from, and reports false when any object cannot be traced to exactly one,
// when a document of a resource file is traced by no object (kustomize
// dropped or renamed it), when a replacement or transformer configuration
// read may write names, or when a path the build read went through a
// symbolic link (kustomize's origin names the path as written, the build
// reads it resolved).
func (b *builder) placeBuild(v view, fs *recordingFS, dir string, rs []*resource.Resource) (placement, bool) {
	kdirs := map[string]bool{}
	for _, k := range fs.kfilesRead {
		kdirs[filepath.Dir(k.path)] = true
	}
	if !kdirs[filepath.Clean(dir)] {
		return nil, false
	}
	type doc struct {
		file    string
		d       *docStart
		matched bool
	}
	type gen struct {
		kfile string
		g     generated
	}
	var docs []*doc
	var gens []gen
	reached := map[string]bool{filepath.Clean(dir): true}
	renames := false
	// outer is the namespace that the outermost kustomization file
	// including a directory or a file sets (the last namespace kustomize
	// writes as a Namespace's name), "" for none, conflictingNamespace
	// when two of them include it under different ones.
	outer := map[string]string{}
	include := func(path, ns string) {
		if prev, ok := outer[path]; ok && prev != ns {
			ns = conflictingNamespace
		}
		outer[path] = ns
	}
	seenFile, seenGen := map[string]bool{}, map[gen]bool{}
	for _, k := range fs.kfilesRead {
		l := k.k.layout()
		if l.untraceable {
			return nil, false
		}
		renames = renames || l.renames
		kdir := filepath.Dir(k.path)
		ns := outer[kdir]
		if ns == "" {
			ns = l.namespace
		}
		for _, c := range l.configurations {
			if b.configurationRenames(v, filepath.Join(kdir, c)) {
				return nil, false
			}
		}
		for _, r := range l.replacementFiles {
			if b.replacementRenames(v, filepath.Join(kdir, r)) {
				return nil, false
			}
		}
		for _, c := range l.components {
			reached[filepath.Join(kdir, c)] = true
			include(filepath.Join(kdir, c), ns)
		}
		for _, e := range l.resources {
			path := filepath.Join(kdir, e)
			include(path, ns)
			if kdirs[path] {
				reached[path] = true
				continue
			}
			if seenFile[path] {
				continue
			}
			seenFile[path] = true
			disk := v.diskPath(path)
			if disk == "" {
				return nil, false
			}
			ix := b.fileLines(disk)
			if ix == nil {
				return nil, false
			}
			for _, d := range ix.identities() {
				docs = append(docs, &doc{file: path, d: d})
			}
		}
		for _, g := range l.generators {
			if x := (gen{kfile: k.path, g: g}); !seenGen[x] {
				seenGen[x] = true
				gens = append(gens, x)
			}
		}
	}
	// A kustomization directory kustomize reached through a symbolic link
	// is read at its resolved path, which no resources entry names.
	for d := range kdirs {
		if !reached[d] {
			return nil, false
		}
	}
	named := func(kind, rendered, written, file string) bool {
		switch ns := outer[file]; {
		case kind == "Namespace" && ns == conflictingNamespace:
			return true
		case kind == "Namespace" && ns != "":
			return rendered == ns
		case renames:
			return written != "" && strings.Contains(rendered, written)
		}
		return rendered == written
	}
	// Documents by group and kind, and by name too where names are
	// compared whole: a build of thousands of files stays linear.
	byKind, byName := map[[2]string][]*doc{}, map[[3]string][]*doc{}
	for _, d := range docs {
		group := groupOf(d.d.apiVersion)
		byKind[[2]string{group, d.d.kind}] = append(byKind[[2]string{group, d.d.kind}], d)
		byName[[3]string{group, d.d.kind, d.d.name}] = append(byName[[3]string{group, d.d.kind, d.d.name}], d)
	}
	out := make(placement, len(rs))
	for _, r := range rs {
		kind, name, group := r.GetKind(), r.GetName(), r.GetGvk().Group
		candidates := byName[[3]string{group, kind, name}]
		if renames || kind == "Namespace" {
			candidates = byKind[[2]string{group, kind}]
		}
		var from *resource.Origin
		n := 0
		for _, d := range candidates {
			// Where no kustomization file sets a namespace, kustomize
			// leaves the one written: two objects of one name in two
			// namespaces are told apart by it.
			if named(kind, name, d.d.name, d.file) && (outer[d.file] != "" || d.d.namespace == r.GetNamespace()) {
				n++
				d.matched = true
				from = &resource.Origin{Path: d.file}
			}
		}
		for _, g := range gens {
			if g.g.kind == kind && group == "" && (named(kind, name, g.g.name, "") || hashed(name, g.g.name)) {
				n++
				from = &resource.Origin{ConfiguredIn: g.kfile, ConfiguredBy: kyaml.ResourceIdentifier{
					TypeMeta: kyaml.TypeMeta{APIVersion: "builtin", Kind: g.g.generator}}}
			}
		}
		if n != 1 {
			return nil, false
		}
		out[r] = from
	}
	for _, d := range docs {
		if !d.matched {
			return nil, false
		}
	}
	return out, true
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
// as data, with them. A build that fails, refuses a file or needs an
// exclusive build is returned as it is: kustomize-controller builds without
// origin annotations too, so the failure is the one Flux meets, and
// building it again would fail again.
func (b *builder) runPlaced(v view, dir, kfile string, plain, data []byte, mode buildMode, parallel bool, newFS func() *recordingFS) (*recordingFS, resmap.ResMap, []string, error) {
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

// configurationRenames reports whether a transformer configuration file
// may rename an object: one that says where a name prefix, suffix or the
// namespace is written (kustomize writes the namespace as the name of a
// Namespace, and could be told to for any kind), or cannot be read. Most
// such files add nameReference paths only. Once per file and render.
func (b *builder) configurationRenames(v view, path string) bool {
	return memo(&b.linesMu, b.renamers, "configuration\x00"+path, func() bool {
		data, err := v.base().ReadFile(path)
		if err != nil {
			return true
		}
		var config map[string]any
		if err := sigsyaml.Unmarshal(data, &config); err != nil {
			return true
		}
		for _, key := range []string{"namePrefix", "nameSuffix", "namespace"} {
			if _, ok := config[key]; ok {
				return true
			}
		}
		return false
	})
}

// replacementRenames reports whether the replacements of a file (one or a
// list, as kustomize reads them) may rename an object or change its kind,
// or cannot be read: once per file and render.
func (b *builder) replacementRenames(v view, path string) bool {
	return memo(&b.linesMu, b.renamers, path, func() bool {
		data, err := v.base().ReadFile(path)
		if err != nil {
			return true
		}
		var list []kustypes.Replacement
		if err := sigsyaml.Unmarshal(data, &list); err != nil {
			var one kustypes.Replacement
			if err := sigsyaml.Unmarshal(data, &one); err != nil {
				return true
			}
			list = []kustypes.Replacement{one}
		}
		return slices.ContainsFunc(list, replacesName)
	})
}

// replacesName reports whether a replacement may write an object's name or
// kind: a field path of kind, of metadata whole, of metadata.name, or one
// that kustomize would expand (a wildcard or a bracketed key) where those
// could be.
func replacesName(r kustypes.Replacement) bool {
	for _, t := range r.Targets {
		if t == nil {
			continue
		}
		for _, fp := range t.FieldPaths {
			seg := strings.Split(fp, ".")
			switch {
			case seg[0] == "kind" || seg[0] == "metadata" && len(seg) == 1:
				return true
			case strings.ContainsAny(seg[0], "*["):
				return true
			case seg[0] == "metadata" && (seg[1] == "name" || strings.ContainsAny(seg[1], "*[")):
				return true
			}
		}
	}
	return false
}

// groupOf is the API group of an apiVersion ("" for the core group).
func groupOf(apiVersion string) string {
	group, _, found := strings.Cut(apiVersion, "/")
	if !found {
		return ""
	}
	return group
}
