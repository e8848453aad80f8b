package wait

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

var (
	t0      = time.Date(2026, 9, 5, 3, 0, 0, 0, time.UTC)
	repo    = tiers.ID{Kind: "GitRepository", Namespace: "flux-system", Name: "flux-system"}
	walkRev = "main@sha1:1111111111111111111111111111111111111111"
	spGK    = schema.GroupKind{Group: "cdi.kubevirt.io", Kind: "StorageProfile"}
	spCRD   = "storageprofiles.cdi.kubevirt.io"
	dryRun  = `StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"`
)

func ksID(name string) tiers.ID {
	return tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: name}
}

// ks builds a Kustomization that has never been reconciled.
func node(name string, suspended bool, deps ...string) flux.Object {
	o := flux.Object{Node: tiers.Node{ID: ksID(name)}, SourceRef: repo, Suspended: suspended, Generation: 1, Timeout: time.Minute}
	for _, d := range deps {
		o.DependsOn = append(o.DependsOn, tiers.Dependency{ID: ksID(d)})
	}
	return o
}

// handled returns o after kustomize-controller handled token with the given Ready condition.
func handled(o flux.Object, token, status, reason, msg string) flux.Object {
	o.Suspended = false
	o.RequestedAt, o.LastHandledReconcileAt = token, token
	o.ObservedGeneration = o.Generation
	o.Ready = &flux.Condition{Status: status, Reason: reason, Message: msg}
	if status == "True" {
		o.LastAppliedRevision = walkRev
	}
	return o
}

func readyAt(o flux.Object, token string) flux.Object {
	return handled(o, token, "True", "ReconciliationSucceeded", "Applied revision: "+walkRev)
}

func newTestWalker(opts Options, objs ...flux.Object) *Walker {
	w := NewWalker(opts, t0)
	w.ObserveSource(repo, walkRev)
	for _, o := range objs {
		w.ObserveObject(o)
	}
	return w
}

func only(t *testing.T, actions []Action, kind ActionKind, node string) Action {
	t.Helper()
	if len(actions) != 1 || actions[0].Kind != kind || actions[0].Node != ksID(node) {
		t.Fatalf("actions = %+v, want one %s on %s", actions, kind, node)
	}
	return actions[0]
}

func none(t *testing.T, actions []Action) {
	t.Helper()
	if len(actions) != 0 {
		t.Fatalf("actions = %+v, want none", actions)
	}
}

func phase(t *testing.T, w *Walker, name string, want Phase) {
	t.Helper()
	if got, _ := w.Phase(ksID(name)); got != want {
		t.Fatalf("%s phase = %s, want %s", name, got, want)
	}
}

func TestWalkerKicksEachNodeWhenItsDependenciesAreReady(t *testing.T) {
	a, b := node("a", true), node("b", true, "a")
	w := newTestWalker(Options{}, a, b)
	act, _, _ := w.Step(t0)
	kick := only(t, act, ActionReconcile, "a")
	if !kick.Unsuspend {
		t.Fatal("a suspended node must be resumed in the same patch")
	}
	phase(t, w, "b", PhasePending)

	// Ready without our token handled does not count: wait for the handled request.
	stale := readyAt(a, "old-token")
	w.ObserveObject(stale)
	act, _, _ = w.Step(t0.Add(time.Second))
	none(t, act)

	w.ObserveObject(readyAt(a, kick.Token))
	act, _, _ = w.Step(t0.Add(2 * time.Second))
	phase(t, w, "a", PhaseReady)
	kickB := only(t, act, ActionReconcile, "b")
	w.ObserveObject(readyAt(b, kickB.Token))
	w.Step(t0.Add(3 * time.Second))
	if !w.Finished() {
		t.Fatal("walk should be finished")
	}
	if s := w.Summary(t0.Add(3*time.Second), false); s.Ready != 2 || s.Mutations != 2 {
		t.Fatalf("summary = %+v", s)
	}
}

