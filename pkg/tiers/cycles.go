package tiers

import (
	"cmp"
	"slices"
)

// findCycles lists the elementary cycles of the subgraph induced by the
// vertices with active[v] set, using Johnson's algorithm made iterative.
// Each cycle is returned without its closing vertex and starts at its least
// vertex. At most limit cycles are enumerated; past that, truncated is set
// and every non-trivial strongly connected component that has no cycle
// listed yet gets one, so none goes unreported.
func findCycles(adj adjacency, active []bool, limit int) (cycles [][]int32, truncated bool) {
	s := newCircuitSearch(adj, len(active))
	live := slices.Clone(active)
	initial := nontrivial(adj, stronglyConnected(adj, live))
	for {
		comps := nontrivial(adj, stronglyConnected(adj, live))
		if len(comps) == 0 {
			break
		}
		// Components come out with their vertices sorted; take the one
		// holding the least live vertex.
		start := slices.MinFunc(comps, func(a, b []int32) int { return cmp.Compare(a[0], b[0]) })
		if !s.run(start, limit+1-len(s.found)) {
			truncated = true
			s.found = s.found[:limit]
			break
		}
		live[start[0]] = false
	}
	if truncated {
		s.found = append(s.found, uncovered(s, initial)...)
	}
	slices.SortFunc(s.found, slices.Compare)
	return s.found, truncated
}

// uncovered returns one cycle for each component that no found cycle touches.
func uncovered(s *circuitSearch, comps [][]int32) [][]int32 {
	covered := make(map[int32]bool)
	for _, c := range s.found {
		for _, v := range c {
			covered[v] = true
		}
	}
	var extra [][]int32
	for _, comp := range comps {
		if slices.ContainsFunc(comp, func(v int32) bool { return covered[v] }) {
			continue
		}
		saved := s.found
		s.found = nil
		s.run(comp, 1)
		extra = append(extra, s.found[:1]...)
		s.found = saved
	}
	return extra
}

// nontrivial keeps the components that hold a cycle: more than one vertex,
// or a single vertex that depends on itself.
func nontrivial(adj adjacency, comps [][]int32) [][]int32 {
	out := comps[:0]
	for _, c := range comps {
		if len(c) > 1 || slices.Contains(adj.row(c[0]), c[0]) {
			slices.Sort(c)
			out = append(out, c)
		}
	}
	return out
}

// stronglyConnected is Tarjan's algorithm with an explicit call stack over
// the vertices with live[v] set.
func stronglyConnected(adj adjacency, live []bool) [][]int32 {
	n := len(live)
	t := &tarjan{index: make([]int32, n), low: make([]int32, n), onStack: make([]bool, n)}
	for root := range int32(n) {
		if !live[root] || t.index[root] != 0 {
			continue
		}
		t.visit(root)
		for len(t.calls) > 0 {
			f := &t.calls[len(t.calls)-1]
			if edges := adj.row(f.v); f.next < len(edges) {
				w := edges[f.next]
				f.next++
				switch {
				case !live[w]:
				case t.index[w] == 0:
					t.visit(w)
				case t.onStack[w]:
					t.low[f.v] = min(t.low[f.v], t.index[w])
				}
				continue
			}
			t.finish(f.v)
		}
	}
	return t.comps
}

// tarjan is the state of stronglyConnected.
type tarjan struct {
	index   []int32 // 0 = unvisited, else discovery order + 1
	low     []int32
	onStack []bool
	stack   []int32
	calls   []tarjanFrame
	counter int32
	comps   [][]int32
}

type tarjanFrame struct {
	v    int32
	next int
}

func (t *tarjan) visit(v int32) {
	t.counter++
	t.index[v], t.low[v] = t.counter, t.counter
	t.stack = append(t.stack, v)
	t.onStack[v] = true
	t.calls = append(t.calls, tarjanFrame{v: v})
}

// finish returns from v's frame, emitting its component when v is a root.
func (t *tarjan) finish(v int32) {
	t.calls = t.calls[:len(t.calls)-1]
	if len(t.calls) > 0 {
		p := t.calls[len(t.calls)-1].v
		t.low[p] = min(t.low[p], t.low[v])
	}
	if t.low[v] != t.index[v] {
		return
	}
	i := len(t.stack) - 1
	for t.stack[i] != v {
		i--
	}
	comp := slices.Clone(t.stack[i:])
	for _, w := range comp {
		t.onStack[w] = false
	}
	t.stack = t.stack[:i]
	t.comps = append(t.comps, comp)
}
