package wait

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// testRetry paces retries in milliseconds, so that tests of a retry take no time.
var testRetry = retryPolicy{first: time.Millisecond, most: 2 * time.Millisecond, limit: 5 * time.Second}

// fakeCluster records the writes asked of it and answers each call n (from
// 1) with err(n), and a pre-apply with result.
type fakeCluster struct {
	err    func(n int) error
	result crds.Result

	calls      int
	reconciles []reconcileCall
	preApplies []crds.Diagnosis
	bundles    []*crds.Bundle
}

type reconcileCall struct {
	id        tiers.ID
	token     string
	unsuspend bool
}

func (f *fakeCluster) answer() error {
	f.calls++
	if f.err == nil {
		return nil
	}
	return f.err(f.calls)
}

func (f *fakeCluster) RequestReconcile(_ context.Context, id tiers.ID, token string, unsuspend bool) error {
	f.reconciles = append(f.reconciles, reconcileCall{id: id, token: token, unsuspend: unsuspend})
	return f.answer()
}

func (f *fakeCluster) PreApplyCRDs(_ context.Context, bundle *crds.Bundle, d crds.Diagnosis) (crds.Result, error) {
	f.preApplies = append(f.preApplies, d)
	f.bundles = append(f.bundles, bundle)
	if err := f.answer(); err != nil {
		return crds.Result{}, err
	}
	return f.result, nil
}

// failFirst fails the first n calls with err.
func failFirst(n int, err error) func(int) error {
	return func(call int) error {
		if call <= n {
			return err
		}
		return nil
	}
}

var (
	ksGR        = schema.GroupResource{Group: "kustomize.toolkit.fluxcd.io", Resource: "kustomizations"}
	crdGR       = schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}
	forbidden   = apierrors.NewForbidden(ksGR, "a", errors.New(`User "u" cannot patch resource "kustomizations"`))
	unavailable = apierrors.NewServiceUnavailable("the apiserver is shutting down")
	dropped     = fmt.Errorf(`Patch "https://127.0.0.1:6443/apis/x": %w`, io.ErrUnexpectedEOF)
)

// remediating walks platform-config to a deadlock acted on: the walker has
// just decided to pre-apply its missing CRD.
func remediating(t *testing.T) (*Walker, Action) {
	t.Helper()
	pc := node("platform-config", false)
	w := newTestWalker(Options{}, pc)
	act, _, _ := w.Step(t0)
	first := only(t, act, ActionReconcile, "platform-config")
	w.ObserveObject(handled(pc, first.Token, "False", "ReconciliationFailed", dryRun))
	w.Step(t0.Add(time.Second))
	act, _, _ = w.Step(t0.Add(time.Second + DefaultOperatorQuiet)) // no progress, nothing to read
	return w, only(t, act, ActionPreApplyCRDs, "platform-config")
}

// recorder is a Loop that keeps the events it emits.
func recorder() (*Loop, *[]Event) {
	var evs []Event
	return &Loop{OnEvent: func(e Event) { evs = append(evs, e) }}, &evs
}

func TestPerformRequestsReconcile(t *testing.T) {
	tests := []struct {
		name                string
		node                tiers.ID
		unsuspend           bool
		wantReason, wantMsg string
	}{
		{name: "request", node: ksID("a"), wantReason: "Requested", wantMsg: "reconcile.fluxcd.io/requestedAt=tok"},
		{name: "resume", node: ksID("a"), unsuspend: true, wantReason: "Resumed", wantMsg: "spec.suspend=false, reconcile.fluxcd.io/requestedAt=tok"},
		// A ResourceSet is resumed by the Operator's annotation, as
		// `flux-operator resume resourceset` does: it has no spec.suspend.
		{name: "resume a ResourceSet", node: tiers.ID{Kind: flux.KindResourceSet, Namespace: "ns", Name: "a"}, unsuspend: true, wantReason: "Resumed",
			wantMsg: "fluxcd.controlplane.io/reconcile=enabled, reconcile.fluxcd.io/requestedAt=tok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeCluster{}
			l, evs := recorder()
			a := Action{Kind: ActionReconcile, Node: tt.node, Token: "tok", Unsuspend: tt.unsuspend}
			interrupted, err := l.performAll(context.Background(), actor{cluster: fake, retry: testRetry}, NewWalker(Options{}, t0), []Action{a})
			if err != nil || interrupted {
				t.Fatalf("performAll = %t, %v", interrupted, err)
			}
			want := []reconcileCall{{id: tt.node, token: "tok", unsuspend: tt.unsuspend}}
			if !reflect.DeepEqual(fake.reconciles, want) {
				t.Errorf("requests %+v, want %+v", fake.reconciles, want)
			}
			if len(*evs) != 1 || (*evs)[0].Reason != tt.wantReason || (*evs)[0].Message != tt.wantMsg {
				t.Errorf("events %+v, want one %s: %s", *evs, tt.wantReason, tt.wantMsg)
			}
		})
	}
}

