package wait

import (
	"fmt"
	"testing"
	"time"

	"github.com/kubestandup/standup/internal/benchgraph"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

var (
	benchSource   = tiers.ID{Kind: "GitRepository", Namespace: "flux-system", Name: "bench"}
	benchRevision = "main@sha1:2222222222222222222222222222222222222222"
)

// benchObjects turns a generated graph into suspended, never-reconciled
// Kustomizations, each with the one Delay or ConfigMap it applies in its
// inventory (so the walker parses an inventory as it would live).
func benchObjects(g benchgraph.Graph) []flux.Object {
	objs := make([]flux.Object, 0, len(g.Nodes))
	for _, n := range g.Nodes {
		id := tiers.ID{Kind: flux.KindKustomization, Namespace: g.Namespace, Name: n.Name}
		o := flux.Object{
			Node: tiers.Node{ID: id}, SourceRef: benchSource, Suspended: true, Wait: true,
			Generation: 1, Timeout: 10 * time.Minute,
			Inventory: []string{g.Namespace + "_" + n.Name + "_" + benchgraph.DelayGroup + "_" + benchgraph.DelayKind},
		}
		for _, d := range n.DependsOn {
			o.DependsOn = append(o.DependsOn, tiers.Dependency{ID: tiers.ID{Kind: flux.KindKustomization, Namespace: g.Namespace, Name: d}})
		}
		objs = append(objs, o)
	}
	return objs
}

// benchHandled is o after kustomize-controller handled token and became Ready.
func benchHandled(o flux.Object, token string) flux.Object {
	o.Suspended = false
	o.RequestedAt, o.LastHandledReconcileAt = token, token
	o.ObservedGeneration, o.LastAppliedRevision = o.Generation, benchRevision
	o.Ready = &flux.Condition{Status: "True", Reason: "ReconciliationSucceeded", Message: "Applied revision: " + benchRevision}
	return o
}

// benchWalk runs one cold-start walk the way Loop drives the walker: the
// initial list in one batch (Loop drains it after the informers sync), then
// up to batch observations from the stream at a time (0: all that are
// queued), a Step after each batch, each reconcile action answered by a
// "handled and Ready" observation at the end of the stream, and Finished
// asked only when a Step decided nothing. It returns how many observations
// were fed.
func benchWalk(objs []flux.Object, batch int, opts Options) (int, error) {
	byID := make(map[tiers.ID]flux.Object, len(objs))
	for _, o := range objs {
		byID[o.ID] = o
	}
	now := time.Date(2026, 9, 5, 3, 0, 0, 0, time.UTC)
	w := NewWalker(opts, now)
	w.ObserveSource(benchSource, benchRevision)
	stream := append([]flux.Object(nil), objs...)
	fed := 0
	for {
		n := len(stream)
		if batch > 0 && fed > 0 {
			n = min(n, batch)
		}
		for _, o := range stream[:n] {
			w.ObserveObject(o)
		}
		stream, fed = stream[n:], fed+n
		now = now.Add(time.Millisecond)
		actions, _, _ := w.Step(now)
		if err := w.GraphError(); err != nil {
			return fed, err
		}
		for _, a := range actions {
			if a.Kind != ActionReconcile {
				return fed, fmt.Errorf("unexpected action %+v", a)
			}
			stream = append(stream, benchHandled(byID[a.Node], a.Token))
		}
		if len(actions) > 0 || len(stream) > 0 {
			continue
		}
		if !w.Finished() {
			return fed, fmt.Errorf("stream ended before the walk finished: %+v", w.Summary(now, false))
		}
		if s := w.Summary(now, false); s.Ready != len(objs) || s.Mutations != len(objs) {
			return fed, fmt.Errorf("summary %+v, want %d ready with one mutation each", s, len(objs))
		}
		return fed, nil
	}
}

// BenchmarkWalkerEvents drives the pure Walker through a cold start of
// 5,000 Kustomizations (50 tiers of 100, fan-in 2): every one observed
// suspended, then kicked tier by tier and observed handled and Ready.
// "batched" feeds all queued observations before each Step (a busy inbox);
// "per-event" Steps after every observation past the initial list (a quiet
// inbox, events trickling in), and runs at a quarter of the size too, to
// show how the cost per event grows with the graph. It reports ns/event
// over the 2N observations of a walk.
//
//	go test -run '^$' -bench BenchmarkWalkerEvents -benchtime 1x ./pkg/wait/
func BenchmarkWalkerEvents(b *testing.B) {
	for _, bc := range []struct {
		name         string
		depth, width int
		batch        int
		fed          bool // one node in a hundred named slow (Options.Slow)
	}{
		{name: "batched/n=5000", depth: 50, width: 100, batch: 0},
		{name: "per-event/n=1250", depth: 25, width: 50, batch: 1},
		{name: "per-event/n=5000", depth: 50, width: 100, batch: 1},
		{name: "per-event/fed/n=5000", depth: 50, width: 100, batch: 1, fed: true},
	} {
		objs := benchObjects(benchgraph.Generate(benchgraph.Spec{Depth: bc.depth, Width: bc.width, FanIn: 2, Seed: 1}))
		var opts Options
		if bc.fed {
			opts.Slow = everyHundredth(objs)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			events := 0
			for b.Loop() {
				n, err := benchWalk(objs, bc.batch, opts)
				if err != nil {
					b.Fatal(err)
				}
				events += n
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
			b.ReportMetric(float64(events)/float64(b.N), "events/walk")
		})
	}
}

// TestBenchWalkFinishes keeps the benchmark's driver honest on a small
// graph: the walk ends with every node Ready after one mutation each.
// A fed walk (Options.Slow) ends the same way.
func TestBenchWalkFinishes(t *testing.T) {
	g := benchgraph.Generate(benchgraph.Spec{Depth: 4, Width: 3, FanIn: 2, SkipEdges: 2, Seed: 2})
	objs := benchObjects(g)
	for _, opts := range []Options{{}, {Slow: everyHundredth(objs)}} {
		for _, batch := range []int{0, 1, 7} {
			fed, err := benchWalk(objs, batch, opts)
			if err != nil {
				t.Fatalf("batch %d, %d slow: %v", batch, len(opts.Slow), err)
			}
			if fed != 2*len(g.Nodes) {
				t.Fatalf("batch %d, %d slow: fed %d observations, want %d", batch, len(opts.Slow), fed, 2*len(g.Nodes))
			}
		}
	}
}

// everyHundredth names one node in a hundred slow, the first included.
func everyHundredth(objs []flux.Object) map[tiers.ID]string {
	slow := map[tiers.ID]string{}
	for i := 0; i < len(objs); i += 100 {
		slow[objs[i].ID] = "Delay/" + objs[i].ID.Name
	}
	return slow
}
