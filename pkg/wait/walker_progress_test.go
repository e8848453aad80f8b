package wait

import (
	"strings"
	"testing"
	"time"

	"github.com/kubestandup/standup/pkg/flux"
)

// runningHealthChecks is a's status while kustomize-controller runs the
// health checks of a reconcile it took up (spec.wait): Ready Unknown
// "Reconciliation in progress" and Reconciling saying what it waits for,
// lastHandledReconcileAt still the old request's until the reconcile ends.
func runningHealthChecks(o flux.Object, timeout string) flux.Object {
	o.Suspended = false
	o.Ready = &flux.Condition{Status: "Unknown", Reason: "Progressing", Message: "Reconciliation in progress"}
	o.Reconciling = &flux.Condition{Status: "True", Reason: "Progressing",
		Message: "Running health checks for revision " + walkRev + " with a timeout of " + timeout}
	return o
}

// lastNodeEvent returns the last node event of a's in evs.
func lastNodeEvent(t *testing.T, evs []Event, name string) Event {
	t.Helper()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type == EventNode && evs[i].Node != nil && *evs[i].Node == ksID(name) {
			return evs[i]
		}
	}
	t.Fatalf("no node event for %s in %+v", name, evs)
	return Event{}
}

// Issue 31: a Kustomization with wait: true whose Deployment never becomes
// ready. kustomize-controller took the request up and runs its health
// checks for spec.timeout; the node's event says so in the controller's
// words, the request is never called unacknowledged, and it is not asked
// again while the health checks may still run.
func TestWalkerShowsTheControllersProgressWhileItRunsHealthChecks(t *testing.T) {
	a := node("a", false)
	a.Timeout = 10 * time.Minute
	w := newTestWalker(Options{AskAgainAfter: 30 * time.Second}, a)
	act, _, _ := w.Step(t0)
	only(t, act, ActionReconcile, "a")

	w.ObserveObject(runningHealthChecks(a, "2m0s"))
	act, evs, _ := w.Step(t0.Add(time.Second))
	none(t, act)
	e := lastNodeEvent(t, evs, "a")
	if e.Phase != PhaseReconciling || e.Reason != "Progressing" || !strings.HasPrefix(e.Message, "Running health checks for revision") {
		t.Fatalf("event = %+v, want the controller's Reconciling message", e)
	}
	for _, at := range []time.Duration{31 * time.Second, time.Minute, 2*time.Minute + 30*time.Second} {
		act, evs, _ = w.Step(t0.Add(at))
		none(t, act)
		for _, e := range evs {
			if strings.Contains(e.Message, "acknowledged") {
				t.Fatalf("at %s: %q: the controller took the request up", at, e.Message)
			}
		}
	}
	// A controller that never wrote the end of that reconcile (its status
	// write lost) is asked again once the health checks must have ended,
	// in words that say it took the request up.
	act, evs, _ = w.Step(t0.Add(2*time.Minute + 32*time.Second))
	only(t, act, ActionReconcile, "a")
	e = lastNodeEvent(t, evs, "a")
	if e.Reason != "AskedAgain" || strings.Contains(e.Message, "not acknowledged") || !strings.Contains(e.Message, "took the request up") {
		t.Fatalf("ask-again event = %+v", e)
	}
}

// The timeout of a node that the controller took up carries the
// controller's last words, not standup's.
func TestWalkerTimeoutSaysWhatTheControllerWasDoing(t *testing.T) {
	a := node("a", false)
	a.Timeout = 2 * time.Minute
	w := newTestWalker(Options{AskAgainAfter: 30 * time.Second}, a)
	act, _, _ := w.Step(t0)
	only(t, act, ActionReconcile, "a")
	w.ObserveObject(runningHealthChecks(a, "2m0s"))
	w.Step(t0.Add(time.Second))
	_, evs, _ := w.Step(t0.Add(2*time.Minute + time.Second))
	e := lastNodeEvent(t, evs, "a")
	if e.Phase != PhaseFailed || e.Reason != "Timeout" || !strings.Contains(e.Message, "Running health checks") || strings.Contains(e.Message, "acknowledged") {
		t.Fatalf("timeout event = %+v", e)
	}
}

