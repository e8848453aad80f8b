package wait

import (
	"slices"

	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// ObserveObject records the latest state of a Kustomization or a HelmRelease.
func (w *Walker) ObserveObject(obj flux.Object) {
	w.seq++
	old, seen := w.objs[obj.ID]
	w.objs[obj.ID] = obj
	if !seen || !slices.Equal(old.DependsOn, obj.DependsOn) {
		w.dirty = true // the next Step rebuilds the graph and looks at every node
	}
	if !seen || old.RevisionSource() != obj.RevisionSource() {
		if seen {
			delete(w.bySource[old.RevisionSource()], obj.ID)
		}
		w.addBySource(obj)
	}
	if !seen || !sameApplier(old.AppliedBy, obj.AppliedBy) {
		if seen && old.AppliedBy != nil {
			delete(w.applied[*old.AppliedBy], obj.ID)
		}
		w.addApplied(obj)
	}
	st, ok := w.nodes[obj.ID]
	if !ok {
		st = &nodeState{phase: PhasePending}
		w.nodes[obj.ID] = st
	} else if seen && statusChanged(old, obj) {
		st.changed = true
		st.underWay = st.underWay || (st.phase == PhaseReconciling && inProgress(obj))
		st.takenUp = st.phase == PhaseReconciling && takingUp(obj)
		if _, ok := w.unstarted[obj.ID]; ok {
			delete(w.unstarted, obj.ID)
			w.queueMoved = true
		}
	}
	st.status = Classify(obj)
	if len(w.proving) > 0 {
		w.unsettle(obj.ID, false, !seen || statusChanged(old, obj))
		w.touchProving()
	}
	delete(w.unseen, obj.ID)
	w.touch(obj.ID)
	w.touchDependents(obj.ID)
}

func (w *Walker) addBySource(obj flux.Object) {
	set, ok := w.bySource[obj.RevisionSource()]
	if !ok {
		set = map[tiers.ID]struct{}{}
		w.bySource[obj.RevisionSource()] = set
	}
	set[obj.ID] = struct{}{}
}

func (w *Walker) addApplied(obj flux.Object) {
	if obj.AppliedBy == nil {
		return
	}
	set, ok := w.applied[*obj.AppliedBy]
	if !ok {
		set = map[tiers.ID]struct{}{}
		w.applied[*obj.AppliedBy] = set
	}
	set[obj.ID] = struct{}{}
}

func sameApplier(a, b *tiers.ID) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// statusChanged reports whether kustomize-controller wrote something new to
// the status: a sign it is working on the object.
func statusChanged(old, obj flux.Object) bool {
	return !sameCondition(old.Ready, obj.Ready) || !sameCondition(old.Stalled, obj.Stalled) ||
		old.ObservedGeneration != obj.ObservedGeneration || old.LastHandledReconcileAt != obj.LastHandledReconcileAt ||
		old.LastAppliedRevision != obj.LastAppliedRevision || !sameCondition(old.Reconciling, obj.Reconciling)
}

// inProgress reports the status kustomize-controller writes when it takes a
// reconcile up, before it fetches the source: Ready Unknown, Progressing.
func inProgress(obj flux.Object) bool {
	return obj.Ready != nil && obj.Ready.Status == string(metav1.ConditionUnknown) && obj.Ready.Reason == meta.ProgressingReason
}

// takingUp reports the status a controller keeps while a reconcile runs:
// Reconciling True or Ready Unknown, reason Progressing. A reconcile that
// failed and waits to retry leaves Reconciling at ProgressingWithRetry,
// which is not this.
func takingUp(obj flux.Object) bool {
	return inProgress(obj) || (obj.Reconciling != nil && obj.Reconciling.Status == string(metav1.ConditionTrue) &&
		obj.Reconciling.Reason == meta.ProgressingReason)
}

func sameCondition(a, b *flux.Condition) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// ForgetObject records that a Kustomization or a HelmRelease was deleted.
func (w *Walker) ForgetObject(id tiers.ID) {
	old, seen := w.objs[id]
	if !seen {
		return
	}
	delete(w.bySource[old.RevisionSource()], id)
	if old.AppliedBy != nil {
		delete(w.applied[*old.AppliedBy], id)
	}
	delete(w.objs, id)
	delete(w.nodes, id)
	delete(w.busy, id)
	delete(w.queued, id)
	delete(w.held, id)
	delete(w.proving, id)
	delete(w.unstarted, id)
	w.dirty = true
}

// ObserveSource records a source's current artifact revision.
func (w *Walker) ObserveSource(id tiers.ID, revision string) {
	if old, ok := w.sources[id]; ok && old == revision {
		return
	}
	w.sources[id] = revision
	for n := range w.bySource[id] {
		w.touch(n)
	}
}

// ObserveCRD records a CRD and whether it is established with names accepted.
func (w *Walker) ObserveCRD(name string, gk schema.GroupKind, ready bool) {
	if old, ok := w.crds[name]; ok && old == ready {
		return
	}
	w.seq++
	w.crds[name] = ready
	w.crdGK[gk] = ready
	w.unsettle(tiers.ID{}, true, true)
	w.touchBusy()
	w.touchRequirers(name)
}

// touchRequirers steps again the ResourceSets whose dependsOn names the CRD
// name (flux.Object.Requires): they wait on it before anything is asked.
func (w *Walker) touchRequirers(name string) {
	for id, obj := range w.objs {
		for _, r := range obj.Requires {
			if r.IsCRD() && r.Name == name {
				w.touch(id)
			}
		}
	}
}

// ForgetCRD records that a CRD was deleted.
func (w *Walker) ForgetCRD(name string, gk schema.GroupKind) {
	w.seq++
	delete(w.crds, name)
	delete(w.crdGK, gk)
	w.unsettle(tiers.ID{}, true, true)
	w.touchBusy()
	w.touchRequirers(name)
}

// Done reports the result of an action the loop performed.
func (w *Walker) Done(r ActionResult) {
	w.pending = append(w.pending, r)
	w.touch(r.Action.Node)
}
