package printer

import (
	"slices"

	"github.com/kubestandup/standup/pkg/tiers"
)

// cycleEdge is a dependsOn edge on a dependency cycle: from depends on to.
type cycleEdge struct{ from, to Ref }

// WithCycles returns r with the dependency cycles a graph was refused for,
// which the pictures draw in red: r is the report of the graph without
// the cycles' edges (tiers.BreakCycles), so that each node has a tier to
// be drawn in, and the edges are drawn apart from its dependsOn. The data
// formats carry no cycles: a graph with one has no tiers to print.
func (r TiersReport) WithCycles(cycles []tiers.Cycle) TiersReport {
	var edges []cycleEdge
	for _, c := range cycles {
		for i := 0; i+1 < len(c); i++ {
			edges = append(edges, cycleEdge{from: refOf(c[i]), to: refOf(c[i+1])})
		}
	}
	slices.SortFunc(edges, func(a, b cycleEdge) int {
		if c := compareIDs(a.from.id(), b.from.id()); c != 0 {
			return c
		}
		return compareIDs(a.to.id(), b.to.id())
	})
	r.cycles = slices.Compact(edges)
	return r
}

// onCycle reports whether ref lies on one of the report's cycles.
func (r TiersReport) onCycle(ref Ref) bool {
	for _, e := range r.cycles {
		if e.from == ref || e.to == ref {
			return true
		}
	}
	return false
}
