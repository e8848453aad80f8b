package wait

import (
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
)

var cdiGK = schema.GroupKind{Group: "cdi.kubevirt.io", Kind: "CDI"}

// cdiTriggers is standup.yaml's runtimeCRDs for the seed: StorageProfile's
// CRD comes from cdi-operator once a CDI object exists.
func cdiTriggers(gk schema.GroupKind) []crds.Trigger {
	if gk == spGK {
		return []crds.Trigger{{Kind: cdiGK, From: "standup.yaml"}}
	}
	return nil
}

// proofScene is the seed at the moment of truth: platform-config's own
// reconcile request failed its dry-run on StorageProfile, apps-vms waits on
// it, platform is Ready, and others are what the case adds. It returns the
// walker right after the Step that saw the failure, and that Step's events.
func proofScene(t *testing.T, opts Options, others ...flux.Object) (*Walker, []Event) {
	t.Helper()
	pc := node("platform-config", false, "platform")
	objs := append([]flux.Object{readyAt(node("platform", false), ""), pc, node("apps-vms", false, "platform-config")}, others...)
	w := newTestWalker(opts, objs...)
	act, _, _ := w.Step(t0)
	i := slices.IndexFunc(act, func(a Action) bool { return a.Node == ksID("platform-config") })
	if i < 0 {
		t.Fatalf("actions %+v: platform-config was not asked to reconcile", act)
	}
	w.ObserveObject(handled(pc, act[i].Token, "False", "ReconciliationFailed", dryRun))
	act, evs, _ := w.Step(t0.Add(time.Second))
	none(t, act)
	if !hasDiagnosis(evs, "suspected") {
		t.Fatalf("no suspected diagnosis in %+v", evs)
	}
	return w, evs
}

// proofOf returns the proof of the diagnosis event that ends the wait and
// acts on the deadlock, if any. Only a certain proof may say "proven".
func proofOf(evs []Event) *Proof {
	for _, e := range evs {
		if e.Type == EventDiagnosis && e.Proof != nil {
			if said := strings.Contains(e.Message, "deadlock proven"); said != (e.Proof.Kind == ProofCertain) {
				return &Proof{Kind: "message says proven: " + ProofKind(e.Message)}
			}
			return e.Proof
		}
	}
	return nil
}

