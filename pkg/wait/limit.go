package wait

import (
	"slices"
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
)

// LimitKind names what held a walk back.
type LimitKind string

const (
	// LimitChain: the longest dependsOn chain of reconciles. Only a
	// shorter graph, or faster Kustomizations on it, ends the walk sooner.
	LimitChain LimitKind = "dependency-chain"
	// LimitWorkers: kustomize-controller's worker pool (--concurrent).
	// Reconciles waited for a worker, and the work divided by the workers
	// exceeds the longest chain.
	LimitWorkers LimitKind = "worker-pool"
)

// waitedLongerThan is how long a request may sit before kustomize-controller
// takes it up and still count as not waiting for a worker: the watch, the
// patch and the controller's own queue cost a few hundred milliseconds on
// an idle controller.
const waitedLongerThan = time.Second

// NodeTiming is what a walk saw of one reconcile it asked for.
type NodeTiming struct {
	ID tiers.ID
	// DependsOn lists the node's dependencies; those without a timing are
	// ignored.
	DependsOn []tiers.ID
	// Requested is standup's first reconcile request, or the moment a fed
	// walk first held the node ready, when earlier; Started the first
	// time kustomize-controller was seen working on the node after it
	// (Ready Unknown, Progressing), zero when the reconcile was too quick to
	// be seen under way; Ready when it was seen Ready.
	Requested, Started, Ready time.Time
}

// Limit tells an operator what held a walk back: the dependency chain or
// the controller's worker pool, with the figures that show it. It is
// computed from what the walk saw, so its durations are as the watch saw
// them, within a few tens of milliseconds of the controller's.
type Limit struct {
	// Kind is the limit.
	Kind LimitKind `json:"kind"`
	// Reconciles counts the reconciles standup asked for and saw end Ready.
	Reconciles int `json:"reconciles"`
	// CriticalPath is the longest dependsOn chain, each node weighted by its
	// reconcile (taken up to Ready), and Chain that chain, first to last.
	CriticalPath Duration   `json:"criticalPath"`
	Chain        []tiers.ID `json:"chain"`
	// Work is the sum of the reconciles; Workers how many
	// kustomize-controller ran at once while requests waited (its
	// --concurrent, when the pool was full), else the most seen at once;
	// ThroughputBound is Work over Workers.
	Work            Duration `json:"work"`
	Workers         int      `json:"workers"`
	ThroughputBound Duration `json:"throughputBound"`
	// Waited counts the requests that waited more than a second for the
	// controller to take them up; MeanWait and MaxWait are the wait of all.
	Waited   int      `json:"waited"`
	MeanWait Duration `json:"meanWait"`
	MaxWait  Duration `json:"maxWait"`
	// Concurrent is twice Workers, and Saving roughly what a
	// kustomize-controller with that --concurrent (and the CPU and disk for it)
	// would have saved: the larger bound now less the larger bound then.
	// Both are absent when the chain is the limit.
	Concurrent int      `json:"concurrent,omitempty"`
	Saving     Duration `json:"saving,omitempty"`
}

// AnalyzeLimit finds what held a walk back from the timings of its
// reconciles (those not seen Ready are left out); nil when there are none.
// It is pure: the walker feeds it what it saw.
func AnalyzeLimit(nodes []NodeTiming) *Limit {
	var timed []NodeTiming
	for _, n := range nodes {
		if n.Requested.IsZero() || n.Ready.IsZero() {
			continue
		}
		if n.Started.IsZero() || n.Started.After(n.Ready) {
			n.Started = n.Ready
		}
		if n.Started.Before(n.Requested) {
			n.Started = n.Requested // already under way when asked
		}
		timed = append(timed, n)
	}
	if len(timed) == 0 {
		return nil
	}
	l := &Limit{Reconciles: len(timed)}
	var waits time.Duration
	for _, n := range timed {
		l.Work += Duration(n.Ready.Sub(n.Started))
		wait := n.Started.Sub(n.Requested)
		waits += wait
		l.MaxWait = max(l.MaxWait, Duration(wait))
		if wait > waitedLongerThan {
			l.Waited++
		}
	}
	l.MeanWait = Duration(waits / time.Duration(len(timed)))
	cp, chain := criticalChain(timed)
	l.CriticalPath, l.Chain = Duration(cp), chain
	workers, saturated := poolSize(timed)
	l.Workers = workers
	l.ThroughputBound = Duration(time.Duration(l.Work) / time.Duration(workers))
	l.Kind = LimitChain
	if saturated && l.ThroughputBound > l.CriticalPath {
		l.Kind = LimitWorkers
		l.Concurrent = 2 * workers
		later := max(l.CriticalPath, Duration(time.Duration(l.Work)/time.Duration(l.Concurrent)))
		l.Saving = l.ThroughputBound - later
	}
	return l
}

