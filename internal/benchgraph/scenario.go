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

// The scale scenario's shape (issue 18): 15 tiers of 20, fan-in 2, ten slow
// nodes of 5 to 15 s, each applying a Delay; the 290 others apply one
// ConfigMap each.
const (
	ScaleDepth, ScaleWidth, ScaleFanIn = 15, 20, 2
	ScaleSlow                          = 10
	ScaleMinSeconds, ScaleMaxSeconds   = 5, 15
	// ScaleWorkers is kustomize-controller's default --concurrent, the
	// worker pool the scenario saturates.
	ScaleWorkers = 4
	// ScaleNominalReconcile is what Scale assumes one ConfigMap reconcile
	// (wait: true) takes when it picks the slow nodes' places: about what
	// kustomize-controller v1.9.6 logs for one on the development VM. The
	// benchmark reports the durations it measures, not this.
	ScaleNominalReconcile = 400 * time.Millisecond
	// ScaleMinSlowOnPath is how many slow nodes, in as many tiers, the
	// critical path must cross.
	ScaleMinSlowOnPath = 2
	// ScaleMaxPathShare is how much of the throughput bound the critical
	// path may take, at the nominal durations: the pool is clearly the
	// limit, the regime the issue describes for graphs of this size.
	ScaleMaxPathShare = 0.75
)

// Scale is the 300-node scenario: ScaleDepth tiers of ScaleWidth,
// each node on ScaleFanIn seeded nodes of the tier above, ScaleSlow slow
// nodes of ScaleMinSeconds to ScaleMaxSeconds in as many tiers. The slow
// nodes' places are drawn from seed, in order, until the graph has the
// shape the issue asks for, at kustomize-controller's 5 s health-check poll
// and ScaleNominalReconcile per ConfigMap:
//   - the critical path crosses tiers: it runs through at least
//     ScaleMinSlowOnPath slow nodes, and a tier-by-tier walk costs at least
//     UnevenMinRatio times it;
//   - the worker pool, not the chain, is the limit: the critical path takes
//     at most ScaleMaxPathShare of the throughput bound with ScaleWorkers
//     workers.
//
// Graph.Spec records the seed used, so Generate(g.Spec) is g.
func Scale(seed int64) Graph {
	return ScaleOf(ScaleDepth, ScaleWidth, ScaleSlow, seed)
}

// ScaleOf is Scale's graph at another size (depth tiers of width, slow
// nodes), for trying the benchmark out on a small one. A size too small
// for the shape gets the last candidate drawn.
func ScaleOf(depth, width, slow int, seed int64) Graph {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5ca1e))
	spec := Spec{Depth: depth, Width: width, FanIn: ScaleFanIn, Slow: slow,
		MinSeconds: ScaleMinSeconds, MaxSeconds: ScaleMaxSeconds, Prefix: "scale"}
	var g Graph
	for range 1000 {
		spec.Seed = rng.Int64()
		g = Generate(spec)
		if ScaleShaped(g) {
			break
		}
	}
	return g
}

// ScaleShaped reports whether g has the shape Scale promises.
func ScaleShaped(g Graph) bool {
	d := NominalDurations(g, HealthCheckPoll, ScaleNominalReconcile)
	cp, path := g.CriticalPath(d)
	slowOnPath := 0
	for _, name := range path {
		if d[name] > ScaleNominalReconcile {
			slowOnPath++
		}
	}
	return slowOnPath >= ScaleMinSlowOnPath && CrossesTiers(g, HealthCheckPoll, UnevenMinRatio) &&
		float64(cp) <= ScaleMaxPathShare*float64(g.ThroughputBound(d, ScaleWorkers))
}

// NominalDurations is Graph.Durations(poll) with reconcile added to every
// node: what a reconcile costs besides the wait its Delay imposes.
func NominalDurations(g Graph, poll, reconcile time.Duration) map[string]time.Duration {
	d := g.Durations(poll)
	for name := range d {
		d[name] += reconcile
	}
	return d
}
