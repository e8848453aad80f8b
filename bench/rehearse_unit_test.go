package bench

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/kubestandup/standup/internal/benchgraph"
	"github.com/kubestandup/standup/pkg/rehearse"
)

// TestGraphRehearsalPredictsAChain: a chain of three with measured
// durations of 1, 2 and 3 s predicts standup at their sum plus two
// reactions, Flux alone at two requeues plus the last reconcile, Flux tuned
// likewise at 5 s, exactly.
func TestGraphRehearsalPredictsAChain(t *testing.T) {
	g := benchgraph.Generate(benchgraph.Spec{Depth: 3, Width: 1, FanIn: 1, Prefix: "c"})
	durations := map[string]time.Duration{}
	for i, n := range g.Nodes {
		durations[n.Name] = time.Duration(i+1) * time.Second
	}
	m := rehearse.DefaultModel()
	m.DependencyCheck, m.Reaction = 0, 100*time.Millisecond
	pred := Predict(GraphRehearsal(g, durations), m)
	for c, want := range map[string]time.Duration{Standup: 6200 * time.Millisecond, FluxAlone: 63 * time.Second, FluxTuned: 13 * time.Second} {
		if r := pred[c]; !r.Converged || r.AllReady != want {
			t.Errorf("%s: all Ready at %s (converged %v), want %s", c, r.AllReady, r.Converged, want)
		}
	}
}

func TestValidationRows(t *testing.T) {
	s := func(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }
	tests := []struct {
		name string
		row  ValidationRow
		err  float64
		met  bool
	}{
		{"within", ValidationRow{Predicted: s(110), Measured: s(100), Converges: true, Converged: true, Limit: 0.15}, 0.10, true},
		{"beyond", ValidationRow{Predicted: s(80), Measured: s(100), Converges: true, Converged: true, Limit: 0.15}, 0.20, false},
		{"both never", ValidationRow{Predicted: s(7200), Measured: s(180), Limit: 0.15}, math.NaN(), true},
		{"predicted never, converged", ValidationRow{Measured: s(100), Converged: true, Limit: 0.15}, math.NaN(), false},
		{"predicted converges, capped", ValidationRow{Predicted: s(10), Converges: true, Measured: s(180), Limit: 0.15}, math.NaN(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.row.Error()
			if (math.IsNaN(tt.err) != math.IsNaN(e)) || (!math.IsNaN(e) && math.Abs(e-tt.err) > 1e-9) {
				t.Errorf("Error() = %v, want %v", e, tt.err)
			}
			if tt.row.Met() != tt.met {
				t.Errorf("Met() = %v, want %v", tt.row.Met(), tt.met)
			}
		})
	}
	md := Markdown([]Validation{{Scenario: "deadlock", Calibration: "c", Rows: []ValidationRow{tests[2].row}}})
	if !strings.Contains(md, "| deadlock |  | never | ≥ 180.0 (cap) | – | both never | yes |") {
		t.Errorf("markdown:\n%s", md)
	}
}

func TestReaction(t *testing.T) {
	if got := Reaction(2*time.Second, 1500*time.Millisecond, 5); got != 100*time.Millisecond {
		t.Errorf("Reaction = %s, want 100ms", got)
	}
	if got := Reaction(time.Second, 2*time.Second, 5); got != 0 {
		t.Errorf("a walk faster than its bound: Reaction = %s, want 0", got)
	}
	if got := Reaction(2*time.Second, time.Second, 0); got != 0 {
		t.Errorf("no hops: Reaction = %s, want 0", got)
	}
}

