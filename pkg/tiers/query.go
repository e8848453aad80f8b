package tiers

import "slices"

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.nodes) }

// Nodes returns the nodes sorted by ID.Less. The slice is a copy; the
// DependsOn slices are shared with the graph and must not be modified.
func (g *Graph) Nodes() []Node { return slices.Clone(g.nodes) }

// Node returns the node with the given ID, if it is in the graph.
func (g *Graph) Node(id ID) (Node, bool) {
	v, ok := g.index[id]
	if !ok {
		return Node{}, false
	}
	return g.nodes[v], true
}

// Tiers returns the nodes grouped by tier: index 0 holds the nodes with no
// dependencies in the graph, and each tier is sorted by ID.Less.
func (g *Graph) Tiers() [][]ID {
	out := make([][]ID, len(g.tiers))
	for t, vs := range g.tiers {
		out[t] = g.ids(vs)
	}
	return out
}

// Order returns every node in tier order: tier by tier, each sorted by
// ID.Less. Every node comes after all of its dependencies.
func (g *Graph) Order() []ID {
	out := make([]ID, 0, len(g.nodes))
	for _, vs := range g.tiers {
		for _, v := range vs {
			out = append(out, g.nodes[v].ID)
		}
	}
	return out
}

// TierOf returns the tier of the node with the given ID, and false when the
// ID is not a node of the graph.
func (g *Graph) TierOf(id ID) (int, bool) {
	v, ok := g.index[id]
	if !ok {
		return 0, false
	}
	return int(g.tier[v]), true
}

// Missing returns the dependencies on objects that are not nodes, sorted by
// dependent, then missing ID. It is empty unless Build ran with
// Options.AllowMissing.
func (g *Graph) Missing() []MissingDependency { return slices.Clone(g.missing) }

// Absent returns the distinct objects that nodes depend on but that are not
// nodes themselves, sorted by ID.Less.
func (g *Graph) Absent() []ID { return absent(g.missing) }

// Dependencies returns the nodes that id depends on directly, sorted by
// ID.Less. Dependencies that are not nodes are left out (see Missing).
func (g *Graph) Dependencies(id ID) []ID {
	v, ok := g.index[id]
	if !ok {
		return nil
	}
	return g.ids(g.deps.row(v))
}

// Dependents returns the nodes that depend on id directly, sorted by ID.Less.
func (g *Graph) Dependents(id ID) []ID {
	v, ok := g.index[id]
	if !ok {
		return nil
	}
	return g.ids(g.rdeps.row(v))
}

// Ancestors returns every node that the given nodes depend on, directly or
// transitively, in tier order. A given node is included only when another
// given node depends on it; IDs that are not nodes are ignored.
func (g *Graph) Ancestors(ids ...ID) []ID { return g.reach(g.deps, ids) }

// Descendants returns every node that depends on the given nodes, directly
// or transitively, in tier order. A given node is included only when it
// depends on another given node; IDs that are not nodes are ignored.
func (g *Graph) Descendants(ids ...ID) []ID { return g.reach(g.rdeps, ids) }

// reach walks adj breadth-first from ids and returns what it reached by at
// least one edge, sorted by tier, then ID.
func (g *Graph) reach(adj adjacency, ids []ID) []ID {
	seen := make([]bool, len(g.nodes))
	var queue, found []int32
	for _, id := range ids {
		if v, ok := g.index[id]; ok {
			queue = append(queue, v)
		}
	}
	for head := 0; head < len(queue); head++ {
		for _, w := range adj.row(queue[head]) {
			if !seen[w] {
				seen[w] = true
				found = append(found, w)
				queue = append(queue, w)
			}
		}
	}
	slices.SortFunc(found, func(a, b int32) int {
		if g.tier[a] != g.tier[b] {
			return int(g.tier[a] - g.tier[b])
		}
		return int(a - b)
	})
	return g.ids(found)
}

func (g *Graph) ids(vs []int32) []ID {
	out := make([]ID, len(vs))
	for i, v := range vs {
		out[i] = g.nodes[v].ID
	}
	return out
}
