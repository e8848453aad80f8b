package tiers

import (
	"strings"
)

// Selection chooses the nodes a walk touches. Names are "name" (any
// namespace) or "namespace/name".
type Selection struct {
	// Only walks these nodes and their ancestors.
	Only []string
	// From walks these nodes and their descendants; their other ancestors
	// must be ready but are not touched.
	From []string
	// Exclude leaves these nodes out: never touched, still waited on by
	// dependents.
	Exclude []string
}

// Selected is a Selection resolved against one graph.
type Selected struct {
	all    bool
	nodes  map[ID]bool
	denied map[ID]bool
}

// Active reports whether the walk may touch id.
func (s Selected) Active(id ID) bool {
	if s.denied[id] {
		return false
	}
	return s.all || s.nodes[id]
}

// Resolve resolves s against g.
func (s Selection) Resolve(g *Graph) Selected {
	sel := Selected{all: len(s.Only) == 0 && len(s.From) == 0, nodes: map[ID]bool{}, denied: map[ID]bool{}}
	if only := match(g, s.Only); len(only) > 0 {
		mark(sel.nodes, only, g.Ancestors(only...))
	}
	if from := match(g, s.From); len(from) > 0 {
		mark(sel.nodes, from, g.Descendants(from...))
	}
	mark(sel.denied, match(g, s.Exclude))
	return sel
}

func mark(set map[ID]bool, groups ...[]ID) {
	for _, ids := range groups {
		for _, id := range ids {
			set[id] = true
		}
	}
}

// match returns the graph's nodes named by names.
func match(g *Graph, names []string) []ID {
	if len(names) == 0 {
		return nil
	}
	var out []ID
	for _, id := range g.Order() {
		for _, n := range names {
			if Matches(id, n) {
				out = append(out, id)
				break
			}
		}
	}
	return out
}

// Matches reports whether name ("name" or "namespace/name") names id.
func Matches(id ID, name string) bool {
	if ns, n, ok := strings.Cut(name, "/"); ok {
		return id.Namespace == ns && id.Name == n
	}
	return id.Name == name
}

// Unmatched returns the names in s that name no node of g, so a typo is an
// error rather than an empty walk.
func (s Selection) Unmatched(g *Graph) []string {
	var out []string
	for _, group := range [][]string{s.Only, s.From, s.Exclude} {
		for _, n := range group {
			if len(match(g, []string{n})) == 0 {
				out = append(out, n)
			}
		}
	}
	return out
}

// Needed reports whether a passive node matters to the walk: some active
// node depends on it, directly or not.
func (s Selected) Needed(g *Graph, id ID) bool {
	if s.all && !s.denied[id] {
		return true
	}
	for _, d := range g.Descendants(id) {
		if s.Active(d) {
			return true
		}
	}
	return false
}