// TestWalkerProofDecisionTable: a deadlock is proven at once, without a
// wait, only when nothing can still create the missing CRD; every other
// case waits for an operator (here none shows progress, so the quiet window
// ends the wait) and says why, in the proof and the node's message.
func TestWalkerProofDecisionTable(t *testing.T) {
	absent := func(f *TriggerFact) {}
	tests := []struct {
		name     string
		triggers crds.Triggers
		others   []flux.Object
		// fact completes the fact the loop gathers for CDI; nil: no fact is
		// asked for.
		fact      func(f *TriggerFact)
		want      ProofKind
		wantWords []string
	}{
		{name: "no CDI object exists", triggers: cdiTriggers, fact: absent,
			want: ProofCertain, wantWords: []string{"no CDI.cdi.kubevirt.io object exists (trigger from standup.yaml)", "every Kustomization not Ready waits on flux-system/platform-config"}},
		{name: "the CDI CRD is absent", triggers: cdiTriggers, fact: func(f *TriggerFact) { f.CRDAbsent = true },
			want: ProofCertain, wantWords: []string{"the CRD of CDI.cdi.kubevirt.io does not exist"}},
		{name: "a CDI object exists", triggers: cdiTriggers, fact: func(f *TriggerFact) { f.Object = "cdi" },
			want: ProofNoProgress, wantWords: []string{"a CDI.cdi.kubevirt.io object exists (cdi, trigger from standup.yaml)", "about to create the CRD"}},
		{name: "standup may not list CDI", triggers: cdiTriggers, fact: func(f *TriggerFact) {
			f.Resource, f.Refused, f.Err = "cdis.cdi.kubevirt.io", true, "cdis.cdi.kubevirt.io is forbidden"
		},
			want: ProofNoProgress, wantWords: []string{`forbidden: standup needs "list" on cdis.cdi.kubevirt.io`, "docs/rbac.yaml"}},
		{name: "the list failed", triggers: cdiTriggers, fact: func(f *TriggerFact) { f.Err = "the server is currently unable to handle the request" },
			want: ProofNoProgress, wantWords: []string{"could not tell whether a CDI.cdi.kubevirt.io object exists: the server is currently unable"}},
		{name: "origin unknown", triggers: func(schema.GroupKind) []crds.Trigger { return nil },
			want: ProofNoProgress, wantWords: []string{"the origin of StorageProfile.cdi.kubevirt.io is unknown"}},
		{name: "no triggers given", want: ProofNoProgress, wantWords: []string{"origin of StorageProfile.cdi.kubevirt.io is unknown"}},
		{name: "another Kustomization may still apply a trigger", triggers: cdiTriggers,
			others: []flux.Object{node("elsewhere", true)},
			want:   ProofNoProgress, wantWords: []string{"Kustomization flux-system/elsewhere is not Ready and does not wait on flux-system/platform-config"}},
		{name: "one of two operators has its trigger", triggers: func(gk schema.GroupKind) []crds.Trigger {
			return []crds.Trigger{{Kind: schema.GroupKind{Group: "other.io", Kind: "Other"}, From: "the catalog's other entry"}, {Kind: cdiGK, From: "the catalog's cdi entry"}}
		}, fact: func(f *TriggerFact) {
			if f.Kind == cdiGK {
				f.Object = "cdi"
			}
		}, want: ProofNoProgress, wantWords: []string{"a CDI.cdi.kubevirt.io object exists (cdi, trigger from the catalog's cdi entry)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, evs := proofScene(t, Options{Triggers: tt.triggers, NoUnsuspend: true}, tt.others...)
			if p := proofOf(evs); p != nil && p.Kind != ProofCertain {
				t.Fatalf("proven before the facts: %+v", p)
			}
			wanted := w.TriggersWanted()
			if (tt.fact != nil) != (len(wanted) > 0) {
				t.Fatalf("trigger facts asked for: %v; want some: %v", wanted, tt.fact != nil)
			}
			for _, gk := range wanted {
				f := TriggerFact{Kind: gk}
				tt.fact(&f)
				w.ObserveTrigger(f)
			}
			// The loop reads the facts at once and steps again: a certain
			// proof comes then, with no wait.
			act, evs, _ := w.Step(t0.Add(time.Second + 20*time.Millisecond))
			proof := proofOf(evs)
			if tt.want == ProofNoProgress {
				none(t, act)
				if proof != nil {
					t.Fatalf("acted on before the quiet window: %+v", proof)
				}
				quietEnd := t0.Add(time.Second + DefaultOperatorQuiet)
				act, evs, _ = w.Step(quietEnd.Add(-time.Millisecond))
				none(t, act)
				if proof = proofOf(evs); proof != nil {
					t.Fatalf("acted on before the quiet window ended: %+v", proof)
				}
				msg := w.nodes[ksID("platform-config")].message
				if !strings.Contains(msg, tt.wantWords[0]) {
					t.Errorf("node message %q does not say why it waits: %q", msg, tt.wantWords[0])
				}
				act, evs, _ = w.Step(quietEnd)
				proof = proofOf(evs)
			}
			only(t, act, ActionPreApplyCRDs, "platform-config")
			if proof == nil || proof.Kind != tt.want {
				t.Fatalf("proof %+v, want %s", proof, tt.want)
			}
			for _, word := range tt.wantWords {
				if !strings.Contains(proof.Reason, word) {
					t.Errorf("proof reason %q does not say %q", proof.Reason, word)
				}
			}
		})
	}
}

