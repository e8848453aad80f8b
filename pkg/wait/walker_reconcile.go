package wait

import (
	"fmt"
	"strings"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

func (w *Walker) request(now time.Time, id tiers.ID, st *nodeState, unsuspend bool) Action {
	token := now.UTC().Format(time.RFC3339Nano)
	if token == st.token {
		token += "-1"
	}
	st.token = token
	st.quietSince, st.changed = now, false
	if st.requestedAt.IsZero() {
		st.requestedAt = now
	}
	if _, asked := w.unstarted[id]; !asked {
		// A request asked again keeps its place: it is still ahead of
		// those made after it, and the controller takes both up in turn.
		w.requests++
		w.unstarted[id] = w.requests
	}
	return Action{Kind: ActionReconcile, Node: id, Token: token, Unsuspend: unsuspend}
}

func requestMessage(unsuspend bool) string {
	if unsuspend {
		return "resumed and requested reconcile"
	}
	return "requested reconcile"
}

func (w *Walker) stepReconciling(now time.Time, id tiers.ID, obj flux.Object, st *nodeState) ([]Action, time.Time) {
	if st.underWay && st.startedAt.IsZero() {
		st.startedAt = now
	}
	if now.After(st.deadline) {
		st.timedOut = true
		w.set(now, id, st, PhaseFailed, "Timeout", fmt.Sprintf("not ready within %s: %s", w.timeout(obj), st.message))
		return nil, time.Time{}
	}
	if failed := w.waitedFailure(obj); failed != nil {
		w.set(now, id, st, PhaseBlocked, "DependencyFailed", fmt.Sprintf("waits (spec.wait) on %s, which it applied and which failed", failed))
		return nil, time.Time{}
	}
	if !RequestHandled(obj, st.token) {
		return w.askAgain(now, id, obj, st, "kustomize-controller has not acknowledged the request")
	}
	if w.readySelf(obj) {
		if st.readyAt.IsZero() {
			st.readyAt = now
		}
		w.set(now, id, st, PhaseCRDs, "Ready", readyMessage(obj))
		return nil, w.stepCRDs(now, id, obj, st)
	}
	c := st.status
	switch c.State {
	case HardFailure:
		w.set(now, id, st, PhaseFailed, c.Reason, w.explainHardFailure(id, c))
		return nil, time.Time{}
	case SuspectedDeadlock:
		return w.onDeadlock(now, id, obj, st)
	}
	if obj.Ready != nil && obj.Ready.Reason == meta.DependencyNotReadyReason {
		// Our view of the dependencies is ahead of the controller's: ask
		// again shortly rather than wait for its 30 s re-check, backing off
		// so a lagging controller costs few writes.
		if st.retryAt.IsZero() {
			st.retryAt = now.Add(min(w.opts.RequeueAfter<<st.retries, 30*time.Second))
			st.retries++
		}
		if now.Before(st.retryAt) {
			return nil, st.retryAt
		}
		st.retryAt = time.Time{}
		return []Action{w.request(now, id, st, false)}, st.deadline
	}
	if leftInProgress(obj, st.token) {
		return w.askAgain(now, id, obj, st, "kustomize-controller handled the request but left the Kustomization in progress")
	}
	w.note(now, id, st, c.Reason, c.Message)
	return nil, st.deadline
}

// leftInProgress reports a request kustomize-controller marked handled
// while Ready is still Unknown ("Reconciliation in progress"). A reconcile
// that ends writes Ready True or False along with the handled request; one
// whose status writes failed part-way (an API server restart: "failed to
// update status: timed out waiting for the condition") can leave this
// state, and the controller then waits for the next interval (10 m). A
// healthy controller never leaves it, so asking again costs nothing there.
func leftInProgress(obj flux.Object, token string) bool {
	return RequestHandled(obj, token) && (obj.Ready == nil || obj.Ready.Status == string(metav1.ConditionUnknown))
}

// askAgain repeats, once, a request kustomize-controller has not
// acknowledged, or has acknowledged but left in progress (leftInProgress),
// while the object's status stayed the same for AskAgainAfter: a reconcile
// it dropped (its status writes failed during an API server restart) would
// otherwise wait for the Kustomization's next interval. A request the
// controller has not touched yet is waiting in its work queue (a saturated
// --concurrent), not lost, while one made before it is untouched too, or
// while the controller is seen taking requests up: its quiet time counts
// from the last one taken up.
func (w *Walker) askAgain(now time.Time, id tiers.ID, obj flux.Object, st *nodeState, why string) ([]Action, time.Time) {
	if st.changed {
		st.quietSince, st.changed = now, false
	}
	if st.askedAgain {
		return nil, st.deadline
	}
	if now.Before(st.quietSince.Add(w.opts.AskAgainAfter)) {
		return nil, st.deadline // stepNode wakes the node in time
	}
	if w.queuedBehind(id) {
		st.quietSince = now
		return nil, st.deadline
	}
	if _, untouched := w.unstarted[id]; untouched && w.queueMovedAt.After(st.quietSince) {
		st.quietSince = w.queueMovedAt
		if now.Before(st.quietSince.Add(w.opts.AskAgainAfter)) {
			return nil, st.deadline
		}
	}
	st.askedAgain = true
	w.note(now, id, st, "Unacknowledged", fmt.Sprintf("%s, and nothing changed for %s; asking again", why, w.opts.AskAgainAfter))
	return []Action{w.request(now, id, st, obj.Suspended)}, st.deadline
}

// queuedBehind reports whether id's request is untouched behind another
// untouched request made before it.
func (w *Walker) queuedBehind(id tiers.ID) bool {
	seq, ok := w.unstarted[id]
	if !ok {
		return false
	}
	for _, other := range w.unstarted {
		if other < seq {
			return true
		}
	}
	return false
}

func readyMessage(obj flux.Object) string {
	if obj.LastAppliedRevision != "" {
		return "applied revision " + obj.LastAppliedRevision
	}
	return "ready"
}

func (w *Walker) stepCRDs(now time.Time, id tiers.ID, obj flux.Object, st *nodeState) time.Time {
	var waiting []string
	for _, name := range flux.CRDsInInventory(obj.Inventory) {
		if !w.crds[name] {
			waiting = append(waiting, name)
		}
	}
	if len(waiting) == 0 {
		w.set(now, id, st, PhaseReady, "Ready", fmt.Sprintf("ready in %s", now.Sub(st.kickedAt).Round(100*time.Millisecond)))
		return time.Time{}
	}
	if now.After(st.deadline) {
		st.timedOut = true
		w.set(now, id, st, PhaseFailed, "Timeout", "CRDs not established: "+strings.Join(waiting, ", "))
		return time.Time{}
	}
	w.note(now, id, st, "WaitingForCRDs", "waiting for CRDs to be established: "+strings.Join(waiting, ", "))
	return st.deadline
}

// explainHardFailure is a hard failure's message, with what to do when
// Helm refuses a HelmRelease an object it does not own: a CRD standup
// pre-applied in this walk for a Kustomization that holds the release and a
// resource of the chart's kind, whose chart ships that CRD in templates/ and
// whose release does not take ownership (install.disableTakeOwnership).
func (w *Walker) explainHardFailure(id tiers.ID, c Status) string {
	f, ok := crds.ParseHelmOwnershipFailure(c.Message)
	if !ok || id.Kind != flux.KindHelmRelease {
		return c.Message
	}
	ks, ours := w.preApplied[f.Object.Name]
	if !ours || f.Object.Kind != flux.CRDKind {
		return f.Explain(id, c.Message, nil)
	}
	return f.Explain(id, c.Message, &ks)
}

// waitedFailure returns a walked node that the Kustomization obj applied
// and waits on (spec.wait: every object it applies must be Ready) and that
// failed: kustomize-controller would hold obj until its own timeout, so
// the walk says at once why it cannot be Ready. Health checks are not read:
// they may name other objects.
func (w *Walker) waitedFailure(obj flux.Object) *tiers.ID {
	if obj.ID.Kind != flux.KindKustomization || !obj.Wait {
		return nil
	}
	for child := range w.applied[obj.ID] {
		if st, ok := w.nodes[child]; ok && st.phase == PhaseFailed {
			return &child
		}
	}
	return nil
}