// TestPerformRetriesTransientErrors: an API server restart (unreachable,
// a dropped connection, 503) is waited out; the write is sent again until
// it passes, or the retries run out.
func TestPerformRetriesTransientErrors(t *testing.T) {
	_, pre := remediating(t)
	reconcile := Action{Kind: ActionReconcile, Node: ksID("a"), Token: "tok"}
	tests := []struct {
		name      string
		action    Action
		err       func(int) error
		limit     time.Duration
		wantCalls int
		wantErr   error
	}{
		{name: "reconcile: 503 twice, then through", action: reconcile, err: failFirst(2, unavailable), wantCalls: 3},
		{name: "reconcile: dropped connection, then through", action: reconcile, err: failFirst(1, dropped), wantCalls: 2},
		{name: "pre-apply: 503 twice, then through", action: pre, err: failFirst(2, unavailable), wantCalls: 3},
		{name: "reconcile: still down when the retries run out", action: reconcile,
			err: failFirst(1<<30, unavailable), limit: 20 * time.Millisecond, wantErr: unavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeCluster{err: tt.err, result: crds.Result{Created: []string{spCRD}}}
			retry := testRetry
			if tt.limit > 0 {
				retry.limit = tt.limit
			}
			res := actor{cluster: fake, bundle: &crds.Bundle{}, retry: retry}.perform(context.Background(), tt.action)
			if !errors.Is(res.Err, tt.wantErr) || (tt.wantErr == nil && res.Err != nil) {
				t.Fatalf("err = %v, want %v", res.Err, tt.wantErr)
			}
			if tt.wantCalls > 0 && fake.calls != tt.wantCalls {
				t.Errorf("%d calls, want %d", fake.calls, tt.wantCalls)
			}
			if tt.wantErr != nil && fake.calls < 2 {
				t.Errorf("%d calls: a transient error was not retried", fake.calls)
			}
		})
	}
}

// TestPerformAllEndsTheWalkOnARefusal: a refused write (403) is not
// retried and ends the walk, naming it; the walker is not told, and no
// action event claims it was done. A pre-apply that fails for another
// reason is the walker's to conclude from: the node fails deadlocked.
func TestPerformAllEndsTheWalkOnARefusal(t *testing.T) {
	conflict := &crds.ConflictError{}
	tests := []struct {
		name     string
		reconcil bool
		err      error
		wantEnd  bool
	}{
		{name: "reconcile refused", reconcil: true, err: forbidden, wantEnd: true},
		{name: "reconcile failed otherwise", reconcil: true, err: apierrors.NewNotFound(ksGR, "a"), wantEnd: true},
		{name: "pre-apply refused", err: apierrors.NewForbidden(crdGR, "x", errors.New("cannot create")), wantEnd: true},
		{name: "pre-apply conflict", err: conflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, a := remediating(t)
			if tt.reconcil {
				a = Action{Kind: ActionReconcile, Node: ksID("platform-config"), Token: "tok"}
			}
			fake := &fakeCluster{err: func(int) error { return tt.err }}
			l, evs := recorder()
			interrupted, err := l.performAll(context.Background(), actor{cluster: fake, bundle: &crds.Bundle{}, retry: testRetry}, w, []Action{a})
			if fake.calls != 1 {
				t.Errorf("%d calls, want 1: only a transient error is retried", fake.calls)
			}
			if interrupted {
				t.Error("a failure reported as an interruption")
			}
			if !tt.wantEnd {
				if err != nil {
					t.Fatalf("performAll = %v, want the walk to go on", err)
				}
				if len(*evs) != 1 || (*evs)[0].Reason != "Failed" {
					t.Errorf("events %+v, want one Failed action event", *evs)
				}
				w.Step(t0.Add(time.Minute))
				if s := w.Summary(t0.Add(time.Minute), false); len(s.Deadlocked) != 1 {
					t.Errorf("summary %+v, want the node failed deadlocked", s)
				}
				return
			}
			if !errors.Is(err, tt.err) {
				t.Fatalf("performAll = %v, want the walk ended by %v", err, tt.err)
			}
			if len(*evs) != 0 || len(w.pending) != 0 {
				t.Errorf("events %+v, results %+v: an action that ended the walk was reported", *evs, w.pending)
			}
		})
	}
}