func TestWalkerLeavesReadyNodesAlone(t *testing.T) {
	a := readyAt(node("a", false), "")
	b := readyAt(node("b", false, "a"), "")
	w := newTestWalker(Options{}, a, b)
	act, evs, _ := w.Step(t0)
	none(t, act)
	readyEvents := 0
	for _, e := range evs {
		if e.Phase == PhaseReady {
			readyEvents++
		}
	}
	if !w.Finished() || readyEvents != 2 {
		t.Fatalf("finished=%v ready events=%d; want finished with both ready", w.Finished(), readyEvents)
	}
}

func TestWalkerRevisionGate(t *testing.T) {
	// a is Ready, but at an older revision of the shared source: Flux would
	// hold b back, so standup reconciles a first.
	a := readyAt(node("a", false), "")
	a.LastAppliedRevision = "main@sha1:0000000000000000000000000000000000000000"
	w := newTestWalker(Options{}, a, node("b", false, "a"))
	act, _, _ := w.Step(t0)
	only(t, act, ActionReconcile, "a")
}

func TestWalkerFailsFastAndBlocksDependents(t *testing.T) {
	bad, child, other := node("bad", false), node("child", false, "bad"), node("other", false)
	w := newTestWalker(Options{}, bad, child, other)
	act, _, _ := w.Step(t0)
	if len(act) != 2 {
		t.Fatalf("want bad and other kicked together, got %+v", act)
	}
	tokens := map[string]string{}
	for _, a := range act {
		tokens[a.Node.Name] = a.Token
	}
	w.ObserveObject(handled(bad, tokens["bad"], "False", "BuildFailed", "kustomize build failed: accumulating resources"))
	w.ObserveObject(readyAt(other, tokens["other"]))
	act, _, _ = w.Step(t0.Add(time.Second))
	none(t, act)
	phase(t, w, "bad", PhaseFailed)
	phase(t, w, "child", PhaseBlocked)
	phase(t, w, "other", PhaseReady)
	if !w.Finished() {
		t.Fatal("walk should end once the rest converged")
	}
}

func TestWalkerTimesOut(t *testing.T) {
	a := node("a", false)
	w := newTestWalker(Options{Timeout: 10 * time.Second}, a)
	act, _, next := w.Step(t0)
	kick := only(t, act, ActionReconcile, "a")
	if !next.Equal(t0.Add(10 * time.Second)) {
		t.Fatalf("next wake = %s, want the deadline", next)
	}
	w.ObserveObject(handled(a, kick.Token, "False", "HealthCheckFailed", "timeout waiting for: [Deployment/x/y status: 'InProgress']"))
	w.Step(t0.Add(5 * time.Second))
	phase(t, w, "a", PhaseReconciling) // transient: keep waiting
	w.Step(t0.Add(11 * time.Second))
	phase(t, w, "a", PhaseFailed)
	if s := w.Summary(t0.Add(11*time.Second), false); len(s.TimedOut) != 1 {
		t.Fatalf("summary = %+v, want one timeout", s)
	}
}

func TestWalkerReRequestsWhenControllerLagsOnDependencies(t *testing.T) {
	a, b := readyAt(node("a", false), ""), node("b", false, "a")
	w := newTestWalker(Options{RequeueAfter: time.Second}, a, b)
	act, _, _ := w.Step(t0)
	kick := only(t, act, ActionReconcile, "b")
	w.ObserveObject(handled(b, kick.Token, "False", "DependencyNotReady", "dependency 'flux-system/a' is not ready"))
	act, _, next := w.Step(t0.Add(100 * time.Millisecond))
	none(t, act)
	act, _, _ = w.Step(next)
	again := only(t, act, ActionReconcile, "b")
	if again.Token == kick.Token {
		t.Fatal("a new request needs a new token")
	}
}

