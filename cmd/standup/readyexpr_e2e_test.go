package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/wait"
)

// TestResumeHonoursReadyExprAgainstTheController has the expression and the
// Ready condition disagree both ways, on the real kustomize-controller:
// standup must release a dependent exactly when Flux would.
func TestResumeHonoursReadyExprAgainstTheController(t *testing.T) {
	ns := testenv.UniqueName("ns")
	w := sharedWorld(t, testenv.Options{}, ns, ns+"-gate", ns+"-app", ns+"-broken", ns+"-eager")
	publish(t, w, ns, "testdata/tree")
	specs := []struct {
		ks   testenv.KS
		expr string
	}{
		{ks: testenv.KS{Name: "gate", Path: "./ok", TargetNamespace: ns + "-gate"}},
		// Ready=True on gate is not enough: the expression wants a label.
		{ks: testenv.KS{Name: "app", Path: "./ok", TargetNamespace: ns + "-app", DependsOn: deps("gate")},
			expr: "has(dep.metadata.labels) && 'go' in dep.metadata.labels"},
		{ks: testenv.KS{Name: "broken", Path: "./does-not-exist", TargetNamespace: ns + "-broken"}},
		// broken never turns Ready, but the expression releases eager anyway.
		{ks: testenv.KS{Name: "eager", Path: "./ok", TargetNamespace: ns + "-eager", DependsOn: deps("broken")},
			expr: "dep.metadata.generation >= 1"},
	}
	for _, s := range specs {
		s.ks.Namespace, s.ks.Source, s.ks.Suspend = ns, "repo", true
		obj := s.ks.Kustomization()
		if s.expr != "" {
			obj.Spec.DependsOn[0].ReadyExpr = s.expr
		}
		if err := w.Client.Create(context.Background(), obj); err != nil {
			t.Fatal(err)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"standup", "--kubeconfig", w.Kubeconfig, "resume", "-o", "json"}, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	}()

	// Wait until gate is Ready; app must stay untouched meanwhile.
	deadline := time.Now().Add(time.Minute)
	for !isReady(getKS(t, w, ns, "gate")) {
		if time.Now().After(deadline) {
			t.Fatal("gate never turned Ready")
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(3 * time.Second)
	if app := getKS(t, w, ns, "app"); !app.Spec.Suspend || app.Status.LastHandledReconcileAt != "" {
		t.Fatalf("app was released while its readyExpr was false (suspend=%v)", app.Spec.Suspend)
	}
	labelledAt := time.Now()
	gate := getKS(t, w, ns, "gate")
	patch := client.MergeFrom(gate.DeepCopy())
	gate.Labels = map[string]string{"go": "yes"}
	if err := w.Client.Patch(context.Background(), gate, patch); err != nil {
		t.Fatal(err)
	}

	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		t.Fatal("resume did not finish")
	}
	errBuf := bytes.NewBufferString(errOut.String())
	if code := ExitCode(err, errBuf); code != ExitFailure {
		t.Fatalf("exit %d, want %d (broken fails); stderr: %s", code, ExitFailure, errBuf)
	}
	kicked := map[string]time.Time{}
	final := map[string]wait.Phase{}
	for _, e := range events(t, out.String()) {
		if e.Type == wait.EventAction && e.Node != nil {
			if _, ok := kicked[e.Node.Name]; !ok {
				kicked[e.Node.Name] = e.Time
			}
		}
		if e.Type == wait.EventNode {
			final[e.Node.Name] = e.Phase
		}
	}
	if at := kicked["app"]; at.Before(labelledAt) {
		t.Errorf("app kicked at %s, before the label made its readyExpr true (%s)", at, labelledAt)
	}
	for _, name := range []string{"app", "eager"} {
		if final[name] != wait.PhaseReady || !isReady(getKS(t, w, ns, name)) {
			t.Errorf("%s ended %s; want Ready, released by its readyExpr", name, final[name])
		}
	}
	if final["broken"] != wait.PhaseFailed {
		t.Errorf("broken ended %s, want failed", final["broken"])
	}
}
