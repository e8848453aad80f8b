package wait

import (
	"slices"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

var (
	gadgetCRD = "gadgets.standup.test"
	gadgetGK  = schema.GroupKind{Group: "standup.test", Kind: "Gadget"}
)

func rsetID(name string) tiers.ID {
	return tiers.ID{Kind: flux.KindResourceSet, Namespace: "flux-system", Name: name}
}

// rset is a ResourceSet the Operator has not reconciled, disabled or not,
// with a dependsOn on the CRD gadgets.standup.test (ready: true).
func rset(name string, disabled bool) flux.Object {
	return flux.Object{Node: tiers.Node{ID: rsetID(name)}, Suspended: disabled, Generation: 1, Timeout: time.Minute,
		Requires: []flux.Requirement{{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: gadgetCRD, Ready: true}}}
}

// rsetReady is o after the Operator handled token and applied it.
func rsetReady(o flux.Object, token string, inventory ...string) flux.Object {
	o.Suspended = false
	o.RequestedAt, o.LastHandledReconcileAt = token, token
	o.ObservedGeneration = o.Generation
	o.Ready = &flux.Condition{Status: "True", Reason: meta.ReconciliationSucceededReason, Message: "Reconciliation finished in 1s"}
	o.LastAppliedRevision = "sha256:1"
	o.Inventory = inventory
	return o
}

// TestWalkerResourceSet: a ResourceSet is held while the CRD its dependsOn
// names is absent or not Established, is then resumed and asked to
// reconcile in one patch, counts as Ready only once the Operator handled
// that request at its generation, and the Kustomizations its inventory
// lists keep the walk open until they are seen and walked, each after its
// dependency, as generated Kustomizations naming it as their applier.
func TestWalkerResourceSet(t *testing.T) {
	set := rset("tenants", true)
	w := newTestWalker(Options{Kinds: []string{flux.KindKustomization, flux.KindResourceSet}}, set)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	act, _, _ := w.Step(at(0))
	none(t, act)
	if got, _ := w.Phase(set.ID); got != PhasePending {
		t.Fatalf("phase with the CRD absent = %s, want Pending", got)
	}
	w.ObserveCRD(gadgetCRD, gadgetGK, false)
	act, _, _ = w.Step(at(1))
	none(t, act)
	w.ObserveCRD(gadgetCRD, gadgetGK, true)
	act, _, _ = w.Step(at(2))
	if len(act) != 1 || act[0].Kind != ActionReconcile || act[0].Node != set.ID || !act[0].Unsuspend {
		t.Fatalf("actions once the CRD is Established = %+v, want one reconcile of %s that resumes it", act, set.ID)
	}
	token := act[0].Token

	// Ready at an older generation, or for another request, is not this reconcile's.
	stale := rsetReady(set, token)
	stale.ObservedGeneration = 0
	w.ObserveObject(stale)
	w.Step(at(3))
	if got, _ := w.Phase(set.ID); got == PhaseReady {
		t.Fatal("Ready at observedGeneration 0 of generation 1 counted")
	}
	w.ObserveObject(rsetReady(set, token,
		"flux-system_infra-controllers_kustomize.toolkit.fluxcd.io_Kustomization",
		"flux-system_infra-configs_kustomize.toolkit.fluxcd.io_Kustomization"))
	w.Step(at(4))
	if got, _ := w.Phase(set.ID); got != PhaseReady {
		t.Fatalf("phase after the handled request = %s, want Ready", got)
	}
	if w.Finished() {
		t.Fatal("walk finished before the Kustomizations the ResourceSet applied were seen")
	}

	controllers, configs := node("infra-controllers", false), node("infra-configs", false, "infra-controllers")
	controllers.AppliedBy, configs.AppliedBy = &set.ID, &set.ID
	w.ObserveObject(controllers)
	w.ObserveObject(configs)
	act, _, _ = w.Step(at(5))
	kick := only(t, act, ActionReconcile, "infra-controllers")
	phase(t, w, "infra-configs", PhasePending)
	w.ObserveObject(readyAt(controllers, kick.Token))
	act, _, _ = w.Step(at(6))
	kick = only(t, act, ActionReconcile, "infra-configs")
	w.ObserveObject(readyAt(configs, kick.Token))
	w.Step(at(7))
	if !w.Finished() {
		t.Fatal("walk not finished after both generated Kustomizations are Ready")
	}
}

// TestReadyForResourceSetDependents: the Operator's dependency check has
// no revision gate, and an entry without ready asks only for existence.
func TestReadyForResourceSetDependents(t *testing.T) {
	dependent := rset("apps", false)
	stale := readyAt(node("infra", false), "t")
	stale.LastAppliedRevision = "main@sha1:old"
	tests := []struct {
		name string
		dep  flux.Object
		want bool
	}{
		{name: "Kustomization Ready at an old revision", dep: stale, want: true},
		{name: "Kustomization not Ready", dep: node("infra", false), want: false},
		{name: "ResourceSet Ready at its generation", dep: rsetReady(rset("infra", false), "t"), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, why := ReadyForDependents(tt.dep, dependent, walkRev); got != tt.want {
				t.Errorf("ReadyForDependents = %v (%s), want %v", got, why, tt.want)
			}
		})
	}

	// Existence only: a dependency never Ready does not hold the ResourceSet.
	set := rset("apps", false)
	set.Requires = nil
	set.DependsOn = []tiers.Dependency{{ID: ksID("infra"), ExistsOnly: true}}
	w := newTestWalker(Options{Kinds: []string{flux.KindKustomization, flux.KindResourceSet}, Selection: tiers.Selection{Only: []string{"flux-system/apps"}}}, set, node("infra", true))
	act, _, _ := w.Step(t0)
	if !slices.ContainsFunc(act, func(a Action) bool { return a.Node == set.ID }) {
		t.Fatalf("actions = %+v, want the ResourceSet asked at once, its dependency not Ready (it exists)", act)
	}
}

// TestClassifySuspendedNamesTheSwitch: a paused node's message names what
// paused it: spec.suspend, or a ResourceSet's Operator annotation.
func TestClassifySuspendedNamesTheSwitch(t *testing.T) {
	tests := []struct {
		name string
		obj  flux.Object
		want string
	}{
		{name: "Kustomization", obj: flux.Object{Node: tiers.Node{ID: tiers.ID{Kind: flux.KindKustomization, Namespace: "ns", Name: "a"}}, Suspended: true}, want: "spec.suspend is true"},
		{name: "ResourceSet", obj: rset("a", true), want: "fluxcd.controlplane.io/reconcile is disabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.obj); got.State != Suspended || got.Message != tt.want {
				t.Errorf("Classify = %+v, want Suspended: %q", got, tt.want)
			}
		})
	}
}
