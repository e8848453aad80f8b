package kbuild

import (
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/api/resource"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// A cluster directory often lists one subdirectory per namespace, each a
// kustomization of its own (components, replacements, a namespace), under
// patches that the Flux Kustomization applies to all of them
// (haraldkoch__kochhaus-home: 23 of them, a second of kustomize on one
// core, which every other build of the render waits for, since the
// Kustomizations it finds are what the walk builds next).
//
// kustomize builds such a kustomization by building each listed entry on
// its own (accumulateDirectory: the entry's resources, generators,
// components, transformers), appending the results, and then running the
// top kustomization's transformers and a few whole-build steps. With
// nothing at the top but resources and patches that select their targets,
// the top's transformers act on each resource alone, so the build of each
// entry under the same top is that entry's share of the whole. The
// whole-build steps are where entries meet:
//   - appending refuses two resources of one ID: checked across the
//     entries here;
//   - the name-reference fix (FixBackReferences) lets a resource of one
//     entry follow a rename or a namespace change of a resource of another
//     (a Deployment and the ConfigMap a generator renamed). It only touches
//     the referring kinds of kustomize's nameReference configuration, so
//     the split is refused when one entry holds a referring kind and
//     another a kind referred to, and when a kustomization file adds
//     configurations or CRDs of its own;
//   - vars resolve across entries: a kustomization with vars needs an
//     exclusive build, which refuses the split;
//   - hashing (needs-hash) and dropping local configs act on each resource
//     alone.
// Whatever the entries cannot reproduce exactly (a failed entry, a refused
// file, a shared ID) falls back to the one build, so results and errors are
// kustomize's own. TestShortcutsMatchExactRender holds the split to the one
// build over the fixtures and the corpus.

// splitMinDirs is the fewest directories among a kustomization's resources
// for which it is built split: below it, the fixed cost of each kustomize
// run (and of parsing kustomize's OpenAPI schema, which runs side by side
// need) outweighs what a second core saves.
const splitMinDirs = 8

// splittable reports whether kus (the kustomization file kfile of dir, as
// data) is built split: it lists at least splitMinDirs local directories
// and asks for nothing else than its resources, patches that name their
// target and keep names and kinds, and the origin annotations standup adds.
// Entries built side by side need kustomize's OpenAPI schema parsed, about
// 0.2 s of CPU: a build that does not parse it (no strategic-merge patch)
// is split only once the render has parsed it anyway
// (haraldkoch__kochhaus-home's cluster directory gains a third; toboshii's
// cluster/apps, fourteen directories without patches, lost a tenth).
func splittable(base filesys.FileSystem, dir, rel string, data kfileBytes, kus *kustypes.Kustomization) bool {
	if runtime.GOMAXPROCS(0) < 2 || len(kus.Resources) < splitMinDirs {
		return false
	}
	if !strategicMerge(kus.Patches) && !schemaParsed() {
		return false
	}
	rest := *kus
	rest.TypeMeta, rest.Resources, rest.Patches, rest.BuildMetadata = kustypes.TypeMeta{}, nil, nil, nil
	if !reflect.DeepEqual(rest, kustypes.Kustomization{}) || !slices.Equal(kus.BuildMetadata, []string{kustypes.OriginAnnotations}) {
		return false
	}
	for _, p := range kus.Patches {
		if p.Target == nil || p.Options != nil && (p.Options.AllowNameChange || p.Options.AllowKindChange) {
			return false
		}
	}
	// The top file is read once by each entry's build: a warning of its
	// own would be repeated.
	if top, err := data(); err != nil || len(deprecations(rel, top)) > 0 {
		return false
	}
	dirs := 0
	for _, r := range kus.Resources {
		path := filepath.Join(dir, r)
		if !filepath.IsLocal(r) || !base.Exists(path) {
			return false
		}
		if base.IsDir(path) {
			dirs++
		}
	}
	return dirs >= splitMinDirs
}

// strategicMerge reports whether one of patches is written inline as a
// strategic-merge patch, which kustomize needs its OpenAPI schema for (a
// JSON 6902 patch is a list of operations).
func strategicMerge(patches []kustypes.Patch) bool {
	for _, p := range patches {
		if text := strings.TrimSpace(p.Patch); text != "" && !strings.HasPrefix(text, "-") && !strings.HasPrefix(text, "[") {
			return true
		}
	}
	return false
}

// splitBuild builds each resource of kus under kus's other settings, on
// every core, and returns what the one build would: the resources in
// order, and a recordingFS holding what every entry's build read, skipped
// and warned. It returns false where the split could differ from the one
// build (see above).
func (b *Builder) splitBuild(v View, dir, kfile string, kus *kustypes.Kustomization, traced bool) (*recordingFS, []*resource.Resource, []string, bool) {
	groups := make([][]string, len(kus.Resources))
	for i := range kus.Resources {
		groups[i] = kus.Resources[i : i+1]
	}
	parts, ok := b.buildEach(v, dir, kfile, kus, groups, runtime.GOMAXPROCS(0), true, traced)
	if !ok {
		return nil, nil, nil, false
	}
	rs, printed, ok := joinParts(parts)
	if !ok {
		return nil, nil, nil, false
	}
	all := &recordingFS{name: v.name, placed: joinPlaced(parts)}
	entries := make([][]*resource.Resource, len(parts))
	for i, p := range parts {
		if p.fs.global {
			return nil, nil, nil, false
		}
		entries[i] = p.rs
		all.reads = append(all.reads, p.fs.reads...)
		all.remote = append(all.remote, p.fs.remote...)
		all.warnings = append(all.warnings, p.fs.warnings...)
	}
	if crossReference(entries) {
		return nil, nil, nil, false
	}
	return all, rs, printed, true
}

// nameReferences maps each kind of kustomize's nameReference configuration
// (sigs.k8s.io/kustomize/api internal/konfig/builtinpluginconsts/
// namereference.go, v0.21.1) whose renames kustomize follows to the kinds
// whose fields it rewrites to follow them. TestNameReferencesMatchKustomize
// reads them from that file.
var nameReferences = map[string][]string{
	"ClusterRole":               {"ClusterRoleBinding", "RoleBinding"},
	"ConfigMap":                 {"ClusterRole", "CronJob", "DaemonSet", "Deployment", "Ingress", "Job", "Node", "Pod", "PodTemplate", "ReplicaSet", "Role", "StatefulSet"},
	"Deployment":                {"HorizontalPodAutoscaler"},
	"IngressClass":              {"Ingress"},
	"PersistentVolume":          {"ClusterRole", "PersistentVolumeClaim"},
	"PersistentVolumeClaim":     {"CronJob", "DaemonSet", "Deployment", "Job", "Pod", "ReplicationController", "StatefulSet"},
	"PriorityClass":             {"CronJob", "DaemonSet", "Deployment", "Job", "Pod", "ReplicationController", "StatefulSet"},
	"ReplicaSet":                {"HorizontalPodAutoscaler"},
	"ReplicationController":     {"HorizontalPodAutoscaler"},
	"Role":                      {"RoleBinding"},
	"Secret":                    {"ClusterRole", "CronJob", "DaemonSet", "Deployment", "Ingress", "Job", "PersistentVolume", "Pod", "PodTemplate", "ReplicaSet", "Role", "Service", "ServiceAccount", "StatefulSet", "StorageClass"},
	"Service":                   {"APIService", "Ingress", "MutatingWebhookConfiguration", "StatefulSet", "ValidatingWebhookConfiguration"},
	"ServiceAccount":            {"ClusterRoleBinding", "CronJob", "DaemonSet", "Deployment", "Job", "Pod", "ReplicationController", "RoleBinding", "StatefulSet"},
	"StatefulSet":               {"HorizontalPodAutoscaler"},
	"StorageClass":              {"PersistentVolume", "PersistentVolumeClaim", "StatefulSet"},
	"ValidatingAdmissionPolicy": {"ValidatingAdmissionPolicyBinding"},
}

// crossReference reports whether a resource of one entry may name a
// resource of another that kustomize's name-reference fix would follow:
// an object of a referring kind holds a string that is part of the name of
// an object of a kind it refers to in another entry. Every rename kustomize
// follows (a prefix, a suffix, a generator's hash) keeps the old name
// inside the new one, and a namespace change keeps the name, so a
// reference that the whole build could rewrite is among these strings.
func crossReference(entries [][]*resource.Resource) bool {
	type named struct {
		entry int
		name  string
	}
	referred := map[string][]named{}
	for i, rs := range entries {
		for _, r := range rs {
			if kind := r.GetKind(); nameReferences[kind] != nil {
				referred[kind] = append(referred[kind], named{i, r.GetName()})
			}
		}
	}
	if len(referred) == 0 {
		return false
	}
	for i, rs := range entries {
		for _, r := range rs {
			var names []string
			for kind, others := range referred {
				if !slices.Contains(nameReferences[kind], r.GetKind()) {
					continue
				}
				for _, o := range others {
					if o.entry != i {
						names = append(names, o.name)
					}
				}
			}
			if len(names) == 0 {
				continue
			}
			if m, err := r.Map(); err != nil || holdsPartOf(m, names) {
				return true
			}
		}
	}
	return false
}

// holdsPartOf reports whether v holds a non-empty string that is part of
// one of names.
func holdsPartOf(v any, names []string) bool {
	switch v := v.(type) {
	case string:
		if v == "" {
			return false
		}
		for _, n := range names {
			if strings.Contains(n, v) {
				return true
			}
		}
	case map[string]any:
		for _, e := range v {
			if holdsPartOf(e, names) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if holdsPartOf(e, names) {
				return true
			}
		}
	}
	return false
}