// TestWalkerProofWaitsForTheRestToSettle: a Kustomization that could still
// apply a trigger holds the certain proof back only until it is Ready; the
// facts are then read afresh, since it may have applied one on its way.
func TestWalkerProofWaitsForTheRestToSettle(t *testing.T) {
	other := node("elsewhere", false)
	w, _ := proofScene(t, Options{Triggers: cdiTriggers}, other)
	if got := w.TriggersWanted(); len(got) != 0 {
		t.Fatalf("facts asked for while elsewhere may still apply a trigger: %v", got)
	}
	kick := w.nodes[ksID("elsewhere")].token
	w.ObserveObject(readyAt(other, kick))
	_, evs, _ := w.Step(t0.Add(1500 * time.Millisecond))
	if proofOf(evs) != nil {
		t.Fatal("proven without the facts")
	}
	wanted := w.TriggersWanted()
	if !slices.Equal(wanted, []schema.GroupKind{cdiGK}) {
		t.Fatalf("facts asked for: %v, want CDI's", wanted)
	}
	w.ObserveTrigger(TriggerFact{Kind: cdiGK})
	act, evs, _ := w.Step(t0.Add(1600 * time.Millisecond))
	only(t, act, ActionPreApplyCRDs, "platform-config")
	if p := proofOf(evs); p == nil || p.Kind != ProofCertain {
		t.Fatalf("proof %+v, want certain", p)
	}
}

// TestWalkerProofDropsStaleFacts: facts gathered before something that may
// have applied a trigger (another Kustomization changing while not waiting
// on the stuck one) prove nothing; they are asked for again.
func TestWalkerProofDropsStaleFacts(t *testing.T) {
	other := readyAt(node("elsewhere", false), "")
	w, _ := proofScene(t, Options{Triggers: cdiTriggers}, other)
	wanted := w.TriggersWanted()
	if len(wanted) != 1 {
		t.Fatalf("facts asked for: %v", wanted)
	}
	// elsewhere reconciles again, and is Ready again, before the fact is
	// fed: it may have applied a CDI the list missed.
	again := other
	again.LastHandledReconcileAt, again.RequestedAt = "later", "later"
	w.ObserveTrigger(TriggerFact{Kind: cdiGK})
	w.ObserveObject(again)
	_, evs, _ := w.Step(t0.Add(1100 * time.Millisecond))
	if p := proofOf(evs); p != nil {
		t.Fatalf("proven on stale facts: %+v", p)
	}
	if wanted := w.TriggersWanted(); !slices.Equal(wanted, []schema.GroupKind{cdiGK}) {
		t.Fatalf("facts asked for again: %v, want CDI's", wanted)
	}
	w.ObserveTrigger(TriggerFact{Kind: cdiGK, Object: "cdi"})
	_, evs, _ = w.Step(t0.Add(1200 * time.Millisecond))
	if p := proofOf(evs); p != nil {
		t.Fatalf("a CDI exists now, yet proven: %+v", p)
	}
}

// TestWalkerProofKeepsTheSafetyOfTheRace: with a wait (a CDI exists), the
// operator creating the CRD within it clears the suspicion: standup asks
// again and pre-applies nothing.
func TestWalkerProofKeepsTheSafetyOfTheRace(t *testing.T) {
	w, _ := proofScene(t, Options{Triggers: cdiTriggers})
	for _, gk := range w.TriggersWanted() {
		w.ObserveTrigger(TriggerFact{Kind: gk, Object: "cdi"})
	}
	act, _, _ := w.Step(t0.Add(1100 * time.Millisecond))
	none(t, act)
	w.ObserveCRD(spCRD, spGK, true)
	act, evs, _ := w.Step(t0.Add(2 * time.Second))
	only(t, act, ActionReconcile, "platform-config")
	if proofOf(evs) != nil {
		t.Fatal("proven although the operator created the CRD")
	}
}

