package rehearse

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/pkg/tiers"
)

// TestMeasureChangesThePrediction: a measured duration replaces the
// model's cost of that node and nothing else. On the chain a → b → c of
// 1 s reconciles, b measured at 4 s: standup's bring-up goes from 3 s to
// 6 s; Flux alone's stays 61 s, its requeues of 30 s covering b's longer
// pass (b Ready at 34 s, c's second look at 60 s).
func TestMeasureChangesThePrediction(t *testing.T) {
	chain := Scenario{Nodes: []Node{{ID: id("a")}, {ID: id("b"), DependsOn: ids("a")}, {ID: id("c"), DependsOn: ids("b")}}}
	measured := map[tiers.ID]time.Duration{id("b"): 4 * time.Second, id("elsewhere"): time.Minute}
	s, durations := Measure(chain, unit(), measured, SourceRecord)
	want := []NodeDuration{{id("a"), SourceModel, time.Second}, {id("b"), SourceRecord, 4 * time.Second}, {id("c"), SourceModel, time.Second}}
	for i, d := range durations {
		if d != want[i] {
			t.Errorf("duration %d: %+v, want %+v", i, d, want[i])
		}
	}
	if chain.Nodes[1].Duration != 0 {
		t.Error("Measure changed the scenario it was given")
	}
	for _, tt := range []struct {
		c          Contender
		model, got time.Duration
	}{{standup, 3 * time.Second, 6 * time.Second}, {flux, 61 * time.Second, 61 * time.Second}} {
		if r := Simulate(chain, tt.c, unit()); r.AllReady != tt.model {
			t.Errorf("%s, the model: all Ready at %s, want %s", tt.c.Name, r.AllReady, tt.model)
		}
		if r := Simulate(s, tt.c, unit()); !r.Converged || r.AllReady != tt.got {
			t.Errorf("%s, b measured: all Ready at %s (converged %v), want %s", tt.c.Name, r.AllReady, r.Converged, tt.got)
		}
	}
	// A HelmRelease's measured install replaces Model.HelmInstall (3 s).
	hr := tiers.ID{Kind: KindHelmRelease, Namespace: "apps", Name: "web"}
	s, _ = Measure(Scenario{Nodes: []Node{{ID: hr}}}, unit(), map[tiers.ID]time.Duration{hr: 1500 * time.Millisecond}, SourceRecord)
	if r := Simulate(s, standup, unit()); r.AllReady != 1500*time.Millisecond {
		t.Errorf("HelmRelease measured at 1.5s: all Ready at %s", r.AllReady)
	}
}

// TestFromHistory: status.history as kustomize-controller writes it; the
// latest successful snapshot's lastReconciledDuration is the measure.
func TestFromHistory(t *testing.T) {
	snap := func(status, last, duration string) any {
		return map[string]any{"digest": "sha256:" + last, "firstReconciled": "2026-12-01T10:00:00Z", "lastReconciled": last,
			"lastReconciledDuration": duration, "lastReconciledStatus": status, "totalReconciliations": int64(3),
			"metadata": map[string]any{"revision": "main@sha1:1a4c784b"}}
	}
	obj := func(kind, ns, name string, history ...any) unstructured.Unstructured {
		u := unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": kind,
			"metadata": map[string]any{"namespace": ns, "name": name},
		}}
		if kind == KindHelmRelease {
			u.SetAPIVersion("helm.toolkit.fluxcd.io/v2")
		}
		if history != nil {
			u.Object["status"] = map[string]any{"history": history}
		}
		return u
	}
	objs := []unstructured.Unstructured{
		// Most recent first, as the controller sorts it; a failure after
		// the last success is no measure of a successful pass.
		obj(KindKustomization, "flux-system", "apps",
			snap("HealthCheckFailed", "2026-12-03T10:05:00Z", "5m0.2s"),
			snap("ReconciliationSucceeded", "2026-12-03T10:00:00Z", "2.318204559s"),
			snap("ReconciliationSucceeded", "2026-12-02T10:00:00Z", "9.1s")),
		obj(KindKustomization, "flux-system", "infra", snap("ReconciliationSucceeded", "2026-12-03T09:00:00Z", "412ms")),
		obj(KindKustomization, "flux-system", "failing", snap("ReconciliationFailed", "2026-12-03T09:00:00Z", "1s")),
		obj(KindKustomization, "flux-system", "garbled", snap("ReconciliationSucceeded", "2026-12-03T09:00:00Z", "soon")),
		obj(KindKustomization, "flux-system", "old-controller"),
		// helm-controller's history: releases, no duration.
		obj(KindHelmRelease, "monitoring", "grafana", map[string]any{"name": "grafana", "namespace": "monitoring", "version": int64(1),
			"status": "deployed", "firstDeployed": "2026-12-03T09:00:00Z", "lastDeployed": "2026-12-03T09:00:00Z"}),
	}
	got := FromHistory(objs)
	want := map[tiers.ID]time.Duration{id("apps"): 2318204559 * time.Nanosecond, id("infra"): 412 * time.Millisecond}
	if len(got) != len(want) {
		t.Errorf("measured %v, want %v", got, want)
	}
	for k, d := range want {
		if got[k] != d {
			t.Errorf("%s: %s, want %s", k, got[k], d)
		}
	}
}
