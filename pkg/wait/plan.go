package wait

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// The actions of a PlanStep.
const (
	// PlanNone leaves the node alone: Ready at its source's revision, or
	// outside the selection (passive).
	PlanNone = "none"
	// PlanReconcile asks the node to reconcile.
	PlanReconcile = "reconcile"
	// PlanResume resumes a suspended node and asks it to reconcile, in one patch.
	PlanResume = "resume+reconcile"
	// PlanSkip leaves a suspended node suspended (--no-unsuspend).
	PlanSkip = "skip"
)

// PlanStep is what a walk would do to one node, as --dry-run prints it.
// It is not an Action: a plan also names the nodes a walk leaves alone
// ("none", "skip", passive ancestors) and each node's tier, and its JSON is
// what `resume --dry-run -o json` prints, one step a line.
type PlanStep struct {
	Node tiers.ID `json:"node"`
	Tier int      `json:"tier"`
	// Action is PlanNone, PlanReconcile, PlanResume or PlanSkip.
	Action string `json:"action"`
	// Passive nodes are waited on but never touched (ancestors under --from, --exclude).
	Passive bool `json:"passive,omitempty"`
	// Why says, for people, why the node gets its action: "already Ready
	// at main@sha1:…", "not Ready (ReconciliationFailed): …", "suspended".
	Why string `json:"why,omitempty"`
	// Revision is the revision the node is Ready at (action none), or the
	// one its source serves now, which a reconcile would apply.
	Revision string `json:"revision,omitempty"`
	// Deadlock is set when the node is stuck now on a server-side dry-run
	// of a kind the cluster does not serve: the cold-start deadlock the
	// walk would prove and repair.
	Deadlock *PlanDeadlock `json:"deadlock,omitempty"`
}

// PlanDeadlock is a cold-start deadlock a walk would meet: the diagnosis
// from the node's live status, the bundle CRDs it would pre-apply once the
// deadlock is proven, and how the proof would go if asked now.
type PlanDeadlock struct {
	Diagnosis crds.Diagnosis `json:"diagnosis"`
	// Create names the bundle CRDs the walk would create, with their files;
	// empty when the bundle lacks one (Resolvable false) or with
	// NoRemediate.
	Create []PlanCRD `json:"create"`
	// Resolvable: the bundle holds a CRD for every missing kind.
	Resolvable bool `json:"resolvable"`
	// Remediate: the walk would pre-apply them (not --no-remediate, and a
	// bundle was given).
	Remediate bool `json:"remediate"`
	// Proof is how the walk would prove the deadlock, from what the
	// cluster holds now: ProofCertain, or else ProofNoProgress, its reason
	// saying that the operator timeout may end the wait first.
	Proof Proof `json:"proof"`
	// Spoke is the kubeConfig Secret (namespace/name) of the spoke the
	// kinds are missing on and the CRDs would be created on; "" for the
	// cluster standup connected to.
	Spoke string `json:"spoke,omitempty"`
	// Unreached is the kubeConfig Secret (namespace/name) of the spoke
	// the node applies to when standup could not read it or reach its
	// cluster: the kinds were looked up on the hub (the hub's view), and
	// nothing would be created for it, on the hub or the spoke.
	Unreached string `json:"unreached,omitempty"`
}

// PlanCRD is a bundle CRD a plan would create.
type PlanCRD struct {
	Name string `json:"name"`
	File string `json:"file"`
}

// PlanInput is what Plan reads: the nodes, their sources' revisions, the
// cluster's CRDs (a node stuck on a kind none of them serves is a
// deadlock), and the facts a proof asks for.
type PlanInput struct {
	Objects []flux.Object
	Sources map[tiers.ID]string
	CRDs    []*apiextensionsv1.CustomResourceDefinition
	// Facts answers what the cluster holds of a trigger kind, as the
	// walk's Loop does (a list of the kind, limit 1); nil answers that the
	// kind could not be read, so a proof would wait for an operator.
	Facts func(schema.GroupKind) TriggerFact
	// Spokes are CRDs and Facts of each spoke of Options.Spokes, by its
	// kubeConfig Secret: a node applying to one is diagnosed on it.
	Spokes map[string]PlanSpoke
}

// PlanSpoke is what Plan reads of a spoke: its CRDs, and its trigger facts.
type PlanSpoke struct {
	CRDs  []*apiextensionsv1.CustomResourceDefinition
	Facts func(schema.GroupKind) TriggerFact
}

// Plan returns, in walk order, what a walk would do to every selected node
// given what the cluster holds now. It mutates nothing.
func Plan(in PlanInput, opts Options) ([]PlanStep, error) {
	w := NewWalker(opts, timeZero)
	for _, o := range in.Objects {
		w.ObserveObject(o)
	}
	for id, rev := range in.Sources {
		w.ObserveSource(id, rev)
	}
	if err := w.rebuild(); err != nil {
		return nil, err
	}
	lookups := map[string]crds.CRDLookup{"": crds.Presence(in.CRDs)}
	for secret, s := range in.Spokes {
		lookups[secret] = crds.Presence(s.CRDs)
	}
	var steps []PlanStep
	for _, id := range w.graph.Order() {
		obj := w.objs[id]
		step := PlanStep{Node: id, Tier: w.tierOf(id), Passive: !w.active(id)}
		if step.Passive && !w.sel.Needed(w.graph, id) {
			continue
		}
		step.Action, step.Why, step.Revision = w.planAction(obj, step.Passive)
		if !step.Passive && step.Action != PlanNone {
			cluster := w.clusterOf(id)
			facts := in.Facts
			if cluster != "" {
				facts = in.Spokes[cluster].Facts
			}
			if d, ok := crds.Diagnose(obj, lookups[cluster], w.bundleFor(id)); ok && d.Deadlocked() {
				step.Deadlock = w.planDeadlock(id, d, facts)
			}
		}
		steps = append(steps, step)
	}
	return steps, nil
}

