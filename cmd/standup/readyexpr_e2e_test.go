package main

import (
	"context"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/wait"
)

// TestResumeHonoursReadyExprAgainstTheController has the expression and the
// Ready condition disagree both ways, on the real kustomize-controller:
// standup must release a dependent exactly when Flux would. plain, beside
// app, depends on gate by the built-in rule alone: standup releases it in
// the Step that sees gate Ready, the one that judges app with gate Ready
// too, and its Ready is the test's proof that the Step is over.
func TestResumeHonoursReadyExprAgainstTheController(t *testing.T) {
	ns := testenv.UniqueName("ns")
	w := sharedWorld(t, testenv.Options{}, ns, ns+"-gate", ns+"-app", ns+"-plain", ns+"-broken", ns+"-eager")
	publish(t, w, ns, "testdata/tree")
	specs := []struct {
		ks   testenv.KS
		expr string
	}{
		{ks: testenv.KS{Name: "gate", Path: "./ok", TargetNamespace: ns + "-gate"}},
		// Ready=True on gate is not enough: the expression wants a label.
		{ks: testenv.KS{Name: "app", Path: "./ok", TargetNamespace: ns + "-app", DependsOn: deps("gate")},
			expr: "has(dep.metadata.labels) && 'go' in dep.metadata.labels"},
		// Ready=True on gate is enough by Flux's own rule.
		{ks: testenv.KS{Name: "plain", Path: "./ok", TargetNamespace: ns + "-plain", DependsOn: deps("gate")}},
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
	tap, plainReady := onFirst(func(e wait.Event) bool { return isReadyEvent(e) && e.Node.Name == "plain" })
	bg := goRun(ctx, t, runSpec{kubeconfig: w.Kubeconfig, onEvent: tap}, "resume", "-o", "json")

	// Until plain is Ready, which standup released the moment it saw gate
	// Ready, app must stay untouched: its readyExpr is still false.
	select {
	case <-plainReady:
	case res := <-bg.done:
		t.Fatalf("resume ended (exit %d) before plain was Ready:\n%s", res.Code, tailLines(res.Stdout, 40))
	case <-ctx.Done():
		t.Fatalf("plain never reported Ready:\n%s", tailLines(bg.out.String(), 40))
	}
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

	res := bg.await(t, 3*time.Minute)
	if res.Code != ExitFailure {
		t.Fatalf("exit %d, want %d (broken fails); stderr: %s", res.Code, ExitFailure, res.Stderr)
	}
	kicked := map[string]time.Time{}
	final := map[string]wait.Phase{}
	for _, e := range events(t, res.Stdout) {
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
	if at := kicked["plain"]; at.IsZero() || !at.Before(labelledAt) || final["plain"] != wait.PhaseReady {
		t.Errorf("plain kicked at %s and ended %s; want Ready, kicked before the label (%s) by Flux's own rule", at, final["plain"], labelledAt)
	}
	if final["broken"] != wait.PhaseFailed {
		t.Errorf("broken ended %s, want failed", final["broken"])
	}
}
