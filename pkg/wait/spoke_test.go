package wait

import (
	"strings"
	"testing"
	"time"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
)

const spokeSecret = "flux-system/spoke-kubeconfig"

// onSpoke is o applying to the spoke through its kubeConfig Secret.
func onSpoke(o flux.Object) flux.Object {
	o.KubeConfig = &flux.KubeConfigRef{SecretName: "spoke-kubeconfig"}
	return o
}

// spokeDeadlock walks platform-config, which applies to the spoke and
// fails its dry-run on StorageProfile, with the hub serving the kind and
// the spoke not (on: the facts the proof reads, on the spoke when
// reached); it returns the walker and the events and actions of the Step
// that decides.
func spokeDeadlock(t *testing.T, opts Options) (*Walker, []Event, []Action) {
	t.Helper()
	opts.Triggers = cdiTriggers
	pc := onSpoke(node("platform-config", false))
	w := newTestWalker(opts, pc)
	w.ObserveCRD(spCRD, spGK, true) // the hub serves the kind: it is not where it is missing
	act, _, _ := w.Step(t0)
	first := only(t, act, ActionReconcile, "platform-config")
	w.ObserveObject(handled(pc, first.Token, "False", "ReconciliationFailed", dryRun))
	act, evs, _ := w.Step(t0.Add(time.Second))
	if spoke := w.SpokeTriggersWanted()[spokeSecret]; len(spoke) > 0 {
		if len(w.TriggersWanted()) > 0 {
			t.Fatalf("a spoke's deadlock asked the hub for trigger facts")
		}
		for _, gk := range spoke {
			w.ObserveTrigger(TriggerFact{Kind: gk, Cluster: spokeSecret, CRDAbsent: true})
		}
		act, evs, _ = w.Step(t0.Add(2 * time.Second))
	}
	return w, evs, act
}

// TestWalkerSpokeDeadlockIsProvenAndRepairedOnTheSpoke: a node with
// spec.kubeConfig is diagnosed by the spoke's CRD watch (the hub serving
// the kind changes nothing), its proof reads the spoke's triggers, and the
// pre-apply is made on the spoke, from the spoke's bundle, named in the
// node's message; the CRD established on the spoke lets it go on.
func TestWalkerSpokeDeadlockIsProvenAndRepairedOnTheSpoke(t *testing.T) {
	bundle := &crds.Bundle{}
	w, evs, act := spokeDeadlock(t, Options{Spokes: map[string]SpokeView{spokeSecret: {Name: "spoke-kubeconfig", Bundle: bundle}}})
	pre := only(t, act, ActionPreApplyCRDs, "platform-config")
	if pre.Cluster != spokeSecret {
		t.Fatalf("pre-apply on %q, want the spoke %q", pre.Cluster, spokeSecret)
	}
	if p := proofOf(evs); p == nil || p.Kind != ProofCertain || !strings.Contains(p.Reason, "on cluster spoke-kubeconfig (Secret "+spokeSecret+")") {
		t.Fatalf("proof %+v: want a certain proof naming the spoke", p)
	}
	if msg := w.nodes[ksID("platform-config")].message; !strings.Contains(msg, "on cluster spoke-kubeconfig") {
		t.Errorf("node message %q does not name the spoke", msg)
	}
	w.Done(ActionResult{Action: pre, Applied: []string{spCRD}})
	act, _, _ = w.Step(t0.Add(3 * time.Second))
	none(t, act) // established on the hub, not yet on the spoke
	w.ObserveSpokeCRD(spokeSecret, spCRD, spGK, true)
	act, _, _ = w.Step(t0.Add(4 * time.Second))
	only(t, act, ActionReconcile, "platform-config")
}

// TestWalkerUnreachedSpokeIsJudgedByTheHubAndNeverRepaired: without the
// spoke (its Secret unread), the hub's view is all there is; a deadlock
// found there is reported, naming the Secret and the grant, and nothing is
// pre-applied (the hub is not the cluster the kind is missing on).
func TestWalkerUnreachedSpokeIsJudgedByTheHubAndNeverRepaired(t *testing.T) {
	pc := onSpoke(node("platform-config", false))
	w := newTestWalker(Options{Triggers: cdiTriggers}, pc)
	act, _, _ := w.Step(t0)
	first := only(t, act, ActionReconcile, "platform-config")
	w.ObserveObject(handled(pc, first.Token, "False", "ReconciliationFailed", dryRun))
	act, _, _ = w.Step(t0.Add(time.Second))
	none(t, act)
	if spoke := w.SpokeTriggersWanted(); len(spoke) > 0 {
		t.Fatalf("an unreached spoke was asked for facts: %v", spoke)
	}
	for _, gk := range w.TriggersWanted() {
		w.ObserveTrigger(TriggerFact{Kind: gk, CRDAbsent: true})
	}
	act, _, _ = w.Step(t0.Add(2 * time.Second))
	none(t, act)
	phase(t, w, "platform-config", PhaseFailed)
	msg := w.nodes[ksID("platform-config")].message
	for _, want := range []string{"Secret " + spokeSecret, "never on the hub", "grant get on secrets spoke-kubeconfig in namespace flux-system"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}