// TestWalkerProofNeverReusesAnEarlierProofsFacts: the seed's second
// deadlock (apps-vms on DataVolume, once platform-config applied the CDI)
// must not be proven on the facts gathered for the first (no CDI then).
func TestWalkerProofNeverReusesAnEarlierProofsFacts(t *testing.T) {
	dvGK := schema.GroupKind{Group: "cdi.kubevirt.io", Kind: "DataVolume"}
	triggers := func(gk schema.GroupKind) []crds.Trigger {
		if gk == spGK || gk == dvGK {
			return []crds.Trigger{{Kind: cdiGK, From: "standup.yaml"}}
		}
		return nil
	}
	w, _ := proofScene(t, Options{Triggers: triggers})
	for _, gk := range w.TriggersWanted() {
		w.ObserveTrigger(TriggerFact{Kind: gk})
	}
	act, _, _ := w.Step(t0.Add(1100 * time.Millisecond))
	pre := only(t, act, ActionPreApplyCRDs, "platform-config")
	w.Done(ActionResult{Action: pre, Applied: []string{spCRD}})
	w.ObserveCRD(spCRD, spGK, true)
	act, _, _ = w.Step(t0.Add(1200 * time.Millisecond))
	again := only(t, act, ActionReconcile, "platform-config")
	w.ObserveObject(readyAt(node("platform-config", false, "platform"), again.Token))
	act, _, _ = w.Step(t0.Add(2 * time.Second))
	kick := only(t, act, ActionReconcile, "apps-vms")
	w.ObserveObject(handled(node("apps-vms", false, "platform-config"), kick.Token, "False", "ReconciliationFailed",
		`DataVolume/vms/disk dry-run failed: no matches for kind "DataVolume" in version "cdi.kubevirt.io/v1beta1"`))
	act, evs, _ := w.Step(t0.Add(3 * time.Second))
	none(t, act)
	if p := proofOf(evs); p != nil {
		t.Fatalf("apps-vms proven on platform-config's facts: %+v", p)
	}
	if wanted := w.TriggersWanted(); !slices.Equal(wanted, []schema.GroupKind{cdiGK}) {
		t.Fatalf("facts asked for: %v, want CDI's afresh", wanted)
	}
	w.ObserveTrigger(TriggerFact{Kind: cdiGK, Object: "cdi"})
	act, evs, _ = w.Step(t0.Add(3100 * time.Millisecond))
	none(t, act)
	if p := proofOf(evs); p != nil {
		t.Fatalf("the CDI platform-config applied exists, yet proven: %+v", p)
	}
}

// TestWalkerProofReadsAppliedTriggersFromInventories: a trigger object a
// Kustomization applied is in its inventory, so the walk waits for its
// operator without a list to tell it exists (the seed's apps-vms, once
// platform-config applied the CDI).
func TestWalkerProofReadsAppliedTriggersFromInventories(t *testing.T) {
	applier := readyAt(node("applier", false), "")
	applier.Inventory = []string{"_cdi_cdi.kubevirt.io_CDI", "ns_cm__ConfigMap"}
	w, _ := proofScene(t, Options{Triggers: cdiTriggers}, applier)
	if wanted := w.TriggersWanted(); len(wanted) != 0 {
		t.Fatalf("listed %v although an inventory shows a CDI", wanted)
	}
	if msg, want := w.nodes[ksID("platform-config")].message, "a CDI.cdi.kubevirt.io object exists (cdi, applied by Kustomization flux-system/applier; trigger from standup.yaml)"; !strings.Contains(msg, want) {
		t.Fatalf("message %q does not say %q", msg, want)
	}
	act, evs, _ := w.Step(t0.Add(time.Second + DefaultOperatorQuiet))
	only(t, act, ActionPreApplyCRDs, "platform-config")
	if p := proofOf(evs); p == nil || p.Kind != ProofNoProgress {
		t.Fatalf("proof %+v, want no progress", p)
	}
}
