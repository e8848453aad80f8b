package wait

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// ProofKind says what ended the wait for an operator and made standup
// treat a cold-start deadlock as one.
type ProofKind string

const (
	// ProofCertain: nothing could still create the missing CRDs (every
	// operator that creates them lacks its trigger object, and every
	// Kustomization not Ready waits on the failing one), so the deadlock is
	// proven the moment standup's own reconcile request fails. It is the
	// only proof that says "proven".
	ProofCertain ProofKind = "certain"
	// ProofNoProgress: certainty was out of reach, and no operator showed
	// progress for Options.OperatorQuiet (walker_operator.go): the
	// deadlock is treated as one, not proven.
	ProofNoProgress ProofKind = "no-progress"
	// ProofOperatorTimeout: certainty was out of reach, and the operator
	// was not done after Options.OperatorTimeout, progress or not: the
	// deadlock is treated as one, not proven.
	ProofOperatorTimeout ProofKind = "operator-timeout"
)

// Proof is what ended a diagnosis event's wait and made standup act on the
// deadlock, and why.
type Proof struct {
	Kind ProofKind `json:"kind"`
	// Reason says, for people, what made it certain, or what the wait
	// saw and why it was needed.
	Reason string `json:"reason"`
}

// TriggerFact is what the cluster holds of a trigger kind: the loop
// gathers it (a list of the kind, limit 1, and a CRD lookup) when the
// walker asks for it (TriggersWanted), and feeds it back (ObserveTrigger).
type TriggerFact struct {
	Kind schema.GroupKind
	// Cluster is the spoke the fact was read on (its kubeConfig Secret,
	// Options.Spokes); "" for the cluster standup connected to.
	Cluster string
	// Resource is the kind's plural.group, for messages; "" when unknown.
	Resource string
	// CRDAbsent: no established CRD serves the kind, so no object of it exists.
	CRDAbsent bool
	// Object names an object of the kind (namespace/name, or name) when
	// one exists.
	Object string
	// Refused: standup may not list the kind (RBAC).
	Refused bool
	// Err says why the list failed otherwise.
	Err string

	// asked is the observation count when the walker asked for the fact:
	// the fact is as fresh as that.
	asked uint64
}

// triggerKey is a trigger kind on a cluster: the hub ("") or a spoke.
type triggerKey struct {
	cluster string
	kind    schema.GroupKind
}

// TriggersWanted returns the trigger kinds whose facts the walker needs to
// prove a deadlock without waiting, on the cluster standup connected to,
// and counts them as asked for: the loop lists each and reports it with
// ObserveTrigger before the next Step. SpokeTriggersWanted asks the same
// of the spokes.
func (w *Walker) TriggersWanted() []schema.GroupKind { return w.triggersWantedOn("") }

// SpokeTriggersWanted is TriggersWanted for each spoke the walk reaches,
// by its kubeConfig Secret: the facts are read on the spoke, where the
// operator and its trigger objects run.
func (w *Walker) SpokeTriggersWanted() map[string][]schema.GroupKind {
	var out map[string][]schema.GroupKind
	for k := range w.wanted {
		if k.cluster == "" {
			continue
		}
		if out == nil {
			out = map[string][]schema.GroupKind{}
		}
		if _, ok := out[k.cluster]; !ok {
			out[k.cluster] = w.triggersWantedOn(k.cluster)
		}
	}
	return out
}

