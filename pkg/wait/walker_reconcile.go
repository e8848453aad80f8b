package wait

import (
	"fmt"
	"regexp"
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
	st.quietSince, st.changed, st.takenUp, st.alreadyReady = now, false, false, false
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
		if st.takenUp {
			// The controller writes the handled request only when its
			// reconcile ends; until then its own words say what it does
			// (a health check can run for spec.timeout).
			reason, message := progress(obj)
			w.note(now, id, st, reason, message)
			return w.askAgain(now, id, obj, st, "kustomize-controller took the request up ("+reason+": "+firstLine(message)+") but has not ended it")
		}
		return w.askAgain(now, id, obj, st, "kustomize-controller has not acknowledged the request")
	}
	if w.readySelf(obj) {
		if st.readyAt.IsZero() {
			st.readyAt = now
		}
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
	if now.Before(w.askAgainAt(obj, st)) {
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
	reason := "Unacknowledged"
	if st.takenUp || RequestHandled(obj, st.token) {
		reason = "AskedAgain"
	}
	w.note(now, id, st, reason, fmt.Sprintf("%s, and nothing changed for %s; asking again", why, now.Sub(st.quietSince).Round(time.Second)))
	return []Action{w.request(now, id, st, obj.Suspended)}, st.deadline
}

// askAgainAt is when a request left quiet is asked again: AskAgainAfter
// after the status last changed or, while kustomize-controller runs the
// health checks of a reconcile it took up, after their timeout too: it
// writes nothing until they end.
func (w *Walker) askAgainAt(obj flux.Object, st *nodeState) time.Time {
	at := st.quietSince.Add(w.opts.AskAgainAfter)
	if !st.takenUp {
		return at
	}
	_, message := progress(obj)
	if d, ok := healthCheckTimeout(message); ok {
		at = at.Add(d)
	}
	return at
}

// healthCheckRE matches the message kustomize-controller keeps on the
// Reconciling condition while it waits for what it applied to be healthy
// (spec.wait, spec.healthChecks).
var healthCheckRE = regexp.MustCompile(`^Running health checks for revision .* with a timeout of (\S+)$`)

// healthCheckTimeout returns the timeout a health-check message names.
func healthCheckTimeout(message string) (time.Duration, bool) {
	m := healthCheckRE.FindStringSubmatch(strings.TrimSpace(message))
	if m == nil {
		return 0, false
	}
	d, err := time.ParseDuration(m[1])
	return d, err == nil
}

// progress is what the controller says it is doing: the Reconciling
// condition while it is True (its message names the step: fetching,
// building, running health checks), else the Ready condition.
func progress(obj flux.Object) (reason, message string) {
	if c := obj.Reconciling; c != nil && c.Status == string(metav1.ConditionTrue) && c.Message != "" {
		return c.Reason, c.Message
	}
	if c := obj.Ready; c != nil {
		return c.Reason, c.Message
	}
	return "Progressing", "reconciling"
}

// firstLine is the first line of s, trimmed: a Ready message can carry a
// whole change-set log.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
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

// readyMessage is a node's one line when it ends Ready: how long it took,
// or, for a node Ready at its source's revision already, that standup left
// it alone.
func readyMessage(now time.Time, obj flux.Object, st *nodeState) (reason, message string) {
	if st.alreadyReady {
		if obj.LastAppliedRevision == "" {
			return "AlreadyReady", "already Ready; not touched"
		}
		return "AlreadyReady", "already Ready at " + obj.LastAppliedRevision + "; not touched"
	}
	return "Ready", "ready in " + readyIn(now.Sub(st.kickedAt))
}

// readyIn reads 0.9s, 12.3s, 1m4s: as the printers write a wait.
func readyIn(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// stepCRDs ends a node that is Ready once every CRD in its inventory is
// established, in one event; it enters PhaseCRDs only when some are not.
func (w *Walker) stepCRDs(now time.Time, id tiers.ID, obj flux.Object, st *nodeState) time.Time {
	var waiting []string
	cluster := w.clusterOf(id)
	for _, name := range flux.CRDsInInventory(obj.Inventory) {
		if !w.crdReady(cluster, name) {
			waiting = append(waiting, name)
		}
	}
	if len(waiting) == 0 {
		reason, message := readyMessage(now, obj, st)
		w.set(now, id, st, PhaseReady, reason, message)
		return time.Time{}
	}
	if now.After(st.deadline) {
		st.timedOut = true
		w.set(now, id, st, PhaseFailed, "Timeout", "CRDs not established: "+strings.Join(waiting, ", "))
		return time.Time{}
	}
	message := "waiting for CRDs to be established: " + strings.Join(waiting, ", ")
	if st.phase != PhaseCRDs {
		w.set(now, id, st, PhaseCRDs, "WaitingForCRDs", message)
	} else {
		w.note(now, id, st, "WaitingForCRDs", message)
	}
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
