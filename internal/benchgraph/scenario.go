package benchgraph

import (
	"math/rand/v2"
	"time"
)

// Uniform is the uniform scenario: 5 tiers of 2, every node
// depending on both nodes of the tier above, no durations (ConfigMaps).
func Uniform() Graph {
	return Generate(Spec{Depth: 5, Width: 2, FanIn: 2, Prefix: "uniform"})
}

// UnevenMinRatio is how much slower than the critical path a tier-by-tier
// walk of an Uneven graph must be, both with the generated durations and
// with them rounded up to HealthCheckPoll.
const UnevenMinRatio = 1.5

// Uneven is the uneven scenario: 6 tiers of 3, each node depending
// on one node of the tier above plus 3 skip edges, with seeded durations of
// 1 to 10 s, where the slowest path crosses tiers: the slowest nodes of the
// tiers do not lie on one path, so a tier-by-tier walk takes at least
// UnevenMinRatio times the critical path.
//
// Uniform durations do not always give that shape, so Uneven draws
// candidate seeds from seed, in order, and returns the first graph that has
// it; Graph.Spec records the seed used. The same seed always yields the
// same graph.
func Uneven(seed int64) Graph {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x0e7e))
	spec := Spec{Depth: 6, Width: 3, FanIn: 1, SkipEdges: 3, MinSeconds: 1, MaxSeconds: 10, Prefix: "uneven"}
	var g Graph
	for range 1000 {
		spec.Seed = rng.Int64()
		g = Generate(spec)
		if CrossesTiers(g, 0, UnevenMinRatio) && CrossesTiers(g, HealthCheckPoll, UnevenMinRatio) {
			break
		}
	}
	return g
}

// CrossesTiers reports whether g's tier-by-tier cost is at least ratio times
// its critical path, with durations rounded up to poll (see Graph.Durations).
func CrossesTiers(g Graph, poll time.Duration, ratio float64) bool {
	d := g.Durations(poll)
	cp, _ := g.CriticalPath(d)
	return cp > 0 && float64(g.TierBound(d)) >= ratio*float64(cp)
}
