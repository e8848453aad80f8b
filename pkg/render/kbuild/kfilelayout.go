package kbuild

import (
	kustypes "sigs.k8s.io/kustomize/api/types"
	sigsyaml "sigs.k8s.io/yaml"
)

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
