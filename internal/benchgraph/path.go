package benchgraph

import "time"

// HealthCheckPoll is kustomize-controller v1.9's health-check interval
// (ssa.WaitOptions{Interval: 5 * time.Second} in its checkHealth): it polls
// once right after the apply, then every 5 s.
const HealthCheckPoll = 5 * time.Second

// CriticalPath returns the longest dependsOn path through g, each node
// weighted by its entry in durations (absent entries weigh zero), and that
// path from its first node to its last. No walk can make every node Ready
// sooner. Ties go to the node that comes first in g.Nodes, so the path is
// deterministic. Dependencies outside g are ignored.
func (g Graph) CriticalPath(durations map[string]time.Duration) (time.Duration, []string) {
	index := make(map[string]int, len(g.Nodes))
	for i, n := range g.Nodes {
		index[n.Name] = i
	}
	finish := make([]time.Duration, len(g.Nodes))
	prev := make([]int, len(g.Nodes))
	best := -1
	// g.Nodes is in tier order, so every dependency comes first.
	for i, n := range g.Nodes {
		prev[i] = -1
		var start time.Duration
		for _, dep := range n.DependsOn {
			j, ok := index[dep]
			if ok && j < i && (prev[i] == -1 || finish[j] > start || (finish[j] == start && j < prev[i])) {
				start, prev[i] = finish[j], j
			}
		}
		finish[i] = start + durations[n.Name]
		if best == -1 || finish[i] > finish[best] {
			best = i
		}
	}
	if best == -1 {
		return 0, nil
	}
	var path []string
	for i := best; i != -1; i = prev[i] {
		path = append(path, g.Nodes[i].Name)
	}
	for l, r := 0, len(path)-1; l < r; l, r = l+1, r-1 {
		path[l], path[r] = path[r], path[l]
	}
	return finish[best], path
}

// TierBound returns what a tier-by-tier walk costs at best: the sum, over
// tiers, of the slowest node of each tier, since such a walk waits for a
// whole tier before it starts the next.
func (g Graph) TierBound(durations map[string]time.Duration) time.Duration {
	var slowest []time.Duration
	for _, n := range g.Nodes {
		for len(slowest) <= n.Tier {
			slowest = append(slowest, 0)
		}
		slowest[n.Tier] = max(slowest[n.Tier], durations[n.Name])
	}
	var total time.Duration
	for _, d := range slowest {
		total += d
	}
	return total
}

// ThroughputBound is the other physical limit of a walk on one controller:
// every node's reconcile occupies one of workers (kustomize-controller's
// --concurrent) for its duration, so no walk ends before the sum of the
// durations divided by workers, whatever the graph. A walk is bound by the
// larger of this and CriticalPath.
func (g Graph) ThroughputBound(durations map[string]time.Duration, workers int) time.Duration {
	var total time.Duration
	for _, n := range g.Nodes {
		total += durations[n.Name]
	}
	return total / time.Duration(max(workers, 1))
}