func TestWalkerNodesJoinDuringTheWalk(t *testing.T) {
	root := node("root", false)
	w := newTestWalker(Options{}, root, node("apps", false, "infra"))
	act, _, _ := w.Step(t0)
	kick := only(t, act, ActionReconcile, "root")
	phase(t, w, "apps", PhasePending)
	r := readyAt(root, kick.Token)
	r.Inventory = []string{"flux-system_infra_kustomize.toolkit.fluxcd.io_Kustomization"}
	w.ObserveObject(r)
	w.Step(t0.Add(time.Second))
	if w.Finished() {
		t.Fatal("root's inventory names infra, which has not been seen: not finished")
	}
	w.ObserveObject(node("infra", false))
	act, _, _ = w.Step(t0.Add(2 * time.Second))
	only(t, act, ActionReconcile, "infra")
}

func TestWalkerWaitsForInventoryCRDs(t *testing.T) {
	a := node("a", false)
	w := newTestWalker(Options{}, a)
	act, _, _ := w.Step(t0)
	r := readyAt(a, act[0].Token)
	r.Inventory = []string{"_" + spCRD + "_apiextensions.k8s.io_CustomResourceDefinition"}
	w.ObserveObject(r)
	w.Step(t0.Add(time.Second))
	phase(t, w, "a", PhaseCRDs)
	w.ObserveCRD(spCRD, spGK, false)
	w.Step(t0.Add(2 * time.Second))
	phase(t, w, "a", PhaseCRDs)
	w.ObserveCRD(spCRD, spGK, true)
	w.Step(t0.Add(3 * time.Second))
	phase(t, w, "a", PhaseReady)
}

func TestWalkerProvesDeadlockThenPreApplies(t *testing.T) {
	pc := node("platform-config", false)
	w := newTestWalker(Options{}, pc, node("apps-vms", false, "platform-config"))
	act, _, _ := w.Step(t0)
	first := only(t, act, ActionReconcile, "platform-config")

	// The failure of standup's own request is only a suspicion until the
	// quiet window has passed without progress (its origin is unknown, so
	// there is nothing to read) and without an operator creating the CRD.
	w.ObserveObject(handled(pc, first.Token, "False", "ReconciliationFailed", dryRun))
	act, evs, next := w.Step(t0.Add(time.Second))
	none(t, act)
	if !hasDiagnosis(evs, "suspected") {
		t.Fatalf("want a suspected-deadlock diagnosis event, got %+v", evs)
	}
	quietEnd := t0.Add(time.Second + DefaultOperatorQuiet)
	if next.After(quietEnd) {
		t.Fatalf("next wake %s, after the end of the quiet window %s", next, quietEnd)
	}
	act, evs, next = w.Step(quietEnd.Add(-time.Millisecond))
	if !next.Equal(quietEnd) {
		t.Fatalf("next wake %s, want the end of the quiet window %s", next, quietEnd)
	}
	none(t, act)
	if proofOf(evs) != nil {
		t.Fatal("acted on before the quiet window ended")
	}
	// No second reconcile: the CRD watch shows the kind still absent.
	act, evs, _ = w.Step(next)
	pre := only(t, act, ActionPreApplyCRDs, "platform-config")
	if p := proofOf(evs); p == nil || p.Kind != ProofNoProgress || pre.Diagnosis == nil || pre.Diagnosis.Missing[0].Kind != "StorageProfile" {
		t.Fatalf("want a no-progress proof naming StorageProfile, got %+v, %+v", p, pre.Diagnosis)
	}
	if hasDiagnosis(evs, "deadlock proven") {
		t.Errorf("a wait that ran out says proven: %+v", evs)
	}
	phase(t, w, "platform-config", PhaseRemediating)

	w.Done(ActionResult{Action: pre, Applied: []string{spCRD}})
	act, _, _ = w.Step(t0.Add(3 * time.Second))
	none(t, act) // the CRD is not established yet
	w.ObserveCRD(spCRD, spGK, true)
	act, _, _ = w.Step(t0.Add(4 * time.Second))
	after := only(t, act, ActionReconcile, "platform-config")
	w.ObserveObject(readyAt(pc, after.Token))
	act, _, _ = w.Step(t0.Add(5 * time.Second))
	only(t, act, ActionReconcile, "apps-vms")
}

