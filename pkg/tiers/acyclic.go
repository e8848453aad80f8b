package tiers

import (
	"errors"
	"slices"
)

// BreakCycles builds the graph of nodes without the edges of its
// dependency cycles, for a picture of a graph that Build refuses: each node
// gets the tier the rest of its edges give it. It returns that graph and
// the cycles whose edges it left out, as Build's *CycleError lists them
// (when a CycleError is Truncated, the cycles found once those are broken
// follow). Any error but a cycle is returned as Build returns it, with a
// nil graph.
func BreakCycles(nodes []Node, opts Options) (*Graph, []Cycle, error) {
	var broken []Cycle
	for {
		g, err := Build(nodes, opts)
		var cycles *CycleError
		if !errors.As(err, &cycles) {
			return g, broken, err
		}
		broken = append(broken, cycles.Cycles...)
		// Every listed cycle loses its edges: each round removes at least
		// one, so the loop ends.
		nodes = withoutEdges(nodes, cycles.Cycles)
	}
}

// withoutEdges returns nodes without the dependsOn edges of cycles; nodes
// itself is left as it is.
func withoutEdges(nodes []Node, cycles []Cycle) []Node {
	cut := map[ID][]ID{}
	for _, c := range cycles {
		for i := 0; i+1 < len(c); i++ {
			cut[c[i]] = append(cut[c[i]], c[i+1])
		}
	}
	out := slices.Clone(nodes)
	for i, n := range out {
		if to, ok := cut[n.ID]; ok {
			out[i].DependsOn = slices.DeleteFunc(slices.Clone(n.DependsOn), func(d Dependency) bool { return slices.Contains(to, d.ID) })
		}
	}
	return out
}
