package wait

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// timing is a NodeTiming at seconds from t0 (started < 0: never seen under way).
func timing(name string, requested, started, ready float64, deps ...string) NodeTiming {
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	n := NodeTiming{ID: ksID(name), Requested: at(requested), Ready: at(ready)}
	if started >= 0 {
		n.Started = at(started)
	}
	for _, d := range deps {
		n.DependsOn = append(n.DependsOn, ksID(d))
	}
	return n
}

func ids(names ...string) []tiers.ID {
	var out []tiers.ID
	for _, n := range names {
		out = append(out, ksID(n))
	}
	return out
}

func seconds(s float64) Duration { return Duration(time.Duration(s * float64(time.Second))) }

// pool is n independent reconciles of each seconds, all asked for at 0, on
// a controller with workers workers taking them up in order.
func pool(n, workers int, each float64) []NodeTiming {
	var out []NodeTiming
	for i := range n {
		start := float64(i/workers) * each
		out = append(out, timing(string(rune('a'+i)), 0, start, start+each))
	}
	return out
}

func TestAnalyzeLimit(t *testing.T) {
	glitch := pool(8, 4, 2)
	// The watch saw e taken up 0.1 s before d's end: five at once, briefly.
	glitch[4].Started = glitch[4].Started.Add(-100 * time.Millisecond)
	tests := []struct {
		name  string
		nodes []NodeTiming
		want  *Limit
	}{
		{name: "nothing reconciled", nodes: []NodeTiming{{ID: ksID("a"), Requested: t0}}, want: nil},
		{
			name:  "a chain, never a wait",
			nodes: []NodeTiming{timing("a", 0, 0.1, 2), timing("b", 2, 2.1, 5, "a"), timing("c", 5, 5.1, 6, "b")},
			want: &Limit{Kind: LimitChain, Reconciles: 3, CriticalPath: seconds(5.7), Chain: ids("a", "b", "c"),
				Work: seconds(5.7), Workers: 1, ThroughputBound: seconds(5.7), MeanWait: seconds(0.1), MaxWait: seconds(0.1)},
		},
		{
			name:  "eight reconciles on four workers",
			nodes: pool(8, 4, 2),
			want: &Limit{Kind: LimitWorkers, Reconciles: 8, CriticalPath: seconds(2), Chain: ids("a"),
				Work: seconds(16), Workers: 4, ThroughputBound: seconds(4), Waited: 4, MeanWait: seconds(1), MaxWait: seconds(2),
				Concurrent: 8, Saving: seconds(2)},
		},
		{
			name:  "a glimpse of five at once does not make five workers",
			nodes: glitch,
			want: &Limit{Kind: LimitWorkers, Reconciles: 8, CriticalPath: seconds(2.1), Chain: ids("e"),
				Work: seconds(16.1), Workers: 4, ThroughputBound: Duration(time.Duration(seconds(16.1)) / 4), Waited: 4,
				MeanWait: Duration(time.Duration(seconds(7.9)) / 8), MaxWait: seconds(2), Concurrent: 8,
				Saving: Duration(time.Duration(seconds(16.1))/4) - seconds(2.1)},
		},
		{
			name: "the pool was full, but the chain was longer",
			nodes: append(pool(6, 3, 1.5),
				timing("slow", 0, 0, 10), timing("next", 10, 10, 12, "slow")),
			want: &Limit{Kind: LimitChain, Reconciles: 8, CriticalPath: seconds(12), Chain: ids("slow", "next"),
				Work: seconds(21), Workers: 4, ThroughputBound: seconds(5.25), Waited: 3, MeanWait: seconds(0.5625), MaxWait: seconds(1.5)},
		},
		{
			name:  "a reconcile too quick to be seen under way counts with no work",
			nodes: []NodeTiming{timing("a", 0, -1, 0.5), timing("b", 0.5, 0.6, 1.5, "a")},
			want: &Limit{Kind: LimitChain, Reconciles: 2, CriticalPath: seconds(0.9), Chain: ids("a", "b"),
				Work: seconds(0.9), Workers: 1, ThroughputBound: seconds(0.9), MeanWait: seconds(0.3), MaxWait: seconds(0.5)},
		},
		{
			name:  "a node not Ready is left out, and so is its edge",
			nodes: []NodeTiming{timing("a", 0, 0, 1), {ID: ksID("stuck"), Requested: t0}, timing("c", 1, 1, 3, "stuck", "a")},
			want: &Limit{Kind: LimitChain, Reconciles: 2, CriticalPath: seconds(3), Chain: ids("a", "c"),
				Work: seconds(3), Workers: 1, ThroughputBound: seconds(3)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AnalyzeLimit(tt.nodes)
			if (got == nil) != (tt.want == nil) {
				t.Fatalf("AnalyzeLimit = %+v, want %+v", got, tt.want)
			}
			if got == nil {
				return
			}
			if !slices.Equal(got.Chain, tt.want.Chain) {
				t.Errorf("Chain = %v, want %v", got.Chain, tt.want.Chain)
			}
			g, w := *got, *tt.want
			g.Chain, w.Chain = nil, nil
			if !reflect.DeepEqual(g, w) {
				t.Errorf("AnalyzeLimit =\n %+v, want\n %+v", g, w)
			}
		})
	}
}

// TestWalkerTimesItsReconciles: the walker times each reconcile from what
// it observes (its request, kustomize-controller's Progressing status, Ready)
// and the summary names the limit from those timings.
func TestWalkerTimesItsReconciles(t *testing.T) {
	a, b, done := node("a", true), node("b", true, "a"), node("done", false)
	done = readyAt(done, "")
	w := newTestWalker(Options{}, a, b, done)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	underWay := func(o flux.Object) flux.Object {
		o.Suspended = false
		o.Ready = &flux.Condition{Status: "Unknown", Reason: "Progressing", Message: "Reconciliation in progress"}
		return o
	}
	act, _, _ := w.Step(at(0))
	kickA := only(t, act, ActionReconcile, "a")
	w.ObserveObject(underWay(a))
	w.Step(at(0.5))
	w.ObserveObject(readyAt(a, kickA.Token))
	act, _, _ = w.Step(at(2.5))
	kickB := only(t, act, ActionReconcile, "b")
	// b's reconcile is over before the walker steps: Progressing and Ready
	// in one batch, so it is seen under way and Ready at the same Step.
	w.ObserveObject(underWay(b))
	w.ObserveObject(readyAt(b, kickB.Token))
	w.Step(at(4))
	s := w.Summary(at(4), false)
	if s.Limit == nil {
		t.Fatalf("Summary().Limit = nil after two reconciles")
	}
	want := Limit{Kind: LimitChain, Reconciles: 2, CriticalPath: seconds(2), Work: seconds(2), Workers: 1,
		ThroughputBound: seconds(2), Waited: 1, MeanWait: seconds(1), MaxWait: seconds(1.5)}
	got := *s.Limit
	if !slices.Equal(got.Chain, ids("a", "b")) {
		t.Errorf("Chain = %v, want a, b (done was never asked for)", got.Chain)
	}
	got.Chain = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Limit =\n %+v, want\n %+v", got, want)
	}
}