func (w *Walker) triggersWantedOn(cluster string) []schema.GroupKind {
	var out []schema.GroupKind
	for k := range w.wanted {
		if k.cluster != cluster {
			continue
		}
		out = append(out, k.kind)
		w.asked[k] = w.seq
		delete(w.wanted, k)
	}
	slices.SortFunc(out, func(a, b schema.GroupKind) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// ObserveTrigger records what a cluster (f.Cluster) holds of a trigger kind.
func (w *Walker) ObserveTrigger(f TriggerFact) {
	k := triggerKey{cluster: f.Cluster, kind: f.Kind}
	f.asked = w.seq
	if at, ok := w.asked[k]; ok {
		f.asked = at
	}
	w.facts[k] = f
	w.touchProving()
}

// touchProving touches the nodes whose deadlock awaits a proof, forgetting
// those that no longer do.
func (w *Walker) touchProving() {
	for id := range w.proving {
		if !w.awaitsProof(id) {
			delete(w.proving, id)
			continue
		}
		w.touch(id)
	}
}

func (w *Walker) awaitsProof(id tiers.ID) bool {
	st, ok := w.nodes[id]
	return ok && st.phase == PhaseReconciling && st.diag != nil
}

// unsettle records that something was observed that may have created a
// trigger object or CRD since the facts were gathered: a Kustomization
// that does not wait on a node awaiting proof and is not Ready or has
// changed its status (it may apply a trigger), or a CRD. Facts asked for
// before it are stale for that node.
func (w *Walker) unsettle(changed tiers.ID, crd, statusChanged bool) {
	for id := range w.proving {
		st, ok := w.nodes[id]
		if !ok || id == changed {
			continue
		}
		// A Kustomization seen Ready may have applied on its way there, so
		// a change of its status counts as much as its not being Ready.
		if crd || (statusChanged || !w.readySelf(w.objs[changed])) && !w.waitsOn(changed, id) {
			st.unsettled = w.seq
		}
	}
}

// waitsOn reports whether node from depends on target, directly or through
// other Kustomizations: it cannot apply anything before target is Ready.
func (w *Walker) waitsOn(from, target tiers.ID) bool {
	seen := map[tiers.ID]bool{from: true}
	stack := []tiers.ID{from}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, dep := range w.objs[id].DependsOn {
			if dep.ID == target {
				return true
			}
			if !seen[dep.ID] {
				seen[dep.ID] = true
				stack = append(stack, dep.ID)
			}
		}
	}
	return false
}

// certainty decides whether nothing can still create d's missing CRDs, so
// that the deadlock of id is certain without waiting. It returns the
// reason either way: what makes it certain, or why the walk must wait for
// an operator (walker_operator.go).
// Facts it lacks it asks for (w.wanted); until they come, it is not
// certain. The table, in order:
//   - a missing kind of unknown group or origin (no trigger in standup.yaml
//     or the catalog): wait;
//   - an object of a trigger kind in a Kustomization's inventory: it was
//     applied, so its operator may be about to create the CRD: wait;
//   - a Kustomization not Ready that neither is id nor waits on it: it may
//     still apply a trigger object, so wait (until it is Ready);
//   - a trigger kind standup may not list, or whose list failed: wait;
//   - an object of a trigger kind exists: its operator may be about to
//     create the CRD, so wait;
//   - every trigger kind's CRD absent or without objects, in facts gathered
//     after the rest held: certain.
func (w *Walker) certainty(id tiers.ID, st *nodeState, d *crds.Diagnosis) (certain bool, why string) {
	triggers, unknown := w.triggersOf(d)
	if unknown != "" {
		return false, unknown
	}
	for _, tr := range triggers {
		if obj, by, ok := w.appliedTrigger(tr.Kind); ok {
			return false, fmt.Sprintf("a %s object exists (%s, applied by Kustomization %s; trigger from %s): its operator may be about to create the CRD", tr.Kind, obj, by.NamespacedName(), tr.From)
		}
	}
	if other, ok := w.unsettledBy(id); ok {
		return false, fmt.Sprintf("Kustomization %s is not Ready and does not wait on %s: it may still apply a trigger object", other.NamespacedName(), id.NamespacedName())
	}
	var absent []string
	missing := false
	cluster := w.clusterOf(id)
	for _, tr := range triggers {
		k := triggerKey{cluster: cluster, kind: tr.Kind}
		f, ok := w.facts[k]
		if !ok || f.asked < st.unsettled {
			if at, asked := w.asked[k]; !asked || at < st.unsettled {
				w.wanted[k] = struct{}{}
			}
			missing = true
			continue
		}
		switch {
		case f.Refused:
			return false, fmt.Sprintf("forbidden: standup needs %q on %s to tell whether a %s object exists (docs/rbac.yaml)", "list", resourceOf(f), tr.Kind)
		case f.Err != "":
			return false, fmt.Sprintf("could not tell whether a %s object exists: %s", tr.Kind, f.Err)
		case f.Object != "":
			return false, fmt.Sprintf("a %s object exists (%s, trigger from %s): its operator may be about to create the CRD", tr.Kind, f.Object, tr.From)
		case f.CRDAbsent:
			absent = append(absent, fmt.Sprintf("the CRD of %s does not exist (trigger from %s)", tr.Kind, tr.From))
		default:
			absent = append(absent, fmt.Sprintf("no %s object exists (trigger from %s)", tr.Kind, tr.From))
		}
	}
	if missing {
		return false, checkingTriggers
	}
	return true, strings.Join(absent, "; ") + w.onCluster(cluster) + fmt.Sprintf(", and every Kustomization not Ready waits on %s", id.NamespacedName())
}

// triggersOf returns the triggers of d's missing kinds, each kind once;
// when a kind's origin is unknown, it says so instead.
func (w *Walker) triggersOf(d *crds.Diagnosis) (triggers []crds.Trigger, unknown string) {
	for _, t := range d.Missing {
		if !t.GroupKnown {
			return nil, fmt.Sprintf("the API group of %s is unknown, so its origin is too", t.Kind)
		}
		var ts []crds.Trigger
		if w.opts.Triggers != nil {
			ts = w.opts.Triggers(t.GroupKind())
		}
		if len(ts) == 0 {
			return nil, fmt.Sprintf("the origin of %s is unknown: neither standup.yaml nor the built-in catalog names an operator that creates its CRD", t)
		}
		for _, tr := range ts {
			if !slices.ContainsFunc(triggers, func(o crds.Trigger) bool { return o.Kind == tr.Kind }) {
				triggers = append(triggers, tr)
			}
		}
	}
	return triggers, ""
}

// checkingTriggers is certainty's reason while the trigger facts it asked
// for have not come: no wait for an operator starts before they do, so a
// certain proof reads nothing more.
const checkingTriggers = "checking whether a trigger object exists"

// appliedTrigger returns an object of kind gk that a Kustomization's
// inventory lists, and that Kustomization: a trigger object known to exist
// (or to have existed) with no read.
func (w *Walker) appliedTrigger(gk schema.GroupKind) (string, tiers.ID, bool) {
	suffix := "_" + gk.Group + "_" + gk.Kind
	var found []flux.InventoryEntry
	var by []tiers.ID
	for id, obj := range w.objs {
		for _, entry := range obj.Inventory {
			if !strings.HasSuffix(entry, suffix) {
				continue
			}
			if e, err := flux.ParseInventoryID(entry); err == nil && e.GroupKind() == gk {
				found, by = append(found, e), append(by, id)
			}
		}
	}
	if len(found) == 0 {
		return "", tiers.ID{}, false
	}
	i := 0 // the same one every time: the first by Kustomization
	for j := range by {
		if by[j].Less(by[i]) {
			i = j
		}
	}
	name := found[i].Name
	if found[i].Namespace != "" {
		name = found[i].Namespace + "/" + name
	}
	return name, by[i], true
}

// unsettledBy returns a Kustomization, other than id, that is not Ready
// and does not wait on id, if any.
func (w *Walker) unsettledBy(id tiers.ID) (tiers.ID, bool) {
	var found []tiers.ID
	for other, obj := range w.objs {
		if other != id && !w.readySelf(obj) && !w.waitsOn(other, id) {
			found = append(found, other)
		}
	}
	if len(found) == 0 {
		return tiers.ID{}, false
	}
	return slices.MinFunc(found, func(a, b tiers.ID) int { return strings.Compare(a.String(), b.String()) }), true
}

func resourceOf(f TriggerFact) string {
	if f.Resource != "" {
		return f.Resource
	}
	return f.Kind.String()
}