// criticalChain is the longest dependsOn chain of nodes weighted by their
// reconciles (Started to Ready), and the chain; ties go to the chain of
// more nodes (a reconcile too quick to be timed still extends it), then to
// the node listed first.
func criticalChain(nodes []NodeTiming) (time.Duration, []tiers.ID) {
	index := make(map[tiers.ID]int, len(nodes))
	for i, n := range nodes {
		index[n.ID] = i
	}
	finish := make([]time.Duration, len(nodes))
	prev, length := make([]int, len(nodes)), make([]int, len(nodes))
	state := make([]uint8, len(nodes)) // 0 new, 1 on the stack, 2 done
	var visit func(i int)
	visit = func(i int) {
		state[i], prev[i] = 1, -1
		var start time.Duration
		for _, d := range nodes[i].DependsOn {
			j, ok := index[d]
			if !ok || state[j] == 1 { // outside the walk, or a cycle the graph already refused
				continue
			}
			if state[j] == 0 {
				visit(j)
			}
			if prev[i] == -1 || finish[j] > start || (finish[j] == start && length[j] > length[prev[i]]) {
				start, prev[i] = finish[j], j
			}
		}
		finish[i] = start + nodes[i].Ready.Sub(nodes[i].Started)
		length[i] = 1
		if prev[i] != -1 {
			length[i] += length[prev[i]]
		}
		state[i] = 2
	}
	best := 0
	for i := range nodes {
		if state[i] == 0 {
			visit(i)
		}
		if finish[i] > finish[best] || (finish[i] == finish[best] && length[i] > length[best]) {
			best = i
		}
	}
	var chain []tiers.ID
	for i := best; i != -1; i = prev[i] {
		chain = append(chain, nodes[i].ID)
	}
	slices.Reverse(chain)
	return finish[best], chain
}

// poolSize infers kustomize-controller's worker pool from the reconciles:
// the number it ran at once for the longest time while some request waited
// more than a second for it (saturated), else the most it ran at once.
func poolSize(nodes []NodeTiming) (workers int, saturated bool) {
	type edge struct {
		at      time.Time
		running int // +1 a reconcile starts, -1 it ends
		waiting int // +1 a request starts waiting too long, -1 it is taken up
	}
	var edges []edge
	for _, n := range nodes {
		edges = append(edges, edge{at: n.Started, running: 1}, edge{at: n.Ready, running: -1})
		if late := n.Requested.Add(waitedLongerThan); n.Started.After(late) {
			edges = append(edges, edge{at: late, waiting: 1}, edge{at: n.Started, waiting: -1})
		}
	}
	// Ends before starts at the same instant: a worker that finishes one
	// reconcile and takes up the next is one worker.
	slices.SortStableFunc(edges, func(a, b edge) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return (a.running + a.waiting) - (b.running + b.waiting)
	})
	held := map[int]time.Duration{}
	running, waiting, most := 0, 0, 1
	for i, e := range edges {
		running += e.running
		waiting += e.waiting
		most = max(most, running)
		if i+1 < len(edges) && waiting > 0 && running > 0 {
			held[running] += edges[i+1].at.Sub(e.at)
		}
	}
	for n, d := range held {
		if d > 0 && (!saturated || d > held[workers] || (d == held[workers] && n > workers)) {
			workers, saturated = n, true
		}
	}
	if !saturated {
		return most, false
	}
	return workers, true
}
