package bench

import (
	"reflect"
	"testing"
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

func TestDiagnosisOf(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	node := &tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: "platform-config"}
	events := []wait.Event{
		{Type: wait.EventNode, Time: t0},
		{Type: wait.EventDiagnosis, Time: t0.Add(4 * time.Second), Node: node, Message: "suspected cold-start deadlock; re-checking with a reconcile standup requests"},
		{Type: wait.EventDiagnosis, Time: t0.Add(5 * time.Second), Node: node, Message: "dry-run failed on missing kinds StorageProfile; waiting for an operator"},
		{Type: wait.EventDiagnosis, Time: t0.Add(7 * time.Second), Node: node, Message: "no progress, treated as deadlocked", Proof: &wait.Proof{Kind: "any kind", Reason: "any words"}},
		{Type: wait.EventAction, Action: string(wait.ActionPreApplyCRDs), Time: t0.Add(7500 * time.Millisecond), Node: node},
	}
	d, suspected, proven, ok := DiagnosisOf(events)
	want := DiagnosisTiming{Node: "flux-system/platform-config", Suspected: 4 * time.Second, Proven: 7 * time.Second, Repaired: 7500 * time.Millisecond}
	if !ok || !reflect.DeepEqual(d, want) || !suspected.Equal(t0.Add(4*time.Second)) || !proven.Equal(t0.Add(7*time.Second)) {
		t.Errorf("DiagnosisOf = %+v, %v, %v, %v; want %+v", d, suspected, proven, ok, want)
	}
	if _, _, _, ok := DiagnosisOf(events[:3]); ok {
		t.Error("DiagnosisOf without a Proof reported a diagnosis")
	}
}

func TestFailedReconciles(t *testing.T) {
	log := `{"level":"error","ts":"2026-11-29T12:00:03.500Z","msg":"Reconciliation failed after 20ms, next try in 2m0s","controllerKind":"Kustomization","Kustomization":{"name":"platform-config","namespace":"flux-system"},"error":"StorageProfile/longhorn dry-run failed"}
{"level":"error","ts":"2026-11-29T12:00:03.600Z","msg":"Reconciliation failed after 20ms, next try in 2m0s","controllerKind":"Kustomization","Kustomization":{"name":"apps","namespace":"flux-system"}}
not json
{"level":"info","ts":"2026-11-29T12:00:05.000Z","msg":"Reconciliation finished in 1s, next run in 10m0s","controllerKind":"Kustomization","Kustomization":{"name":"platform-config","namespace":"flux-system"}}
{"level":"error","ts":"2026-11-29T13:00:06.900+0100","msg":"Reconciliation failed after 20ms, next try in 2m0s","controllerKind":"Kustomization","Kustomization":{"name":"platform-config","namespace":"flux-system"}}
`
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	got, err := FailedReconciles(log, "flux-system/platform-config", t0.Add(4*time.Second), t0.Add(7*time.Second), t0.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 2, 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("FailedReconciles = %v, want %v", got, want)
	}
	if _, err := FailedReconciles(`{"ts":"yesterday","msg":"Reconciliation failed after 1s","Kustomization":{"name":"a","namespace":"b"}}`, "b/a", t0); err == nil {
		t.Error("an unparsable ts was not an error")
	}
}

// The recorded walk of the seed deadlock: no CDI object exists, so the
// failure of the reconcile standup requested proves it at once (a certain
// proof, with no grace), and the CRD is pre-applied right after.
func TestDiagnosisOfRecordedWalk(t *testing.T) {
	events := recordedWalk(t)
	d, suspected, proven, ok := DiagnosisOf(events)
	if !ok || d.Node != "flux-system/platform-config" {
		t.Fatalf("DiagnosisOf = %+v, %v; want platform-config proven", d, ok)
	}
	var proof *wait.Proof
	for _, e := range events {
		if e.Type == wait.EventDiagnosis && e.Proof != nil {
			proof = e.Proof
			break
		}
	}
	if proof == nil || proof.Kind != wait.ProofCertain {
		t.Fatalf("proof %+v, want a certain one", proof)
	}
	if gap := proven.Sub(suspected); gap < 0 || gap >= time.Second {
		t.Errorf("suspected → proven = %s, want no grace: the proof is certain when the requested reconcile fails", gap)
	}
	if d.Repaired < d.Proven || d.Repaired-d.Proven > time.Second {
		t.Errorf("pre-applied at %s, proven at %s: want the repair right after the proof", d.Repaired, d.Proven)
	}
}