func TestWalkerRaceWithOperatorIsNotADeadlock(t *testing.T) {
	vms := node("apps-vms", false)
	w := newTestWalker(Options{}, vms)
	act, _, _ := w.Step(t0)
	kick := only(t, act, ActionReconcile, "apps-vms")
	w.ObserveObject(handled(vms, kick.Token, "False", "ReconciliationFailed", dryRun))
	act, _, next := w.Step(t0.Add(time.Second))
	none(t, act)
	// The operator creates the CRD within the quiet window: no pre-apply, just a retry.
	w.ObserveCRD(spCRD, spGK, true)
	act, _, _ = w.Step(next)
	retry := only(t, act, ActionReconcile, "apps-vms")
	w.ObserveObject(readyAt(vms, retry.Token))
	w.Step(next.Add(time.Second))
	phase(t, w, "apps-vms", PhaseReady)
}

func TestWalkerDeadlockOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		result  error
		wantMsg string
	}{
		{name: "no remediation", opts: Options{NoRemediate: true}, wantMsg: "StorageProfile"},
		{name: "kind not in bundle", result: errors.New("the CRD bundle has no CRD for StorageProfile.cdi.kubevirt.io"), wantMsg: "bundle has no CRD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pc := node("platform-config", false)
			w := newTestWalker(tt.opts, pc)
			// Already failing before standup asked: its first request proves
			// it, once the quiet window since the first sight has passed.
			w.ObserveObject(handled(pc, "", "False", "ReconciliationFailed", dryRun))
			act, _, _ := w.Step(t0)
			kick := only(t, act, ActionReconcile, "platform-config")
			w.ObserveObject(handled(pc, kick.Token, "False", "ReconciliationFailed", dryRun))
			act, _, _ = w.Step(t0.Add(time.Second))
			none(t, act)
			next := t0.Add(time.Second + DefaultOperatorQuiet)
			act, _, _ = w.Step(next)
			if tt.result != nil {
				pre := only(t, act, ActionPreApplyCRDs, "platform-config")
				w.Done(ActionResult{Action: pre, Err: tt.result})
				w.Step(next.Add(time.Second))
			}
			phase(t, w, "platform-config", PhaseFailed)
			s := w.Summary(next.Add(time.Second), false)
			if len(s.Deadlocked) != 1 {
				t.Fatalf("summary = %+v, want one deadlock", s)
			}
			if st := w.nodes[ksID("platform-config")]; !strings.Contains(st.message, tt.wantMsg) {
				t.Fatalf("message %q does not contain %q", st.message, tt.wantMsg)
			}
		})
	}
}

func TestWalkerSelection(t *testing.T) {
	objs := []flux.Object{node("a", true), node("b", true, "a"), node("c", true, "b"), node("x", true)}
	tests := []struct {
		name string
		sel  tiers.Selection
		want []string // kicked first
	}{
		{name: "all", want: []string{"a", "x"}},
		{name: "only c walks its ancestors", sel: tiers.Selection{Only: []string{"c"}}, want: []string{"a"}},
		{name: "from b leaves a untouched", sel: tiers.Selection{From: []string{"b"}}, want: nil},
		{name: "exclude x", sel: tiers.Selection{Exclude: []string{"flux-system/x"}}, want: []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newTestWalker(Options{Selection: tt.sel}, objs...)
			act, _, _ := w.Step(t0)
			var got []string
			for _, a := range act {
				got = append(got, a.Node.Name)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("kicked %v, want %v", got, tt.want)
			}
		})
	}
}

func TestWalkerMaxInflight(t *testing.T) {
	a, b := node("a", false), node("b", false)
	w := newTestWalker(Options{MaxInflight: 1}, a, b)
	act, _, _ := w.Step(t0)
	first := only(t, act, ActionReconcile, "a")
	act, _, _ = w.Step(t0.Add(time.Second))
	none(t, act)
	// a finishing frees the slot for b.
	w.ObserveObject(readyAt(a, first.Token))
	act, _, _ = w.Step(t0.Add(2 * time.Second))
	only(t, act, ActionReconcile, "b")
}

