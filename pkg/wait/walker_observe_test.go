package wait

import (
	"testing"
	"time"

	"github.com/kubestandup/standup/pkg/crds"
)

// TestWalkerDiagnosesFromTheParseKeptWithTheObservation: the Ready message
// is parsed when the object is observed, and the diagnosis reads that
// parse. The kept parse is swapped for another kind's here: a walker that
// parsed the message again would name StorageProfile.
func TestWalkerDiagnosesFromTheParseKeptWithTheObservation(t *testing.T) {
	const dataVolumes = `DataVolume/disk dry-run failed: no matches for kind "DataVolume" in version "cdi.kubevirt.io/v1beta1"`
	pc := node("platform-config", false)
	w := newTestWalker(Options{}, pc)
	w.ObserveObject(handled(pc, "", "False", "ReconciliationFailed", dryRun))
	st := w.nodes[pc.ID]
	if st.status.State != SuspectedDeadlock || len(st.status.Missing) != 1 || st.status.Missing[0].Kind != "StorageProfile" {
		t.Fatalf("status kept with the observation = %+v, want the StorageProfile dry-run failure", st.status)
	}
	st.status.Missing = crds.ParseDryRunFailures(dataVolumes)

	act, evs, _ := w.Step(t0)
	kick := only(t, act, ActionReconcile, "platform-config")
	if d := diagnosisOf(evs); d == nil || d.Missing[0].Kind != "DataVolume" {
		t.Fatalf("suspected diagnosis = %+v, want it read from the kept parse (DataVolume)", d)
	}

	w.ObserveObject(handled(pc, kick.Token, "False", "ReconciliationFailed", dryRun))
	w.nodes[pc.ID].status.Missing = crds.ParseDryRunFailures(dataVolumes)
	_, _, next := w.Step(t0.Add(time.Second))
	act, _, _ = w.Step(next)
	pre := only(t, act, ActionPreApplyCRDs, "platform-config")
	if pre.Diagnosis.Missing[0].Kind != "DataVolume" {
		t.Fatalf("pre-apply for %+v, want it read from the kept parse (DataVolume)", pre.Diagnosis.Missing)
	}
}

func diagnosisOf(evs []Event) *crds.Diagnosis {
	for _, e := range evs {
		if e.Type == EventDiagnosis {
			return e.Diagnosis
		}
	}
	return nil
}

// TestWalkerRebuildsOnlyWhenTheNodeSetChanges: the graph is built again
// when a node appears or goes, or its dependsOn changes; an observation of
// status, a source or a CRD reuses it.
func TestWalkerRebuildsOnlyWhenTheNodeSetChanges(t *testing.T) {
	a, b := node("a", false), node("b", false, "a")
	tests := []struct {
		name    string
		change  func(w *Walker)
		rebuild bool
	}{
		{name: "status only", change: func(w *Walker) { w.ObserveObject(readyAt(a, "t")) }},
		{name: "same object again", change: func(w *Walker) { w.ObserveObject(b) }},
		{name: "source revision", change: func(w *Walker) { w.ObserveSource(repo, "main@sha1:2") }},
		{name: "CRD", change: func(w *Walker) { w.ObserveCRD(spCRD, spGK, true) }},
		{name: "forget a node never seen", change: func(w *Walker) { w.ForgetObject(ksID("z")) }},
		{name: "new node", change: func(w *Walker) { w.ObserveObject(node("c", false, "b")) }, rebuild: true},
		{name: "dependsOn changed", change: func(w *Walker) { w.ObserveObject(node("b", false)) }, rebuild: true},
		{name: "node deleted", change: func(w *Walker) { w.ForgetObject(b.ID) }, rebuild: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newTestWalker(Options{}, a, b)
			w.Step(t0)
			before := w.Graph()
			tt.change(w)
			w.Step(t0.Add(time.Second))
			if rebuilt := w.Graph() != before; rebuilt != tt.rebuild {
				t.Fatalf("rebuilt = %t, want %t", rebuilt, tt.rebuild)
			}
		})
	}
}

// TestWalkerDependentsFollowTheGraph: a node's end wakes its dependents as
// the graph has them now, after a dependsOn edit.
func TestWalkerDependentsFollowTheGraph(t *testing.T) {
	a, b, c := node("a", false), node("b", false, "a"), node("c", false)
	w := newTestWalker(Options{}, a, b, c)
	act, _, _ := w.Step(t0)
	tokens := map[string]string{}
	for _, x := range act {
		tokens[x.Node.Name] = x.Token
	}
	if len(tokens) != 2 || tokens["a"] == "" || tokens["c"] == "" {
		t.Fatalf("kicked %+v, want a and c", act)
	}
	// b now waits on c instead of a.
	w.ObserveObject(node("b", false, "c"))
	w.ObserveObject(readyAt(a, tokens["a"]))
	act, _, _ = w.Step(t0.Add(time.Second))
	none(t, act)
	w.ObserveObject(readyAt(c, tokens["c"]))
	act, _, _ = w.Step(t0.Add(2 * time.Second))
	only(t, act, ActionReconcile, "b")
}