// TestFitDependencyCheck: fitted on measured runs of Flux alone and Flux
// tuned of a fan-in graph, the dependency check makes the rehearsals of
// both match the measurements; a run where neither converged leaves the
// model as it is.
func TestFitDependencyCheck(t *testing.T) {
	g := benchgraph.Generate(benchgraph.Spec{Depth: 4, Width: 8, FanIn: 8, Prefix: "f"})
	durations := map[string]time.Duration{}
	for _, n := range g.Nodes {
		durations[n.Name] = 500 * time.Millisecond
	}
	s := GraphRehearsal(g, durations)
	m := rehearse.DefaultModel()
	m.DependencyCheck = 300 * time.Millisecond
	pred := Predict(s, m)
	alone := Measurement{Elapsed: pred[FluxAlone].AllReady, Converged: true}
	tuned := Measurement{Elapsed: pred[FluxTuned].AllReady, Converged: true}
	m.DependencyCheck = 0
	fitted := Predict(s, FitDependencyCheck(s, m, alone, tuned))
	for c, want := range map[string]time.Duration{FluxAlone: alone.Elapsed, FluxTuned: tuned.Elapsed} {
		if got := fitted[c].AllReady; math.Abs(got.Seconds()-want.Seconds()) > 0.05*want.Seconds() {
			t.Errorf("%s: fitted dependency check predicts %s, want %s", c, got, want)
		}
	}
	if same := FitDependencyCheck(s, m, Measurement{Elapsed: alone.Elapsed}, Measurement{Elapsed: tuned.Elapsed}); same.DependencyCheck != 0 {
		t.Errorf("runs that did not converge fitted %s", same.DependencyCheck)
	}
}

// TestFitDependencyCheckIsNotFooledByAStagger: the uniform scenario's
// calibration run at 8c5daf1 (the reconcile durations of its standup run,
// Flux alone 121.39 s, Flux tuned 21.17 s). A 2 s check staggers the
// requeues so that Flux tuned rehearses shorter than at 0 s, and a
// bisection on Flux tuned alone walked up to it: it then predicted Flux
// alone at 35.9 s, a requeue round per tier short. Fitted on both, the
// check predicts each within 5 %.
func TestFitDependencyCheckIsNotFooledByAStagger(t *testing.T) {
	g := benchgraph.Uniform()
	ms := []int{1028, 1071, 557, 643, 477, 512, 565, 715, 910, 665}
	durations := map[string]time.Duration{}
	for i, n := range g.Nodes {
		durations[n.Name] = time.Duration(ms[i]) * time.Millisecond
	}
	s := GraphRehearsal(g, durations)
	alone := Measurement{Elapsed: 121390 * time.Millisecond, Converged: true}
	tuned := Measurement{Elapsed: 21170 * time.Millisecond, Converged: true}
	m := FitDependencyCheck(s, rehearse.DefaultModel(), alone, tuned)
	pred := Predict(s, m)
	for c, want := range map[string]time.Duration{FluxAlone: alone.Elapsed, FluxTuned: tuned.Elapsed} {
		if got := pred[c].AllReady; math.Abs(got.Seconds()-want.Seconds()) > 0.05*want.Seconds() {
			t.Errorf("%s: the check fitted at %s predicts %s, want %s", c, m.DependencyCheck, got, want)
		}
	}
}

// TestDrift: the validated run's durations against the calibration's,
// over the nodes both logged.
func TestDrift(t *testing.T) {
	sec := time.Second
	tests := []struct {
		name     string
		cal, val map[string]time.Duration
		want     float64
	}{
		{"same", map[string]time.Duration{"a": sec, "b": 3 * sec}, map[string]time.Duration{"a": 3 * sec, "b": sec}, 0},
		{"a third slower", map[string]time.Duration{"a": 3 * sec}, map[string]time.Duration{"a": 4 * sec}, 1.0 / 3},
		{"only shared nodes", map[string]time.Duration{"a": 2 * sec, "b": sec}, map[string]time.Duration{"a": sec, "c": 9 * sec}, -0.5},
	}
	for _, tt := range tests {
		if got := Drift(tt.cal, tt.val); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: drift %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := Drift(map[string]time.Duration{"a": sec}, map[string]time.Duration{"b": sec}); !math.IsNaN(got) {
		t.Errorf("no shared node: drift %v, want NaN", got)
	}
}

// TestInSampleError: the model's own error, when the run calibrated
// itself; none when it was not computed or did not converge.
func TestInSampleError(t *testing.T) {
	r := ValidationRow{Measured: 100 * time.Second, Converged: true, InSample: 90 * time.Second}
	if got := r.InSampleError(); math.Abs(got-0.1) > 1e-9 {
		t.Errorf("in-sample error %v, want 0.1", got)
	}
	for _, r := range []ValidationRow{{Measured: time.Second, Converged: true}, {Measured: time.Second, InSample: time.Second}} {
		if got := r.InSampleError(); !math.IsNaN(got) {
			t.Errorf("%+v: in-sample error %v, want NaN", r, got)
		}
	}
}
