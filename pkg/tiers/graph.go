package tiers

import (
	"errors"
	"slices"
)

// Options controls how Build treats an incomplete graph.
type Options struct {
	// AllowMissing turns dependencies on objects that are not nodes into
	// warnings, reported by Graph.Missing. The missing object is treated as
	// external and ready: it does not raise its dependent's tier.
	AllowMissing bool
}

// Graph is a validated, immutable dependency graph with its tiers computed.
// Build is the only way to make one; its methods are safe for concurrent use.
type Graph struct {
	// nodes are sorted by ID.Less; a node's index is its vertex number, so
	// ascending vertex order is ID order.
	nodes   []Node
	index   map[ID]int32
	deps    adjacency // vertex -> the vertices it depends on
	rdeps   adjacency // vertex -> the vertices that depend on it
	tier    []int32
	tiers   [][]int32
	missing []MissingDependency
}

// adjacency is a compressed sparse row edge list: the edges of v are
// to[off[v]:off[v+1]], sorted ascending.
type adjacency struct {
	off []int32
	to  []int32
}

func (a adjacency) row(v int32) []int32 { return a.to[a.off[v]:a.off[v+1]] }

// Build validates nodes and computes their tiers. It returns a
// *DuplicateError when an ID appears twice; a *CycleError when the
// dependencies are circular; and a *MissingError when a node depends on an
// object that is not among nodes, unless opts.AllowMissing is set. When a
// graph has both cycles and missing dependencies, the error joins both
// (cycle error first), and errors.As finds either.
func Build(nodes []Node, opts Options) (*Graph, error) {
	g := &Graph{nodes: slices.Clone(nodes)}
	slices.SortFunc(g.nodes, func(a, b Node) int { return compareID(a.ID, b.ID) })
	if err := g.indexNodes(); err != nil {
		return nil, err
	}
	g.linkEdges()
	placed := g.assignTiers()

	var errs []error
	if len(placed) < len(g.nodes) {
		errs = append(errs, g.cycleError(placed))
	}
	if len(g.missing) > 0 && !opts.AllowMissing {
		errs = append(errs, &MissingError{Missing: slices.Clone(g.missing)})
	}
	switch len(errs) {
	case 0:
		return g, nil
	case 1:
		return nil, errs[0]
	default:
		return nil, errors.Join(errs...)
	}
}

// indexNodes fills the ID index and rejects duplicate IDs.
func (g *Graph) indexNodes() error {
	var dups []ID
	g.index = make(map[ID]int32, len(g.nodes))
	for i, n := range g.nodes {
		if i > 0 && n.ID == g.nodes[i-1].ID {
			if len(dups) == 0 || dups[len(dups)-1] != n.ID {
				dups = append(dups, n.ID)
			}
			continue
		}
		g.index[n.ID] = int32(i)
	}
	if len(dups) > 0 {
		return &DuplicateError{IDs: dups}
	}
	return nil
}

// linkEdges builds both adjacency lists and records dangling dependencies.
func (g *Graph) linkEdges() {
	n := len(g.nodes)
	edges := 0
	for _, node := range g.nodes {
		edges += len(node.DependsOn)
	}
	g.deps = adjacency{off: make([]int32, n+1), to: make([]int32, 0, edges)}
	indegree := make([]int32, n+1)
	for v, node := range g.nodes {
		start := len(g.deps.to)
		for _, dep := range node.DependsOn {
			if w, ok := g.index[dep.ID]; ok {
				g.deps.to = append(g.deps.to, w)
				continue
			}
			m := MissingDependency{Dependent: node.ID, Missing: dep.ID}
			if !slices.Contains(g.missing, m) {
				g.missing = append(g.missing, m)
			}
		}
		row := g.deps.to[start:]
		slices.Sort(row)
		row = slices.Compact(row)
		g.deps.to = g.deps.to[:start+len(row)]
		g.deps.off[v+1] = int32(len(g.deps.to))
		for _, w := range row {
			indegree[w+1]++
		}
	}
	slices.SortFunc(g.missing, compareMissing)

	// Reverse edges: visiting dependents in ascending order keeps rows sorted.
	g.rdeps = adjacency{off: indegree, to: make([]int32, len(g.deps.to))}
	for v := range n {
		g.rdeps.off[v+1] += g.rdeps.off[v]
	}
	fill := slices.Clone(g.rdeps.off[:n])
	for v := range int32(n) {
		for _, w := range g.deps.row(v) {
			g.rdeps.to[fill[w]] = v
			fill[w]++
		}
	}
}

// assignTiers runs Kahn's algorithm over the dependency edges. It returns
// the nodes it placed, in placement order; fewer than all means the rest lie
// on a cycle or depend on one, and g.tiers is then left unset.
func (g *Graph) assignTiers() []int32 {
	n := len(g.nodes)
	g.tier = make([]int32, n)
	pending := make([]int32, n)
	queue := make([]int32, 0, n)
	for v := range int32(n) {
		pending[v] = g.deps.off[v+1] - g.deps.off[v]
		if pending[v] == 0 {
			queue = append(queue, v)
		}
	}
	maxTier := int32(-1)
	for head := 0; head < len(queue); head++ {
		v := queue[head]
		maxTier = max(maxTier, g.tier[v])
		for _, d := range g.rdeps.row(v) {
			g.tier[d] = max(g.tier[d], g.tier[v]+1)
			if pending[d]--; pending[d] == 0 {
				queue = append(queue, d)
			}
		}
	}
	if len(queue) < n {
		return queue
	}
	// Bucket by tier; visiting vertices in ascending order sorts each tier.
	counts := make([]int32, maxTier+1)
	for _, t := range g.tier {
		counts[t]++
	}
	g.tiers = make([][]int32, maxTier+1)
	flat := make([]int32, n)
	at := int32(0)
	for t, c := range counts {
		g.tiers[t] = flat[at : at : at+c]
		at += c
	}
	for v := range int32(n) {
		t := g.tier[v]
		g.tiers[t] = append(g.tiers[t], v)
	}
	return queue
}

// cycleError lists the cycles among the nodes Kahn's algorithm left unplaced.
func (g *Graph) cycleError(placed []int32) *CycleError {
	stuck := make([]bool, len(g.nodes))
	for v := range stuck {
		stuck[v] = true
	}
	for _, v := range placed {
		stuck[v] = false
	}
	cycles, truncated := findCycles(g.deps, stuck, MaxReportedCycles)
	e := &CycleError{Truncated: truncated, Cycles: make([]Cycle, len(cycles))}
	for i, c := range cycles {
		path := make(Cycle, len(c)+1)
		for j, v := range c {
			path[j] = g.nodes[v].ID
		}
		path[len(c)] = path[0]
		e.Cycles[i] = path
	}
	return e
}