func TestWalkerForgetsDeletedNodes(t *testing.T) {
	a, b := node("a", false), node("b", false, "a")
	w := newTestWalker(Options{}, a, b)
	act, _, _ := w.Step(t0)
	only(t, act, ActionReconcile, "a")
	w.ForgetObject(ksID("a"))
	w.ForgetObject(ksID("b"))
	act, _, _ = w.Step(t0.Add(time.Second))
	none(t, act)
	if !w.Finished() {
		t.Fatal("a walk whose nodes were all deleted is finished")
	}
}

func TestWalkerReportsCycles(t *testing.T) {
	w := newTestWalker(Options{}, node("a", false, "b"), node("b", false, "a"))
	w.Step(t0)
	var cycle *tiers.CycleError
	if !errors.As(w.GraphError(), &cycle) {
		t.Fatalf("GraphError = %v, want a cycle", w.GraphError())
	}
}

func hasDiagnosis(evs []Event, word string) bool {
	for _, e := range evs {
		if e.Type == EventDiagnosis && strings.Contains(e.Message, word) {
			return true
		}
	}
	return false
}

// Flux can park a Ready node at DependencyNotReady when it runs it again
// while a dependency is mid-reconcile; standup asks again at once (once),
// instead of leaving it, and its dependents, to Flux's 30 s re-check.
func TestWalkerReopensANodeFluxParked(t *testing.T) {
	r, a, b := node("r", false), node("a", false, "r"), node("b", false, "a")
	w := newTestWalker(Options{}, r, a, b)
	act, _, _ := w.Step(t0)
	kr := only(t, act, ActionReconcile, "r")
	w.ObserveObject(readyAt(r, kr.Token))
	act, _, _ = w.Step(t0.Add(time.Second))
	ka := only(t, act, ActionReconcile, "a")
	w.ObserveObject(readyAt(a, ka.Token))
	act, _, _ = w.Step(t0.Add(2 * time.Second))
	kb := only(t, act, ActionReconcile, "b")
	phase(t, w, "a", PhaseReady)

	// Flux re-runs a while r reconciles again, and parks it.
	parked := handled(a, ka.Token, "False", meta.DependencyNotReadyReason, "dependency 'flux-system/r' is not ready")
	w.ObserveObject(parked)
	act, _, _ = w.Step(t0.Add(3 * time.Second))
	again := only(t, act, ActionReconcile, "a")
	phase(t, w, "a", PhaseReconciling)
	w.ObserveObject(readyAt(a, again.Token))
	w.ObserveObject(readyAt(b, kb.Token))
	act, _, _ = w.Step(t0.Add(4 * time.Second))
	none(t, act)
	phase(t, w, "a", PhaseReady)
	phase(t, w, "b", PhaseReady)

	// A second time it is left to Flux: at most two requests per node.
	w.ObserveObject(handled(a, again.Token, "False", meta.DependencyNotReadyReason, "dependency 'flux-system/r' is not ready"))
	act, _, _ = w.Step(t0.Add(5 * time.Second))
	none(t, act)
	phase(t, w, "a", PhaseReady)
}