// planAction is what the walk would do to obj, why, and the revision that
// says it.
func (w *Walker) planAction(obj flux.Object, passive bool) (action, why, revision string) {
	source := w.sources[obj.RevisionSource()]
	ready := w.readySelf(obj)
	switch {
	case passive && ready:
		return PlanNone, "outside the selection; Ready at " + orNone(obj.LastAppliedRevision), obj.LastAppliedRevision
	case passive:
		return PlanNone, "outside the selection; " + notReady(obj, source) + ": what depends on it waits until it is Ready", ""
	case !obj.Suspended && ready:
		return PlanNone, "already Ready at " + orNone(obj.LastAppliedRevision), obj.LastAppliedRevision
	case obj.Suspended && w.opts.NoUnsuspend:
		return PlanSkip, "suspended, and --no-unsuspend: what depends on it is blocked", ""
	case obj.Suspended:
		return PlanResume, "suspended; " + notReady(obj, source), source
	}
	return PlanReconcile, notReady(obj, source), source
}

// notReady says why a node is not ready for its dependents, as Flux sees it.
func notReady(obj flux.Object, source string) string {
	switch {
	case obj.Ready == nil:
		return "never reconciled"
	case obj.Ready.Status != "True":
		return fmt.Sprintf("not Ready (%s): %s", obj.Ready.Reason, firstLine(obj.Ready.Message))
	case obj.Generation != obj.ObservedGeneration:
		return fmt.Sprintf("its spec changed since it was last applied (generation %d, observed %d)", obj.Generation, obj.ObservedGeneration)
	case source == "":
		return "Ready at " + orNone(obj.LastAppliedRevision) + ", but its source has no artifact"
	}
	return "Ready at " + orNone(obj.LastAppliedRevision) + "; its source is at " + source
}

func orNone(rev string) string {
	if rev == "" {
		return "no revision"
	}
	return rev
}

// planDeadlock is the deadlock of the node id, stuck on d now: what the
// walk would create, and how it would prove it, asked now.
func (w *Walker) planDeadlock(id tiers.ID, d crds.Diagnosis, facts func(schema.GroupKind) TriggerFact) *PlanDeadlock {
	bundle := w.bundleFor(id)
	secret, unreached := w.unreached(id)
	pd := &PlanDeadlock{Diagnosis: d, Create: []PlanCRD{}, Resolvable: len(d.Unresolvable()) == 0,
		Remediate: !w.opts.NoRemediate && bundle != nil && !unreached, Spoke: w.clusterOf(id), Unreached: secret}
	if entries, err := crds.PlanPreApply(d, bundle); err == nil && pd.Remediate {
		for _, e := range entries {
			pd.Create = append(pd.Create, PlanCRD{Name: e.CRD.Name, File: e.File})
		}
	}
	st := w.nodes[id]
	st.unsettled = w.seq // only facts gathered from now count
	certain, why := w.certainty(id, st, &d)
	wanted := w.TriggersWanted()
	if pd.Spoke != "" {
		wanted = w.SpokeTriggersWanted()[pd.Spoke]
	}
	if len(wanted) > 0 {
		for _, gk := range wanted {
			f := TriggerFact{Kind: gk, Err: "not read"}
			if facts != nil {
				f = facts(gk)
			}
			f.Kind, f.Cluster = gk, pd.Spoke
			w.ObserveTrigger(f)
		}
		certain, why = w.certainty(id, st, &d)
	}
	triggers, _ := w.triggersOf(&d)
	timeout, _ := w.operatorTimeout(triggers)
	pd.Proof = Proof{Kind: ProofNoProgress, Reason: fmt.Sprintf("not certain now, so the walk would wait while an operator shows progress, and act on the deadlock after %s without progress (%s), or after %s in all (%s): %s",
		w.opts.OperatorQuiet, ProofNoProgress, timeout, ProofOperatorTimeout, why)}
	if certain {
		pd.Proof = Proof{Kind: ProofCertain, Reason: "nothing can create the missing CRDs: " + why}
	}
	return pd
}

// PlanSummary counts a plan's writes: reconcile requests (every step that
// reconciles, resumed or not), resumes among them, and CRDs to create.
type PlanSummary struct {
	Reconciles, Resumes, CRDs, Deadlocks, Unresolvable int
}

// Summarize counts what the plan steps would write.
func Summarize(steps []PlanStep) PlanSummary {
	var s PlanSummary
	seen := map[string]bool{}
	for _, st := range steps {
		switch st.Action {
		case PlanResume:
			s.Resumes++
			s.Reconciles++
		case PlanReconcile:
			s.Reconciles++
		}
		if st.Deadlock == nil {
			continue
		}
		s.Deadlocks++
		if !st.Deadlock.Resolvable {
			s.Unresolvable++
		}
		for _, c := range st.Deadlock.Create {
			if !seen[c.Name] {
				seen[c.Name] = true
				s.CRDs++
			}
		}
	}
	return s
}