// A request the controller has not touched is still unacknowledged, and
// said so, once it has been quiet for AskAgainAfter.
func TestWalkerSaysUnacknowledgedOnlyOfUntouchedRequests(t *testing.T) {
	a := node("a", false)
	a.Timeout = 10 * time.Minute
	w := newTestWalker(Options{AskAgainAfter: 30 * time.Second}, a)
	act, _, _ := w.Step(t0)
	only(t, act, ActionReconcile, "a")
	act, evs, _ := w.Step(t0.Add(31 * time.Second))
	only(t, act, ActionReconcile, "a")
	if e := lastNodeEvent(t, evs, "a"); e.Reason != "Unacknowledged" || !strings.Contains(e.Message, "has not acknowledged") {
		t.Fatalf("event = %+v", e)
	}
}

// A reconcile that ends without handling standup's request (one the
// controller ran before the request) leaves the request untouched again.
func TestWalkerForgetsAReconcileThatEndedWithoutTheRequest(t *testing.T) {
	a := node("a", false)
	a.Timeout = 10 * time.Minute
	w := newTestWalker(Options{AskAgainAfter: 30 * time.Second}, a)
	act, _, _ := w.Step(t0)
	kick := only(t, act, ActionReconcile, "a")
	w.ObserveObject(runningHealthChecks(a, "2m0s"))
	w.Step(t0.Add(time.Second))
	w.ObserveObject(handled(a, "older", "False", "HealthCheckFailed", "timeout waiting for: [Deployment/x/y status: 'InProgress']"))
	act, _, _ = w.Step(t0.Add(2 * time.Second))
	none(t, act)
	act, evs, _ := w.Step(t0.Add(33 * time.Second))
	again := only(t, act, ActionReconcile, "a")
	if again.Token == kick.Token {
		t.Fatal("asked again with the same token")
	}
	if e := lastNodeEvent(t, evs, "a"); e.Reason != "Unacknowledged" {
		t.Fatalf("event = %+v, want Unacknowledged", e)
	}
}

// A node Ready at its source's revision already is one event: Ready,
// AlreadyReady, naming the revision.
func TestWalkerReportsAnAlreadyReadyNodeOnce(t *testing.T) {
	a := readyAt(node("a", false), "")
	w := newTestWalker(Options{}, a)
	_, evs, _ := w.Step(t0)
	var mine []Event
	for _, e := range evs {
		if e.Type == EventNode && *e.Node == ksID("a") {
			mine = append(mine, e)
		}
	}
	if len(mine) != 1 || mine[0].Phase != PhaseReady || mine[0].Reason != "AlreadyReady" ||
		mine[0].Message != "already Ready at "+walkRev+"; not touched" {
		t.Fatalf("events = %+v, want one Ready event", mine)
	}
}

func TestHealthCheckTimeout(t *testing.T) {
	tests := []struct {
		msg  string
		want time.Duration
		ok   bool
	}{
		{"Running health checks for revision main@sha1:abc with a timeout of 2m0s", 2 * time.Minute, true},
		{"Running health checks for revision main@sha1:abc with a timeout of 1h30m0s\n", 90 * time.Minute, true},
		{"Building manifests for revision main@sha1:abc with a timeout of 2m0s", 0, false},
		{"Reconciliation in progress", 0, false},
	}
	for _, tt := range tests {
		got, ok := healthCheckTimeout(tt.msg)
		if got != tt.want || ok != tt.ok {
			t.Errorf("healthCheckTimeout(%q) = %s, %t; want %s, %t", tt.msg, got, ok, tt.want, tt.ok)
		}
	}
}
