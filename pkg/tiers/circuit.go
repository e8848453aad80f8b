package tiers

import "slices"

// circuitSearch is the CIRCUIT procedure of Johnson's algorithm ("Finding
// all the elementary circuits of a directed graph", 1975) with explicit
// stacks, so that it cannot overflow on long chains.
type circuitSearch struct {
	adj     adjacency
	inComp  []bool
	blocked []bool
	b       [][]int32
	path    []int32
	found   [][]int32
}

type circuitFrame struct {
	v      int32
	next   int
	closed bool // a cycle back to the start was found below v
}

func newCircuitSearch(adj adjacency, n int) *circuitSearch {
	return &circuitSearch{
		adj:     adj,
		inComp:  make([]bool, n),
		blocked: make([]bool, n),
		b:       make([][]int32, n),
	}
}

// run enumerates the cycles through comp[0] (the least vertex) inside the
// strongly connected component comp, appending them to s.found. It returns
// false when it stopped after budget cycles with more possibly left.
func (s *circuitSearch) run(comp []int32, budget int) bool {
	for _, v := range comp {
		s.inComp[v], s.blocked[v], s.b[v] = true, false, s.b[v][:0]
	}
	defer func() {
		for _, v := range comp {
			s.inComp[v] = false
		}
	}()
	start := comp[0]
	s.path = s.path[:0]
	calls := []circuitFrame{{v: start}}
	s.path = append(s.path, start)
	s.blocked[start] = true
	for len(calls) > 0 {
		f := &calls[len(calls)-1]
		if edges := s.adj.row(f.v); f.next < len(edges) {
			w := edges[f.next]
			f.next++
			switch {
			case !s.inComp[w]:
			case w == start:
				s.found = append(s.found, slices.Clone(s.path))
				f.closed = true
				if budget--; budget == 0 {
					return false
				}
			case !s.blocked[w]:
				calls = append(calls, circuitFrame{v: w})
				s.path = append(s.path, w)
				s.blocked[w] = true
			}
			continue
		}
		v, closed := f.v, f.closed
		if closed {
			s.unblock(v)
		} else {
			for _, w := range s.adj.row(v) {
				if s.inComp[w] && !slices.Contains(s.b[w], v) {
					s.b[w] = append(s.b[w], v)
				}
			}
		}
		calls = calls[:len(calls)-1]
		s.path = s.path[:len(s.path)-1]
		if closed && len(calls) > 0 {
			calls[len(calls)-1].closed = true
		}
	}
	return true
}

// unblock clears v's block and, transitively, the blocks of the vertices
// waiting on it.
func (s *circuitSearch) unblock(v int32) {
	work := []int32{v}
	for len(work) > 0 {
		u := work[len(work)-1]
		work = work[:len(work)-1]
		if !s.blocked[u] {
			continue
		}
		s.blocked[u] = false
		work = append(work, s.b[u]...)
		s.b[u] = s.b[u][:0]
	}
}