// A request kustomize-controller never acknowledges (it dropped the
// reconcile when its final status write failed during an API server restart)
// is asked again once, AskAgainAfter after the status last changed.
func TestWalkerAsksAgainWhenARequestGoesUnacknowledged(t *testing.T) {
	a := node("a", true)
	w := newTestWalker(Options{AskAgainAfter: 30 * time.Second, Timeout: 10 * time.Minute}, a)
	act, _, next := w.Step(t0)
	kick := only(t, act, ActionReconcile, "a")
	if !next.Equal(t0.Add(30 * time.Second)) {
		t.Fatalf("next wake = %s, want the ask-again time", next)
	}
	// The controller starts (status changes), then goes quiet without
	// acknowledging: the quiet period counts from the change.
	inProgress := a
	inProgress.Suspended = false
	inProgress.Ready = &flux.Condition{Status: "Unknown", Reason: "Progressing", Message: "Reconciliation in progress"}
	w.ObserveObject(inProgress)
	act, _, _ = w.Step(t0.Add(20 * time.Second))
	none(t, act)
	act, _, _ = w.Step(t0.Add(45 * time.Second))
	none(t, act)
	act, _, _ = w.Step(t0.Add(51 * time.Second))
	again := only(t, act, ActionReconcile, "a")
	if again.Token == kick.Token || again.Unsuspend {
		t.Fatalf("ask again = %+v, want a new token and no unsuspend", again)
	}
	// Once only.
	act, _, _ = w.Step(t0.Add(5 * time.Minute))
	none(t, act)
	w.ObserveObject(readyAt(inProgress, again.Token))
	w.Step(t0.Add(5*time.Minute + time.Second))
	phase(t, w, "a", PhaseReady)
}

// kustomize-controller can mark the request handled and leave the node
// "Reconciliation in progress": its reconcile failed its own status writes
// during an API server restart ("failed to update status: timed out waiting
// for the condition") and it waits 10 m for the next try. Seen in CI on
// TestFaultAPIServerRestartMidResume/graceful_restart.
func TestWalkerAsksAgainWhenAHandledRequestIsLeftInProgress(t *testing.T) {
	a := node("a", true)
	w := newTestWalker(Options{AskAgainAfter: 30 * time.Second, Timeout: 10 * time.Minute}, a)
	act, _, _ := w.Step(t0)
	kick := only(t, act, ActionReconcile, "a")
	stuck := handled(a, kick.Token, "Unknown", "Progressing", "Reconciliation in progress")
	stuck.ObservedGeneration = -1
	w.ObserveObject(stuck)
	act, _, _ = w.Step(t0.Add(10 * time.Second))
	none(t, act)
	act, _, next := w.Step(t0.Add(35 * time.Second)) // quiet for 25 s only
	none(t, act)
	if next.After(t0.Add(40 * time.Second)) {
		t.Fatalf("next wake = %s, want no later than 30 s after the last change (40 s)", next.Sub(t0))
	}
	act, _, _ = w.Step(t0.Add(41 * time.Second))
	again := only(t, act, ActionReconcile, "a")
	if again.Token == kick.Token {
		t.Fatal("asked again with the same token")
	}
	// Once only, and the node goes Ready on the repeated request.
	w.ObserveObject(handled(a, again.Token, "Unknown", "Progressing", "Reconciliation in progress"))
	act, _, _ = w.Step(t0.Add(5 * time.Minute))
	none(t, act)
	w.ObserveObject(readyAt(a, again.Token))
	w.Step(t0.Add(5*time.Minute + time.Second))
	phase(t, w, "a", PhaseReady)
}

// A handled request whose reconcile ended (Ready True or False) is never
// repeated, however long the status stays the same.
func TestWalkerDoesNotAskAgainWhenAHandledRequestEnded(t *testing.T) {
	a := node("a", false)
	w := newTestWalker(Options{AskAgainAfter: 30 * time.Second, Timeout: 10 * time.Minute}, a)
	act, _, _ := w.Step(t0)
	kick := only(t, act, ActionReconcile, "a")
	w.ObserveObject(handled(a, kick.Token, "False", "ReconciliationFailed", "apply failed: connection refused"))
	for _, at := range []time.Duration{31 * time.Second, 2 * time.Minute, 9 * time.Minute} {
		act, _, _ = w.Step(t0.Add(at))
		none(t, act)
	}
}

