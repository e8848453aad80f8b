package tiers

import (
	"fmt"
	"strconv"
	"strings"
)

// Selection chooses the nodes a walk touches. Names are "name" (any
// namespace, or Namespace when it is set) or "namespace/name".
type Selection struct {
	// Namespace, when set, narrows the walk to the nodes in it (kubectl's
	// -n): their ancestors in other namespaces are waited on, never
	// touched, and never cut from the graph.
	Namespace string
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
	all       bool
	namespace string
	nodes     map[ID]bool
	denied    map[ID]bool
}

// Active reports whether the walk may touch id.
func (s Selected) Active(id ID) bool {
	if s.denied[id] || !s.inNamespace(id) {
		return false
	}
	return s.all || s.nodes[id]
}

func (s Selected) inNamespace(id ID) bool { return s.namespace == "" || id.Namespace == s.namespace }

// Resolve resolves s against g.
func (s Selection) Resolve(g *Graph) Selected {
	sel := Selected{all: len(s.Only) == 0 && len(s.From) == 0, namespace: s.Namespace, nodes: map[ID]bool{}, denied: map[ID]bool{}}
	if only := s.match(g, s.Only); len(only) > 0 {
		mark(sel.nodes, only, g.Ancestors(only...))
	}
	if from := s.match(g, s.From); len(from) > 0 {
		mark(sel.nodes, from, g.Descendants(from...))
	}
	mark(sel.denied, s.match(g, s.Exclude))
	return sel
}

func mark(set map[ID]bool, groups ...[]ID) {
	for _, ids := range groups {
		for _, id := range ids {
			set[id] = true
		}
	}
}

// match returns the graph's nodes named by names; a bare name is looked
// for in s.Namespace when it is set, as kubectl's -n qualifies names.
func (s Selection) match(g *Graph, names []string) []ID {
	if len(names) == 0 {
		return nil
	}
	var out []ID
	for _, id := range g.Order() {
		for _, n := range names {
			if s.Namespace != "" && !strings.Contains(n, "/") {
				n = s.Namespace + "/" + n
			}
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
// error rather than an empty walk. Under a Namespace, a name in Only must
// name a node in it: Only walks nothing elsewhere.
func (s Selection) Unmatched(g *Graph) []string {
	var out []string
	for _, group := range [][]string{s.Only, s.From, s.Exclude} {
		for _, n := range group {
			found := s.match(g, []string{n})
			if len(found) == 0 || (isOnly(s, n) && !anyIn(found, s.Namespace)) {
				out = append(out, n)
			}
		}
	}
	return out
}

func isOnly(s Selection, name string) bool {
	for _, n := range s.Only {
		if n == name {
			return true
		}
	}
	return false
}

func anyIn(ids []ID, namespace string) bool {
	for _, id := range ids {
		if namespace == "" || id.Namespace == namespace {
			return true
		}
	}
	return false
}

// UnmatchedError reports selection names that name no node.
type UnmatchedError struct {
	// Names are the names given that match no node.
	Names []string
	// Namespace is the Selection's Namespace, where bare names were looked for.
	Namespace string
	// Kinds are the kinds the names were looked for among, as the user
	// would name them (Kustomization when none is set): Check matches a
	// name in any kind, and the caller knows which the user meant.
	Kinds []string
}

// Error names the kinds, the unmatched names as they were given, and the
// namespace they were looked for in: `no HelmRelease named "podinfo"`.
func (e *UnmatchedError) Error() string {
	kinds := e.Kinds
	if len(kinds) == 0 {
		kinds = []string{"Kustomization"}
	}
	names := make([]string, len(e.Names))
	for i, n := range e.Names {
		names[i] = strconv.Quote(n)
	}
	msg := fmt.Sprintf("no %s named %s", strings.Join(kinds, " or "), strings.Join(names, ", "))
	if e.Namespace != "" {
		msg += " in namespace " + e.Namespace
	}
	return msg
}

// Check refuses, before a walk starts, a selection with names that match
// no node of nodes (an *UnmatchedError). Dependencies on absent objects
// do not matter to it.
func (s Selection) Check(nodes []Node) error {
	g, err := Build(nodes, Options{AllowMissing: true})
	if err != nil {
		return err
	}
	if bad := s.Unmatched(g); len(bad) > 0 {
		return &UnmatchedError{Names: bad, Namespace: s.Namespace}
	}
	return nil
}

// Needed reports whether a passive node matters to the walk: some active
// node depends on it, directly or not.
func (s Selected) Needed(g *Graph, id ID) bool {
	if s.all && !s.denied[id] && s.inNamespace(id) {
		return true
	}
	for _, d := range g.Descendants(id) {
		if s.Active(d) {
			return true
		}
	}
	return false
}

// Scope returns the nodes in namespace and every node they depend on,
// directly or not, in any namespace: the part of the graph a view or a walk
// narrowed to namespace needs. Their tiers in it are their tiers in the
// whole graph, since a node's tier depends only on its ancestors. An empty
// namespace returns nodes unchanged.
func Scope(nodes []Node, namespace string) []Node {
	if namespace == "" {
		return nodes
	}
	byID := make(map[ID]Node, len(nodes))
	for _, n := range nodes {
		byID[n.ID] = n
	}
	keep := map[ID]bool{}
	var queue []ID
	for _, n := range nodes {
		if n.ID.Namespace == namespace && !keep[n.ID] {
			keep[n.ID] = true
			queue = append(queue, n.ID)
		}
	}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		for _, d := range byID[id].DependsOn {
			if _, ok := byID[d.ID]; ok && !keep[d.ID] {
				keep[d.ID] = true
				queue = append(queue, d.ID)
			}
		}
	}
	out := make([]Node, 0, len(keep))
	for _, n := range nodes {
		if keep[n.ID] {
			out = append(out, n)
		}
	}
	return out
}
