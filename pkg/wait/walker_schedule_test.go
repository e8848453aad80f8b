package wait

import (
	"container/heap"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kubestandup/standup/internal/benchgraph"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// simEvent is an observation the simulated controller makes at a time.
type simEvent struct {
	at  time.Duration
	seq int
	obj flux.Object
}

type simEvents []simEvent

func (h simEvents) Len() int { return len(h) }
func (h simEvents) Less(i, j int) bool {
	return h[i].at < h[j].at || (h[i].at == h[j].at && h[i].seq < h[j].seq)
}
func (h simEvents) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *simEvents) Push(x any)   { *h = append(*h, x.(simEvent)) }
func (h *simEvents) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// simulateWalk walks objs against a model of kustomize-controller: a
// first-in, first-out work queue served by workers, each reconcile taking
// its node's duration, every status change reaching the walker latency
// later (a watch event), and the walker's requests reaching the queue at
// once. It returns when the last node is seen Ready.
func simulateWalk(t *testing.T, objs []flux.Object, durations map[tiers.ID]time.Duration, workers int, latency time.Duration, opts Options) (time.Duration, Summary) {
	t.Helper()
	start := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	byID := map[tiers.ID]flux.Object{}
	w := NewWalker(opts, start)
	w.ObserveSource(benchSource, benchRevision)
	for _, o := range objs {
		byID[o.ID] = o
		w.ObserveObject(o)
	}
	var (
		events simEvents
		seq    int
		queue  []tiers.ID
		tokens = map[tiers.ID]string{}
		busy   int
		now    time.Duration
	)
	push := func(at time.Duration, o flux.Object) {
		seq++
		heap.Push(&events, simEvent{at: at, seq: seq, obj: o})
	}
	// A worker's end is an event of the controller, not of the walker: a
	// zero-ID object marks it.
	serve := func() {
		for busy < workers && len(queue) > 0 {
			id := queue[0]
			queue = queue[1:]
			busy++
			taken := byID[id]
			taken.Suspended = false
			taken.Ready = &flux.Condition{Status: "Unknown", Reason: "Progressing", Message: "Reconciliation in progress"}
			push(now+latency, taken)
			end := now + durations[id]
			push(end, flux.Object{})
			push(end+latency, benchHandled(byID[id], tokens[id]))
		}
	}
	for {
		actions, _, _ := w.Step(start.Add(now))
		for _, a := range actions {
			if a.Kind != ActionReconcile {
				t.Fatalf("unexpected action %+v", a)
			}
			tokens[a.Node] = a.Token
			queue = append(queue, a.Node)
		}
		serve()
		if w.Finished() {
			return now, w.Summary(start.Add(now), false)
		}
		if events.Len() == 0 {
			t.Fatalf("the walk stalled at %s: %+v", now, w.Summary(start.Add(now), false))
		}
		// Everything due at the same time is observed before one Step.
		now = events[0].at
		for events.Len() > 0 && events[0].at == now {
			e := heap.Pop(&events).(simEvent)
			if e.obj.ID == (tiers.ID{}) {
				busy--
				continue
			}
			w.ObserveObject(e.obj)
		}
		serve()
	}
}

// TestWalkerFeedRidesTheWorkerPool drives the real Walker through issue
// 18's scale graph (15 tiers of 20, fan-in 2, 10 slow nodes) on a model
// of kustomize-controller's 4 workers, over many seeds, against the larger
// of the two bounds no walk can beat: the critical path and the work over
// the workers. Requested all at once (no checkout), the order of the
// controller's queue decides when a slow node starts, and one that starts
// late ends the walk alone, and an order drawn from the graph alone (every
// node named slow, so the longest chain of dependents goes first) does no
// better. Fed with the checkout's slow nodes (Options.Slow), the walk
// stays within a few percent of the bound on every seed.
func TestWalkerFeedRidesTheWorkerPool(t *testing.T) {
	const seeds, workers = 40, 4
	var fedSum, plainSum, fedMax, graphSum float64
	for seed := range int64(seeds) {
		g := benchgraph.Scale(seed + 1)
		g.Namespace = "flux-system"
		objs := benchObjects(g)
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		durations := map[tiers.ID]time.Duration{}
		byName := map[string]time.Duration{}
		slow, every := map[tiers.ID]string{}, map[tiers.ID]string{}
		for i, n := range g.Nodes {
			// A ConfigMap's reconcile: 0.45–0.75 s on the bench's VM; a
			// Delay's: its health polls, 5 s apart, and the apply.
			d := 450*time.Millisecond + time.Duration(rng.Int64N(int64(300*time.Millisecond)))
			if n.Duration > 0 {
				d = (n.Duration+benchgraph.HealthCheckPoll-1)/benchgraph.HealthCheckPoll*benchgraph.HealthCheckPoll + 800*time.Millisecond
				slow[objs[i].ID] = "Delay/" + n.Name
			}
			durations[objs[i].ID], byName[n.Name] = d, d
			every[objs[i].ID] = "every node"
		}
		cp, _ := g.CriticalPath(byName)
		bound := max(cp, g.ThroughputBound(byName, workers))
		latency := 20 * time.Millisecond
		plain, ps := simulateWalk(t, objs, durations, workers, latency, Options{})
		fed, summary := simulateWalk(t, objs, durations, workers, latency, Options{Slow: slow})
		// Every node named slow weighs the same: fed by the graph alone,
		// the longest chain of dependents first.
		graphOnly, _ := simulateWalk(t, objs, durations, workers, latency, Options{Slow: every})
		graphSum += graphOnly.Seconds() / bound.Seconds()
		// Held in standup's queue rather than the controller's, the
		// reconciles still waited for a worker: the summary says so.
		if l := summary.Limit; l == nil || l.Kind != LimitWorkers || l.Workers != workers {
			t.Fatalf("seed %d: the fed walk's limit is %+v, want the worker pool of %d", seed+1, l, workers)
		}
		if summary.Limit.Waited < ps.Limit.Waited/2 {
			t.Fatalf("seed %d: %d reconciles of the fed walk waited for a worker, against %d requested all at once: a node held ready waits too",
				seed+1, summary.Limit.Waited, ps.Limit.Waited)
		}
		p, f := plain.Seconds()/bound.Seconds(), fed.Seconds()/bound.Seconds()
		plainSum, fedSum, fedMax = plainSum+p, fedSum+f, max(fedMax, f)
		if f > 1.05 {
			t.Errorf("seed %d: the fed walk took %.3f× the larger bound (%s against %s), want ≤ 1.05", seed+1, f, fed, bound)
		}
	}
	t.Logf("over %d seeds, walk / larger bound: all at once %.3f on average; fed by the graph alone %.3f; fed with the slow nodes %.3f on average, %.3f at most",
		seeds, plainSum/seeds, graphSum/seeds, fedSum/seeds, fedMax)
	if fedSum/seeds > 1.02 {
		t.Errorf("the fed walk took %.3f× the larger bound on average, want ≤ 1.02", fedSum/seeds)
	}
	if fedSum >= graphSum {
		t.Errorf("knowing the slow nodes did not help: %.3f× on average, %.3f× by the graph alone", fedSum/seeds, graphSum/seeds)
	}
	if fedSum >= plainSum {
		t.Errorf("feeding did not help: %.3f× on average fed, %.3f× all at once", fedSum/seeds, plainSum/seeds)
	}
}
