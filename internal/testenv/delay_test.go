package testenv

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func newDelay(namespace, name string, seconds int64) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": DelayGVR.GroupVersion().String(),
		"kind":       "Delay",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"spec":       map[string]any{"seconds": seconds},
	}}
	return u
}

// kstatusOf reads a Delay and computes its status the way
// kustomize-controller's health check does.
func kstatusOf(t *testing.T, w *World, namespace, name string) (status.Status, *unstructured.Unstructured) {
	t.Helper()
	u, err := w.Dynamic.Resource(DelayGVR).Namespace(namespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Delay/%s/%s get failed: %v", namespace, name, err)
	}
	res, err := status.Compute(u)
	if err != nil {
		t.Fatalf("Delay/%s/%s kstatus: %v", namespace, name, err)
	}
	return res.Status, u
}

// writeDelayTree writes a source tree whose ./slow applies one Delay.
func writeDelayTree(t *testing.T, seconds string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tree")
	files := map[string]string{
		"slow/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- delay.yaml\n",
		"slow/delay.yaml": "apiVersion: bench.standup.dev/v1\nkind: Delay\nmetadata:\n  name: slow\n  namespace: flux-system\n" +
			"spec:\n  seconds: " + seconds + "\n",
	}
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDelayHoldsKustomizationUntilDue checks that the benchmarks' duration
// simulation is real: a Delay is InProgress for kstatus from the moment it
// exists, the controller marks it Ready after spec.seconds, and
// kustomize-controller's health check (wait: true) holds the Kustomization
// that applies it un-Ready until then.
func TestDelayHoldsKustomizationUntilDue(t *testing.T) {
	w := worlds.Get(t, Options{})
	ctx := context.Background()
	if err := w.CreateNamespace(ctx, "flux-system"); err != nil {
		t.Fatal(err)
	}

	// Before any controller writes a status, the CRD's status default makes
	// a fresh Delay InProgress: no race with the health check's first poll.
	if err := w.InstallDelayCRD(ctx); err != nil {
		t.Fatal(err)
	}
	created, err := w.Dynamic.Resource(DelayGVR).Namespace("flux-system").Create(ctx, newDelay("flux-system", "probe", 1), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Delay/flux-system/probe create failed: %v", err)
	}
	if res, err := status.Compute(created); err != nil || res.Status != status.InProgressStatus {
		t.Fatalf("a fresh Delay computes %v (%v), want InProgress", res, err)
	}
	if got, u := kstatusOf(t, w, "flux-system", "probe"); got != status.InProgressStatus {
		t.Fatalf("a fresh Delay reads as %s, want InProgress: %v", got, u.Object["status"])
	}

	dc := w.StartDelayController()
	if err := dc.Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the probe Delay becomes Current", func() (bool, string) {
		got, _ := kstatusOf(t, w, "flux-system", "probe")
		return got == status.CurrentStatus, string(got)
	})
	if tm, ok := dc.Timing("flux-system", "probe"); !ok || tm.Ready.Sub(tm.Seen) < time.Second || tm.Seconds != 1 {
		t.Fatalf("probe timing %+v, want Ready at least 1 s after Seen", tm)
	}

	rev, err := w.Artifacts.Publish(ctx, w.Client, "flux-system", "delay-src", writeDelayTree(t, "3"))
	if err != nil {
		t.Fatal(err)
	}
	ks := KS{Namespace: "flux-system", Name: "slow", Path: "./slow", Source: "delay-src", Wait: true, Timeout: 2 * time.Minute}
	if err := w.Client.Create(ctx, ks.Kustomization()); err != nil {
		t.Fatalf("Kustomization/flux-system/slow create failed: %v", err)
	}
	// Poll the Kustomization; lastNotReady bounds from below when it turned Ready.
	var lastNotReady time.Time
	eventually(t, 90*time.Second, "Kustomization slow becomes Ready", func() (bool, string) {
		now := time.Now()
		k := readyOf(t, w, "slow")
		if apimeta.IsStatusConditionTrue(k.Status.Conditions, meta.ReadyCondition) && k.Status.LastAppliedRevision == rev {
			return true, condition(k)
		}
		lastNotReady = now
		return false, condition(k)
	})
	readyAt := time.Now()

	tm, ok := dc.Timing("flux-system", "slow")
	if !ok || tm.Seconds != 3 {
		t.Fatalf("the controller never saw Delay/flux-system/slow (timing %+v)", tm)
	}
	if tm.Ready.IsZero() || tm.Ready.Sub(tm.Seen) < 3*time.Second || tm.Ready.After(readyAt) {
		t.Fatalf("Delay timing %+v: want Ready at least 3 s after Seen, before the Kustomization was Ready (%s)", tm, readyAt)
	}
	// Allow for the 100 ms between two reads of the Kustomization.
	if held := lastNotReady.Sub(tm.Seen); held < 3*time.Second-250*time.Millisecond {
		t.Fatalf("the Kustomization was Ready %s after the Delay was first seen, before its 3 s", held)
	}
	k := readyOf(t, w, "slow")
	if want := "flux-system_slow_bench.standup.dev_Delay"; k.Status.Inventory == nil || !slices.ContainsFunc(k.Status.Inventory.Entries, func(e kustomizev1.ResourceRef) bool { return e.ID == want }) {
		t.Fatalf("inventory %+v does not hold %s", k.Status.Inventory, want)
	}
	if !apimeta.IsStatusConditionTrue(k.Status.Conditions, meta.HealthyCondition) {
		t.Fatalf("Healthy condition not True: %+v", apimeta.FindStatusCondition(k.Status.Conditions, meta.HealthyCondition))
	}
	t.Logf("Delay 3s: seen→ready %s; Kustomization still un-Ready %s after seen, Ready by %s (health check polls every 5 s)",
		tm.Ready.Sub(tm.Seen).Round(time.Millisecond), lastNotReady.Sub(tm.Seen).Round(time.Millisecond), readyAt.Sub(tm.Seen).Round(time.Millisecond))
}
