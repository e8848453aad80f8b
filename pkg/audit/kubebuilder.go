package audit

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/pkg/catalog"
)

// crdFileRE is the file name controller-gen gives a CRD it generates
// (kubebuilder's config/crd/bases/<group>_<plural>.yaml): the API group,
// which holds a dot, and the plural resource name.
var crdFileRE = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+)_([a-z][a-z0-9]*)\.ya?ml$`)

// kubebuilderCRD returns the group and plural that a manifest URL of one
// CRD names in its file name: a file <group>_<plural>.yaml below a folder
// crd or crds (config/crd/bases, config/crds, a chart's crds). ok is false
// for any other URL, a bundle of many CRDs among them.
func kubebuilderCRD(u string) (group, plural string, ok bool) {
	norm := catalog.NormalizeURL(u)
	dir, file := path.Split(norm)
	m := crdFileRE.FindStringSubmatch(file)
	if m == nil {
		return "", "", false
	}
	for _, seg := range strings.Split(dir, "/") {
		if seg == "crd" || seg == "crds" {
			return m[1], m[5], true
		}
	}
	return "", "", false
}

// pluralMatches reports whether plural is the resource name of kind under
// the plural rules CRDs follow unless they choose another: the lower-cased
// kind plus "s", "es" after s, x, z, ch or sh, and "ies" for a final y
// (controller-gen's pluralisation, and the guess of the API machinery's
// UnsafeGuessKindToResource); a kind already plural matches itself. An
// irregular plural a CRD sets in spec.names.plural (octopi) matches only
// through the CRD itself.
func pluralMatches(kind, plural string) bool {
	k := strings.ToLower(kind)
	if k == "" {
		return false
	}
	candidates := []string{k, k + "s"}
	for _, end := range []string{"s", "x", "z", "ch", "sh"} {
		if strings.HasSuffix(k, end) {
			candidates = append(candidates, k+"es")
		}
	}
	if strings.HasSuffix(k, "y") {
		candidates = append(candidates, strings.TrimSuffix(k, "y")+"ies")
	}
	return slices.Contains(candidates, plural)
}

// kindsOfPlural finds the kinds of group whose resource name is plural:
// a CRD the repository renders that says so in spec.names, else the kinds
// the catalog names in group, else the kinds of the rendered objects in
// group (pluralMatches). Sorted; none when nothing in the repository or
// the catalog has such a kind (then nothing applies one either).
func (ix *index) kindsOfPlural(group, plural string) []GroupKind {
	var exact []GroupKind
	for _, ms := range ix.res.Rendered {
		for _, m := range ms {
			if groupKindOf(m.Object) != (GroupKind{Group: crdGroup, Kind: crdKind}) {
				continue
			}
			g, _, _ := unstructured.NestedString(m.Object.Object, "spec", "group")
			p, _, _ := unstructured.NestedString(m.Object.Object, "spec", "names", "plural")
			k, _, _ := unstructured.NestedString(m.Object.Object, "spec", "names", "kind")
			if g == group && p == plural && k != "" {
				exact = appendKind(exact, GroupKind{Group: g, Kind: k})
			}
		}
	}
	if len(exact) > 0 {
		return sortedKinds(exact)
	}
	var known []GroupKind
	for _, e := range ix.cat.Entries {
		var kinds []catalog.GroupKind
		for _, in := range e.Install {
			kinds = append(kinds, in.Kinds.Kinds...)
		}
		for _, r := range e.Runtime {
			kinds = append(kinds, r.Kinds.Kinds...)
		}
		kinds = append(kinds, e.ClusterScoped...)
		for _, gk := range kinds {
			if gk.Group == group && pluralMatches(gk.Kind, plural) {
				known = appendKind(known, GroupKind(gk))
			}
		}
	}
	for _, kinds := range ix.kinds {
		for _, k := range kinds {
			if k.gk.Group == group && pluralMatches(k.gk.Kind, plural) {
				known = appendKind(known, k.gk)
			}
		}
	}
	return sortedKinds(known)
}

func appendKind(kinds []GroupKind, gk GroupKind) []GroupKind {
	if slices.Contains(kinds, gk) {
		return kinds
	}
	return append(kinds, gk)
}

func sortedKinds(kinds []GroupKind) []GroupKind {
	slices.SortFunc(kinds, func(a, b GroupKind) int { return strings.Compare(a.String(), b.String()) })
	return kinds
}
