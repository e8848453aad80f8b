package tiers

import (
	"strings"
)

const (
	kindKS = "Kustomization"
	kindHR = "HelmRelease"
)

// parseRef reads "name", "ns/name" or "Kind/ns/name"; ns and kind default
// to those given.
func parseRef(ref, kind, ns string) ID {
	parts := strings.Split(ref, "/")
	switch len(parts) {
	case 1:
		return ID{Kind: kind, Namespace: ns, Name: parts[0]}
	case 2:
		return ID{Kind: kind, Namespace: parts[0], Name: parts[1]}
	default:
		return ID{Kind: parts[0], Namespace: parts[1], Name: parts[2]}
	}
}

// node builds a node of the given kind from "ns/name" and dependency refs.
func node(kind, ref string, deps ...string) Node {
	id := parseRef(ref, kind, "default")
	n := Node{ID: id}
	for _, d := range deps {
		n.DependsOn = append(n.DependsOn, Dependency{ID: parseRef(d, kind, id.Namespace)})
	}
	return n
}

func ks(ref string, deps ...string) Node { return node(kindKS, ref, deps...) }
func hr(ref string, deps ...string) Node { return node(kindHR, ref, deps...) }

// short names a Kustomization ns/name and anything else Kind/ns/name.
func short(id ID) string {
	if id.Kind == kindKS {
		return id.NamespacedName()
	}
	return id.String()
}

func shorts(ids []ID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = short(id)
	}
	return out
}

func tierStrings(g *Graph) [][]string {
	var out [][]string
	for _, t := range g.Tiers() {
		out = append(out, shorts(t))
	}
	return out
}
