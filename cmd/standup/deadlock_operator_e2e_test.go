package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/wait"
)

// Issue 31: a slow operator is no proven deadlock. In the proof scene a
// Gizmo exists, so Cog's deadlock is not certain; the simulated operator
// starts at standup's suspicion and creates Cog's CRD only after a
// latency real operators have (a Crossplane provider package needs 30 to
// 90 s to install its CRDs). standup, with its default windows (30 s
// without progress, 2 m in all), must wait it out: no deadlock, nothing
// pre-applied, every Kustomization Ready.

// slowOperatorWalk runs resume on the proof scene with a Gizmo, starting
// op at the suspicion, and checks what every slow-operator walk must show:
// exit 0, no proof and no pre-apply, the operator's CRD, stuck and after
// Ready, and a wait that ended when the CRD appeared, no sooner after the
// suspicion than the operator's delay. It returns the wait.
func slowOperatorWalk(t *testing.T, op *testenv.RuntimeCRDOperator) *wait.OperatorWait {
	t.Helper()
	p := newProofWorld(t, cold, true)
	op.Trigger, op.CRDs = gizmosGVR, []*apiextensionsv1.CustomResourceDefinition{p.cogs}
	var once sync.Once
	spec := runSpec{kubeconfig: p.w.Kubeconfig, onEvent: func(e wait.Event) {
		if e.Type == wait.EventDiagnosis && strings.HasPrefix(e.Message, "suspected") {
			once.Do(func() { p.w.StartOperator(op) })
		}
	}}
	res := runWith(context.Background(), t, spec, "resume", "--crds", p.bundle, "--config", p.config, "-o", "json")
	if res.Code != ExitOK {
		t.Fatalf("exit %d: %v\n%s", res.Code, res.Err, tailLines(res.Stdout, 40))
	}
	evs := events(t, res.Stdout)
	assertNoFalseProof(t, evs)
	suspected, decided := diagnoses(evs)
	if suspected == nil {
		t.Fatalf("the scene did not make standup suspect a deadlock:\n%s", res.Stdout)
	}
	if decided != nil {
		t.Fatalf("treated a slow operator as a deadlock: %s", decided.Message)
	}
	for _, e := range evs {
		if e.Type == wait.EventAction && e.Action == string(wait.ActionPreApplyCRDs) {
			t.Errorf("pre-applied although the operator was creating the CRD: %s", e.Message)
		}
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := p.w.Client.Get(context.Background(), client.ObjectKey{Name: cogsCRD}, crd); err != nil {
		t.Fatal(err)
	}
	if createdByStandup(crd) {
		t.Errorf("%s was created by standup, not the operator", cogsCRD)
	}
	if err := op.Err(); err != nil {
		t.Errorf("operator: %v", err)
	}
	for _, name := range []string{proofStuck, "after"} {
		if ks := getKS(t, p.w, p.ns, name); !isReady(ks) {
			t.Errorf("%s/%s not Ready: %v", p.ns, name, ks.Status.Conditions)
		}
	}
	w := assertWaitEnded(t, evs, wait.WaitCRDsAppeared)
	if waited := time.Duration(w.Waited); waited < op.Delay {
		t.Errorf("the wait ended %s after the suspicion, before the operator's %s", waited, op.Delay)
	}
	t.Logf("waited %s for the operator (%d reads showed progress; last: %s)", time.Duration(w.Waited), w.Progress, w.LastProgress)
	return w
}

// TestDeadlockNotClaimedForASilentOperatorOf20s: the demo's operator, 20 s
// without a word, fits in the quiet window.
func TestDeadlockNotClaimedForASilentOperatorOf20s(t *testing.T) {
	w := slowOperatorWalk(t, &testenv.RuntimeCRDOperator{Delay: 20 * time.Second})
	if w.Progress != 0 {
		t.Errorf("a silent operator showed progress %d times: %s", w.Progress, w.LastProgress)
	}
}

// TestDeadlockNotClaimedWhileAnOperatorShowsProgressFor90s: an operator
// that takes 90 s, three quiet windows, but writes a Progressing condition
// on the Gizmo every 10 s, as a Crossplane package's conditions move while
// it installs, is waited for until it is done.
func TestDeadlockNotClaimedWhileAnOperatorShowsProgressFor90s(t *testing.T) {
	w := slowOperatorWalk(t, &testenv.RuntimeCRDOperator{Delay: 90 * time.Second, ProgressEvery: 10 * time.Second})
	if w.Progress < 3 || !strings.Contains(w.LastProgress, "Progressing=True (Installing: step") {
		t.Errorf("the wait saw progress %d times, last %q; want the operator's condition, every 10 s", w.Progress, w.LastProgress)
	}
}