// TestPerformCancelledDuringARetry: Ctrl-C while waiting to retry ends the
// walk as interrupted, without another write, and concludes nothing.
func TestPerformCancelledDuringARetry(t *testing.T) {
	for _, kind := range []ActionKind{ActionReconcile, ActionPreApplyCRDs} {
		t.Run(string(kind), func(t *testing.T) {
			w, a := remediating(t)
			if kind == ActionReconcile {
				a = Action{Kind: ActionReconcile, Node: ksID("platform-config"), Token: "tok"}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			fake := &fakeCluster{err: func(int) error { cancel(); return unavailable }}
			slow := retryPolicy{first: time.Hour, most: time.Hour, limit: time.Hour}
			l, evs := recorder()
			var interrupted bool
			var err error
			done := make(chan struct{})
			go func() {
				defer close(done)
				interrupted, err = l.performAll(ctx, actor{cluster: fake, bundle: &crds.Bundle{}, retry: slow}, w, []Action{a})
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the retry did not stop at the cancellation")
			}
			if !interrupted || !errors.Is(err, context.Canceled) {
				t.Fatalf("performAll = %t, %v; want interrupted by the cancellation", interrupted, err)
			}
			if fake.calls != 1 {
				t.Errorf("%d calls, want 1", fake.calls)
			}
			if len(*evs) != 0 || len(w.pending) != 0 {
				t.Errorf("events %+v, results %+v: an interrupted action was reported", *evs, w.pending)
			}
		})
	}
}

// TestPreApplyWithoutABundle: with no bundle nothing is written, and the
// node fails deadlocked with the kinds nobody can supply.
func TestPreApplyWithoutABundle(t *testing.T) {
	w, a := remediating(t)
	fake := &fakeCluster{}
	l, evs := recorder()
	if _, err := l.performAll(context.Background(), actor{cluster: fake, retry: testRetry}, w, []Action{a}); err != nil {
		t.Fatal(err)
	}
	if fake.calls != 0 {
		t.Fatalf("%d writes without a bundle", fake.calls)
	}
	var unresolved *crds.UnresolvedError
	if len(w.pending) != 1 || !errors.As(w.pending[0].Err, &unresolved) || !reflect.DeepEqual(unresolved.Missing, a.Diagnosis.Missing) {
		t.Fatalf("result %+v, want an UnresolvedError naming %+v", w.pending, a.Diagnosis.Missing)
	}
	if len(*evs) != 1 || (*evs)[0].Reason != "Failed" {
		t.Errorf("events %+v, want one Failed action event", *evs)
	}
	w.Step(t0.Add(time.Minute))
	phase(t, w, "platform-config", PhaseFailed)
}

// TestPreApplyResultReported: what the pre-apply created and what it found
// existing reach the action event and the walker.
func TestPreApplyResultReported(t *testing.T) {
	const dvCRD = "datavolumes.cdi.kubevirt.io"
	tests := []struct {
		name                string
		result              crds.Result
		wantReason, wantMsg string
		wantNote            string
	}{
		{name: "created one, another existed", result: crds.Result{Created: []string{spCRD}, Existing: []string{dvCRD}},
			wantReason: "Applied", wantMsg: "created CustomResourceDefinition [" + spCRD + "] (field manager standup); CustomResourceDefinition [" + dvCRD + "] exists: left alone",
			wantNote: "pre-applied [" + spCRD + "], [" + dvCRD + "] exist (left alone)"},
		{name: "an operator was first", result: crds.Result{Existing: []string{spCRD}},
			wantReason: "NothingToApply", wantMsg: "CustomResourceDefinition [" + spCRD + "] exists: left alone",
			wantNote: "[" + spCRD + "] exist (left alone)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, a := remediating(t)
			bundle := &crds.Bundle{}
			fake := &fakeCluster{result: tt.result}
			l, evs := recorder()
			if _, err := l.performAll(context.Background(), actor{cluster: fake, bundle: bundle, retry: testRetry}, w, []Action{a}); err != nil {
				t.Fatal(err)
			}
			if len(fake.preApplies) != 1 || !reflect.DeepEqual(fake.preApplies[0], *a.Diagnosis) || fake.bundles[0] != bundle {
				t.Fatalf("pre-applies %+v, want one for the action's diagnosis from the bundle", fake.preApplies)
			}
			if len(*evs) != 1 || (*evs)[0].Reason != tt.wantReason || (*evs)[0].Message != tt.wantMsg {
				t.Errorf("events %+v, want one %s: %s", *evs, tt.wantReason, tt.wantMsg)
			}
			if len(w.pending) != 1 || !reflect.DeepEqual(w.pending[0].Applied, tt.result.Created) || !reflect.DeepEqual(w.pending[0].Existing, tt.result.Existing) {
				t.Fatalf("result %+v, want %+v", w.pending, tt.result)
			}
			w.Step(t0.Add(time.Minute))
			if msg := w.nodes[ksID("platform-config")].message; !strings.HasPrefix(msg, tt.wantNote) {
				t.Errorf("node message %q, want it to start %q", msg, tt.wantNote)
			}
		})
	}
}
