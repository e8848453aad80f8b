package kbuild

import (
	"slices"
	"strings"

	kustypes "sigs.k8s.io/kustomize/api/types"
	sigsyaml "sigs.k8s.io/yaml"
)

// configurationRenames reports whether a transformer configuration file
// may rename an object: one that says where a name prefix, suffix or the
// namespace is written (kustomize writes the namespace as the name of a
// Namespace, and could be told to for any kind), or cannot be read. Most
// such files add nameReference paths only. Once per file and render.
func (b *Builder) configurationRenames(v View, path string) bool {
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
func (b *Builder) replacementRenames(v View, path string) bool {
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
