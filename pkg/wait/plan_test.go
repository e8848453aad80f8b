package wait

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// planCDI is the trigger of StorageProfile's CRD (cdi-operator creates it
// once a CDI object exists), as standup.yaml names it.
var planCDI = schema.GroupKind{Group: "cdi.kubevirt.io", Kind: "CDI"}

func planTriggers(gk schema.GroupKind) []crds.Trigger {
	if gk == spGK {
		return []crds.Trigger{{Kind: planCDI, From: "standup.yaml"}}
	}
	return nil
}

// stuckOnStorageProfile is platform-config as Flux alone leaves it on a
// cold cluster: its dry-run failed on StorageProfile.
func stuckOnStorageProfile() flux.Object {
	o := node("platform-config", false, "root")
	o.ObservedGeneration = 1
	o.Ready = &flux.Condition{Status: "False", Reason: "ReconciliationFailed", Message: dryRun}
	return o
}

// TestPlanSaysWhatAndWhy: each node's action comes with why; a node stuck
// on a dry-run of a kind the cluster does not serve carries the deadlock,
// the bundle CRD the walk would create, and how it would prove it now.
func TestPlanSaysWhatAndWhy(t *testing.T) {
	bundle, err := crds.LoadBundle("../../examples/homelab-deadlock/bootstrap/crds")
	if err != nil {
		t.Fatal(err)
	}
	root := readyAt(node("root", false), "")
	vms := node("apps-vms", true, "platform-config")
	objs := []flux.Object{root, stuckOnStorageProfile(), vms}
	sources := map[tiers.ID]string{repo: walkRev}
	var asked []schema.GroupKind
	facts := func(gk schema.GroupKind) TriggerFact {
		asked = append(asked, gk)
		return TriggerFact{Kind: gk} // the CRD exists, no object of it
	}
	steps, err := Plan(PlanInput{Objects: objs, Sources: sources, Facts: facts}, Options{Bundle: bundle, Triggers: planTriggers})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]PlanStep{}
	for _, s := range steps {
		byName[s.Node.Name] = s
	}
	if s := byName["root"]; s.Action != PlanNone || s.Why != "already Ready at "+walkRev || s.Revision != walkRev {
		t.Errorf("root: %+v", s)
	}
	if s := byName["apps-vms"]; s.Action != PlanResume || !strings.HasPrefix(s.Why, "suspended; never reconciled") || s.Deadlock != nil {
		t.Errorf("apps-vms: %+v", s)
	}
	pc := byName["platform-config"]
	if pc.Action != PlanReconcile || !strings.HasPrefix(pc.Why, "not Ready (ReconciliationFailed): StorageProfile/longhorn dry-run failed") || pc.Revision != walkRev {
		t.Fatalf("platform-config: %+v", pc)
	}
	d := pc.Deadlock
	if d == nil || !d.Resolvable || !d.Remediate || len(d.Create) != 1 || d.Create[0].Name != spCRD || !strings.HasSuffix(d.Create[0].File, spCRD+".yaml") {
		t.Fatalf("platform-config's deadlock: %+v", d)
	}
	if d.Proof.Kind != ProofCertain || !strings.Contains(d.Proof.Reason, "no CDI.cdi.kubevirt.io object exists") || len(asked) != 1 || asked[0] != planCDI {
		t.Errorf("proof %+v after asking %v, want certain after asking for CDI", d.Proof, asked)
	}

	// A CDI object exists: the walk would wait while its operator shows
	// progress, and say that it would.
	facts = func(gk schema.GroupKind) TriggerFact { return TriggerFact{Kind: gk, Object: "cdi"} }
	steps, err = Plan(PlanInput{Objects: objs, Sources: sources, Facts: facts}, Options{Bundle: bundle, Triggers: planTriggers})
	if err != nil {
		t.Fatal(err)
	}
	if d := steps[1].Deadlock; d == nil || d.Proof.Kind != ProofNoProgress || !strings.Contains(d.Proof.Reason, "a CDI.cdi.kubevirt.io object exists (cdi") ||
		!strings.Contains(d.Proof.Reason, "after 30s without progress") || !strings.Contains(d.Proof.Reason, "after 2m0s in all") {
		t.Errorf("with a CDI object: %+v", steps[1])
	}

	// No bundle: the deadlock is named, nothing would be created.
	steps, err = Plan(PlanInput{Objects: objs, Sources: sources}, Options{NoRemediate: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := steps[1].Deadlock; d == nil || d.Resolvable || d.Remediate || len(d.Create) != 0 || d.Proof.Kind != ProofNoProgress {
		t.Errorf("without a bundle: %+v", d)
	}
	if s := Summarize(steps); s.Reconciles != 2 || s.Resumes != 1 || s.CRDs != 0 || s.Deadlocks != 1 || s.Unresolvable != 1 {
		t.Errorf("Summarize = %+v", s)
	}
}

// TestPlanWhyNotReady: a reconcile says why the node is not ready for its
// dependents, as Flux sees it.
func TestPlanWhyNotReady(t *testing.T) {
	stale := readyAt(node("stale", false), "")
	stale.LastAppliedRevision = "main@sha1:0000"
	changed := readyAt(node("changed", false), "")
	changed.Generation = 2
	tests := []struct {
		obj  flux.Object
		want string
	}{
		{node("new", false), "never reconciled"},
		{stale, "Ready at main@sha1:0000; its source is at " + walkRev},
		{changed, "its spec changed since it was last applied (generation 2, observed 1)"},
	}
	for _, tt := range tests {
		steps, err := Plan(PlanInput{Objects: []flux.Object{tt.obj}, Sources: map[tiers.ID]string{repo: walkRev}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(steps) != 1 || steps[0].Action != PlanReconcile || steps[0].Why != tt.want {
			t.Errorf("%s: %+v, want reconcile: %s", tt.obj.ID.Name, steps, tt.want)
		}
	}
}

// TestPlanJudgesASpokeNodeWhereItApplies: a node with spec.kubeConfig is
// diagnosed on its spoke when the walk reaches it (the hub serving the
// kind changes nothing), its CRD created there from the spoke's bundle;
// a spoke not reached leaves the node to the hub's view, the Secret named
// and nothing to create.
func TestPlanJudgesASpokeNodeWhereItApplies(t *testing.T) {
	bundle, err := crds.LoadBundle("../../examples/homelab-deadlock/bootstrap/crds")
	if err != nil {
		t.Fatal(err)
	}
	var served []*apiextensionsv1.CustomResourceDefinition // the bundle's CRDs, established
	for _, e := range bundle.All() {
		c := e.CRD.DeepCopy()
		c.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{
			{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue},
			{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue},
		}
		served = append(served, c)
	}
	objs := []flux.Object{readyAt(node("root", false), ""), onSpoke(stuckOnStorageProfile())}
	sources := map[tiers.ID]string{repo: walkRev}
	noObject := func(gk schema.GroupKind) TriggerFact { return TriggerFact{Kind: gk} }
	tests := []struct {
		name                   string
		in                     PlanInput
		opts                   Options
		wantSpoke, wantUnreach string
		wantCreate             int
		wantNone               bool
	}{
		{name: "reached: on the spoke, from its bundle",
			in:   PlanInput{CRDs: served, Spokes: map[string]PlanSpoke{spokeSecret: {Facts: noObject}}},
			opts: Options{Spokes: map[string]SpokeView{spokeSecret: {Name: "spoke-kubeconfig", Bundle: bundle}}}, wantSpoke: spokeSecret, wantCreate: 1},
		{name: "reached, the spoke serving the kind: no deadlock",
			in:   PlanInput{Spokes: map[string]PlanSpoke{spokeSecret: {CRDs: served, Facts: noObject}}},
			opts: Options{Spokes: map[string]SpokeView{spokeSecret: {Name: "spoke-kubeconfig", Bundle: bundle}}}, wantNone: true},
		{name: "unreached: the hub's view, nothing created", in: PlanInput{Facts: noObject}, opts: Options{Bundle: bundle}, wantUnreach: spokeSecret},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.Objects, in.Sources = objs, sources
			tt.opts.Triggers = planTriggers
			steps, err := Plan(in, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			d := steps[1].Deadlock
			if tt.wantNone {
				if d != nil {
					t.Fatalf("a deadlock although the spoke serves the kind: %+v", d)
				}
				return
			}
			if d == nil || d.Spoke != tt.wantSpoke || d.Unreached != tt.wantUnreach || len(d.Create) != tt.wantCreate || d.Remediate != (tt.wantCreate > 0) {
				t.Fatalf("deadlock %+v: want spoke %q, unreached %q, %d CRDs to create", d, tt.wantSpoke, tt.wantUnreach, tt.wantCreate)
			}
		})
	}
}
