package benchgraph

import (
	"context"
	"testing"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
)

// TestTreeConvergesOnTheRealController runs a small generated graph under
// Flux alone on the test world: every tree directory builds and applies,
// the dependsOn edges hold, and each node with a duration stays un-Ready at
// least that long after its Delay was first seen.
func TestTreeConvergesOnTheRealController(t *testing.T) {
	w := testenv.New(t, testenv.Options{ControllerArgs: []string{"--requeue-dependency=1s"}})
	ctx := context.Background()
	g := Generate(Spec{Depth: 3, Width: 2, FanIn: 2, Seed: 4, MinSeconds: 0, MaxSeconds: 2})
	delays := 0
	for _, n := range g.Nodes {
		if n.Duration > 0 {
			delays++
		}
	}
	if delays == 0 || delays == len(g.Nodes) {
		t.Fatalf("%d of %d nodes have a duration: want both kinds for this seed", delays, len(g.Nodes))
	}
	if err := w.CreateNamespace(ctx, g.Namespace); err != nil {
		t.Fatal(err)
	}
	dc := w.StartDelayController()
	if err := dc.Err(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := g.WriteTree(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Artifacts.Publish(ctx, w.Client, g.Namespace, "bench", dir); err != nil {
		t.Fatal(err)
	}
	for _, k := range g.Kustomizations("bench", false) {
		if err := w.Client.Create(ctx, k.Kustomization()); err != nil {
			t.Fatalf("Kustomization/%s/%s create failed: %v", k.Namespace, k.Name, err)
		}
	}
	readyAt := map[string]time.Time{}
	deadline := time.Now().Add(2 * time.Minute)
	for len(readyAt) < len(g.Nodes) && time.Now().Before(deadline) {
		for _, n := range g.Nodes {
			if _, done := readyAt[n.Name]; done {
				continue
			}
			ks := &kustomizev1.Kustomization{}
			if err := w.Client.Get(ctx, client.ObjectKey{Namespace: g.Namespace, Name: n.Name}, ks); err != nil {
				t.Fatal(err)
			}
			if apimeta.IsStatusConditionTrue(ks.Status.Conditions, meta.ReadyCondition) {
				readyAt[n.Name] = time.Now()
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(readyAt) < len(g.Nodes) {
		t.Fatalf("only %d of %d Kustomizations became Ready within 2 minutes", len(readyAt), len(g.Nodes))
	}
	for _, n := range g.Nodes {
		for _, d := range n.DependsOn {
			if readyAt[n.Name].Before(readyAt[d]) {
				t.Fatalf("%s was Ready before its dependency %s", n.Name, d)
			}
		}
		if n.Duration == 0 {
			continue
		}
		tm, ok := dc.Timing(g.Namespace, n.Name)
		if !ok || tm.Ready.IsZero() || readyAt[n.Name].Sub(tm.Seen) < n.Duration {
			t.Fatalf("%s (duration %s): Delay timing %+v, Kustomization Ready at %s", n.Name, n.Duration, tm, readyAt[n.Name])
		}
	}
}
