package main

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubestandup/standup/internal/testenv"
)

// neverReadyTree is a source tree whose ./stuck applies a Deployment that
// never becomes ready: the test world runs no kube-controller-manager, so
// the Deployment's status is never written and kstatus reads it
// InProgress for as long as kustomize-controller's health check waits.
func neverReadyTree(t *testing.T, ns string) string {
	t.Helper()
	return writeTree(t, filepath.Join(t.TempDir(), "tree"), map[string]string{
		"stuck/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- deploy.yaml\n",
		"stuck/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: never-ready\n  namespace: " + ns + "\n" +
			"spec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: never-ready\n  template:\n    metadata:\n      labels:\n        app: never-ready\n" +
			"    spec:\n      containers:\n      - name: app\n        image: registry.invalid/never-ready:1\n",
	})
}

// TestResumeShowsTheControllersProgress (issue 31): a Kustomization with
// wait: true whose Deployment never becomes ready, walked by the real
// kustomize-controller. Without a terminal, standup's plain lines carry
// the controller's own words ("Running health checks … with a timeout of
// 2m0s") within 30 s of the request, with how long the node has waited,
// and never say the controller has not acknowledged a request it took up.
func TestResumeShowsTheControllersProgress(t *testing.T) {
	ns := testenv.UniqueName("progress")
	w := sharedWorld(t, testenv.Options{}, ns)
	publish(t, w, ns, neverReadyTree(t, ns))
	create(t, w, testenv.KS{Namespace: ns, Name: "stuck", Path: "./stuck", Wait: true, Suspend: true, Timeout: 2 * time.Minute})

	var mu sync.Mutex
	var requestedAt time.Time
	var lines []string
	progress := make(chan time.Time, 1)
	spec := runSpec{kubeconfig: w.Kubeconfig, onErrLine: func(line string) {
		now := time.Now()
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, line)
		switch {
		case strings.Contains(line, "Kustomization/"+ns+"/stuck reconcile:") && requestedAt.IsZero():
			requestedAt = now
		case strings.Contains(line, "Kustomization/"+ns+"/stuck reconciling") && strings.Contains(line, "Running health checks"):
			select {
			case progress <- now:
			default:
			}
		}
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := goRun(ctx, t, spec, "resume", "-n", ns)
	select {
	case seen := <-progress:
		mu.Lock()
		asked := requestedAt
		mu.Unlock()
		if asked.IsZero() || seen.Sub(asked) > 30*time.Second {
			t.Errorf("the health checks' line came %s after the request (at %s), want within 30 s", seen.Sub(asked), asked)
		}
	case res := <-run.done:
		t.Fatalf("resume ended (exit %d) before showing the health checks:\n%s", res.Code, res.Stderr)
	case <-time.After(90 * time.Second):
		t.Fatalf("no line showed the controller's health checks within 90 s:\n%s", run.errOut.String())
	}
	cancel()
	res := run.await(t, 30*time.Second)
	if res.Code != ExitInterrupted {
		t.Errorf("exit %d after the interrupt, want %d", res.Code, ExitInterrupted)
	}
	mu.Lock()
	defer mu.Unlock()
	var health string
	for _, l := range lines {
		if strings.Contains(l, "not acknowledged") {
			t.Errorf("standup says the controller has not acknowledged a request it took up: %q", l)
		}
		if strings.Contains(l, "Running health checks") && health == "" {
			health = l
		}
	}
	// "… Kustomization/NS/stuck reconciling, 1.2s: Running health checks for revision … with a timeout of 2m0s (Progressing)"
	if !strings.Contains(health, "reconciling, ") || !strings.Contains(health, "with a timeout of 2m0s (Progressing)") {
		t.Errorf("the health checks' line %q lacks how long the node waited, or the controller's reason", health)
	}
}