// A request acknowledged in time is never repeated.
func TestWalkerDoesNotAskAgainWhenAcknowledged(t *testing.T) {
	a := node("a", false)
	w := newTestWalker(Options{AskAgainAfter: 30 * time.Second}, a)
	act, _, _ := w.Step(t0)
	kick := only(t, act, ActionReconcile, "a")
	w.ObserveObject(handled(a, kick.Token, "False", "HealthCheckFailed", "timeout waiting for: [Deployment/x/y status: 'InProgress']"))
	act, _, _ = w.Step(t0.Add(40 * time.Second))
	none(t, act)
	phase(t, w, "a", PhaseReconciling)
}

// On a saturated kustomize-controller (300 Kustomizations, --concurrent 4)
// a request can wait in its work queue for longer than AskAgainAfter. The
// queue is first in, first out: while a request made earlier is untouched
// too, or while the controller is seen taking requests up, a request is
// waiting its turn, and asking again would only add a write. Quiet time
// counts from the last request taken up.
func TestWalkerDoesNotAskAgainWhileQueued(t *testing.T) {
	a, b, c := node("a", true), node("b", true), node("c", true)
	w := newTestWalker(Options{AskAgainAfter: 30 * time.Second, Timeout: 10 * time.Minute}, a, b, c)
	act, _, _ := w.Step(t0)
	if len(act) != 3 {
		t.Fatalf("actions = %+v, want a request for each of a, b, c", act)
	}
	tokens := map[string]string{}
	for _, x := range act {
		tokens[x.Node.Name] = x.Token
	}
	inProgress := func(o flux.Object) flux.Object {
		o.Suspended = false
		o.Ready = &flux.Condition{Status: "Unknown", Reason: "Progressing", Message: "Reconciliation in progress"}
		return o
	}
	// The controller takes up a at 20 s, b at 50 s: b, untouched for 40 s
	// at 40 s, was taken up less than 30 s after a; c waits behind b.
	w.ObserveObject(inProgress(a))
	act, _, _ = w.Step(t0.Add(20 * time.Second))
	none(t, act)
	w.ObserveObject(readyAt(a, tokens["a"]))
	act, _, _ = w.Step(t0.Add(40 * time.Second))
	none(t, act)
	w.ObserveObject(inProgress(b))
	act, _, _ = w.Step(t0.Add(50 * time.Second))
	none(t, act)
	// c is the oldest untouched request from 50 s: asked again, once, 30 s
	// after the controller last took one up.
	w.ObserveObject(readyAt(b, tokens["b"]))
	act, _, _ = w.Step(t0.Add(70 * time.Second))
	none(t, act)
	act, _, _ = w.Step(t0.Add(81 * time.Second))
	again := only(t, act, ActionReconcile, "c")
	if again.Token == tokens["c"] {
		t.Fatal("asked again with the same token")
	}
	act, _, _ = w.Step(t0.Add(5 * time.Minute))
	none(t, act)
}

// With nothing taken up, the oldest untouched request is asked again
// AskAgainAfter after it was made, as before; it keeps its place, so the
// requests behind it wait until the controller takes it up, and are asked
// again AskAgainAfter after that if they stay untouched.
func TestWalkerAsksAgainTheOldestUntouchedRequest(t *testing.T) {
	a, b := node("a", true), node("b", true)
	w := newTestWalker(Options{AskAgainAfter: 30 * time.Second, Timeout: 10 * time.Minute}, a, b)
	act, _, _ := w.Step(t0)
	if len(act) != 2 {
		t.Fatalf("actions = %+v, want a request for a and b", act)
	}
	act, _, _ = w.Step(t0.Add(31 * time.Second))
	only(t, act, ActionReconcile, "a")
	act, _, _ = w.Step(t0.Add(65 * time.Second))
	none(t, act)
	taken := a
	taken.Suspended = false
	taken.Ready = &flux.Condition{Status: "Unknown", Reason: "Progressing", Message: "Reconciliation in progress"}
	w.ObserveObject(taken)
	act, _, _ = w.Step(t0.Add(70 * time.Second))
	none(t, act)
	act, _, _ = w.Step(t0.Add(99 * time.Second))
	none(t, act)
	act, _, _ = w.Step(t0.Add(101 * time.Second))
	only(t, act, ActionReconcile, "b")
}
