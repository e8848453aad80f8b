package wait

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// Options tune a walk.
type Options struct {
	// NoUnsuspend leaves suspended Kustomizations alone (they end blocked).
	NoUnsuspend bool
	// NoRemediate reports a proven deadlock instead of pre-applying CRDs.
	NoRemediate bool
	// Timeout is each node's deadline from the moment it is kicked; zero uses
	// the Kustomization's own spec.timeout.
	Timeout time.Duration
	// MaxInflight bounds how many nodes reconcile at once; zero is unlimited.
	MaxInflight int
	// Selection chooses which nodes are walked.
	Selection tiers.Selection
	// RequeueAfter is how long to wait before asking again when
	// kustomize-controller handled a request but still saw a dependency not
	// ready (its cache lagging ours).
	RequeueAfter time.Duration
	// ConfirmAfter is how long standup lets an operator create a missing CRD
	// after a dry-run failure before the deadlock counts as proven. It tells a
	// deadlock from a race with an operator whose trigger is already applied.
	ConfirmAfter time.Duration
	// AskAgainAfter is how long a requested reconcile may go unacknowledged
	// (lastHandledReconcileAt not our token) while the Kustomization's status
	// stays the same, before standup asks once more. kustomize-controller can
	// drop a reconcile whose final status write failed (an API server
	// restart) and leave the object "in progress" until its next interval.
	AskAgainAfter time.Duration
	// AdditiveCELDependencyCheck mirrors kustomize-controller's feature gate
	// of that name: a readyExpr is checked in addition to, not instead of,
	// the built-in readiness check.
	AdditiveCELDependencyCheck bool
	// Bundle, when set, lets diagnoses say which missing kinds it can supply.
	Bundle *crds.Bundle
}

// timeZero is the walk start used by Plan, which never looks at clocks.
var timeZero time.Time

// nodeState is the walker's bookkeeping for one Kustomization.
type nodeState struct {
	phase     Phase
	token     string
	kickedAt  time.Time
	deadline  time.Time
	message   string
	reason    string
	diag      *crds.Diagnosis
	confirm   string    // the token of the request whose failure diag is
	confirmAt time.Time // when diag counts as proven if no CRD has appeared
	remedied  bool
	applied   []string // CRDs a pre-apply created, awaited before the next request
	retryAt   time.Time
	retries   int // re-requests after DependencyNotReady, for backoff
	timedOut  bool
	deadlock  bool
	reopened  bool // Flux parked it at DependencyNotReady after it was Ready; asked again once
	// quietSince is when the node's status last changed while a request
	// was unacknowledged; changed marks an observed change not yet stepped.
	quietSince time.Time
	changed    bool
	askedAgain bool      // an unacknowledged request was repeated (AskAgainAfter)
	wake       time.Time // when the node asked to be looked at again
	// last* are what the last event said, so an unchanged state is not re-emitted.
	lastPhase   Phase
	lastReason  string
	lastMessage string
}

// watched reports whether Step still looks at the node: every phase that
// is not terminal, and a Ready node until it has been reopened once
// (stepSettled).
func (st *nodeState) watched() bool {
	return !st.phase.Terminal() || (st.phase == PhaseReady && !st.reopened)
}

// Walker decides, from the latest objects, what to do next. It performs no
// I/O: Observe* feed it objects, Step returns the actions to perform and the
// events to print, and Done reports action results back.
type Walker struct {
	opts     Options
	start    time.Time
	objs     map[tiers.ID]flux.Object
	sources  map[tiers.ID]string
	crds     map[string]bool
	crdGK    map[schema.GroupKind]bool
	nodes    map[tiers.ID]*nodeState
	graph    *tiers.Graph
	dirty    bool
	sel      tiers.Selected
	pending  []ActionResult
	events   []Event
	muts     int
	graphErr error

	// Incremental bookkeeping: Step looks only at the nodes that something
	// could have changed for, so a walk costs per event what the event
	// touches, not the whole graph.
	order      []tiers.ID
	tier       map[tiers.ID]int
	dependents map[tiers.ID][]tiers.ID
	bySource   map[tiers.ID][]tiers.ID
	touched    map[tiers.ID]struct{}
	timers     wakeHeap
	busy       map[tiers.ID]struct{} // nodes reconciling, remediating or waiting on CRDs
	open       int                   // walked nodes not yet ended
	unseen     map[tiers.ID]struct{} // Kustomizations a ready node's inventory names, not yet observed
	queued     map[tiers.ID]struct{} // nodes ready to go but held by --max-inflight
	exprs      exprCache
}

// DefaultConfirmAfter is Options.ConfirmAfter's default: longer than a
// CRD-creating operator takes to act on a trigger it has seen (cdi-operator
// creates its CRDs within a second or two), far shorter than Flux's retry.
const DefaultConfirmAfter = 3 * time.Second

// DefaultAskAgainAfter is Options.AskAgainAfter's default: Flux's own
// dependency re-check interval. A reconcile that is merely slow (a long
// health check) costs one extra, quick reconcile after it ends.
const DefaultAskAgainAfter = 30 * time.Second

// NewWalker starts a walk at now.
func NewWalker(opts Options, now time.Time) *Walker {
	if opts.RequeueAfter == 0 {
		opts.RequeueAfter = 2 * time.Second
	}
	if opts.ConfirmAfter == 0 {
		opts.ConfirmAfter = DefaultConfirmAfter
	}
	if opts.AskAgainAfter == 0 {
		opts.AskAgainAfter = DefaultAskAgainAfter
	}
	return &Walker{
		opts: opts, start: now,
		objs: map[tiers.ID]flux.Object{}, sources: map[tiers.ID]string{},
		crds: map[string]bool{}, crdGK: map[schema.GroupKind]bool{},
		nodes: map[tiers.ID]*nodeState{}, dirty: true,
		touched: map[tiers.ID]struct{}{}, busy: map[tiers.ID]struct{}{}, unseen: map[tiers.ID]struct{}{},
		queued: map[tiers.ID]struct{}{}, exprs: exprCache{},
	}
}

// ObserveKustomization records the latest state of a Kustomization.
func (w *Walker) ObserveKustomization(obj flux.Object) {
	old, seen := w.objs[obj.ID]
	w.objs[obj.ID] = obj
	if !seen || !sameDeps(old.DependsOn, obj.DependsOn) {
		w.dirty = true
	}
	if st, ok := w.nodes[obj.ID]; !ok {
		w.nodes[obj.ID] = &nodeState{phase: PhasePending}
	} else if seen && statusChanged(old, obj) {
		st.changed = true
	}
	delete(w.unseen, obj.ID)
	w.touch(obj.ID)
	for _, d := range w.dependents[obj.ID] {
		w.touch(d)
	}
}

// statusChanged reports whether kustomize-controller wrote something new to
// the status: a sign it is working on the object.
func statusChanged(old, obj flux.Object) bool {
	return !sameCondition(old.Ready, obj.Ready) || !sameCondition(old.Stalled, obj.Stalled) ||
		old.ObservedGeneration != obj.ObservedGeneration || old.LastHandledReconcileAt != obj.LastHandledReconcileAt ||
		old.LastAppliedRevision != obj.LastAppliedRevision
}

func sameCondition(a, b *flux.Condition) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// ForgetKustomization records that a Kustomization was deleted.
func (w *Walker) ForgetKustomization(id tiers.ID) {
	delete(w.objs, id)
	delete(w.nodes, id)
	delete(w.busy, id)
	delete(w.queued, id)
	w.dirty = true
}

// ObserveSource records a source's current artifact revision.
func (w *Walker) ObserveSource(id tiers.ID, revision string) {
	if old, ok := w.sources[id]; ok && old == revision {
		return
	}
	w.sources[id] = revision
	for _, n := range w.bySource[id] {
		w.touch(n)
	}
}

// ObserveCRD records a CRD and whether it is established with names accepted.
func (w *Walker) ObserveCRD(name string, gk schema.GroupKind, ready bool) {
	if old, ok := w.crds[name]; ok && old == ready {
		return
	}
	w.crds[name] = ready
	w.crdGK[gk] = ready
	w.touchBusy()
}

// ForgetCRD records that a CRD was deleted.
func (w *Walker) ForgetCRD(name string, gk schema.GroupKind) {
	delete(w.crds, name)
	delete(w.crdGK, gk)
	w.touchBusy()
}

// Done reports the result of an action the loop performed.
func (w *Walker) Done(r ActionResult) {
	w.pending = append(w.pending, r)
	w.touch(r.Action.Node)
}

// GraphError is the last error from building the graph (a cycle), if any.
func (w *Walker) GraphError() error { return w.graphErr }

// Graph returns the current graph (nil before the first Step).
func (w *Walker) Graph() *tiers.Graph { return w.graph }

// Step decides what to do now. It returns the actions to perform, the events
// to print, and the time at which Step must run again even if nothing is
// observed (zero when only an observation can change anything).
func (w *Walker) Step(now time.Time) ([]Action, []Event, time.Time) {
	w.events = nil
	if w.dirty {
		if err := w.rebuild(); err != nil {
			w.graphErr = err
			return nil, nil, time.Time{}
		}
	}
	w.graphErr = nil
	for _, r := range w.pending {
		w.applyResult(now, r)
	}
	w.pending = nil
	for _, id := range w.timers.due(now) {
		w.touch(id)
	}
	var actions []Action
	// A node that ends touches its dependents, which sit in later tiers:
	// batches in tier order converge within one Step.
	for len(w.touched) > 0 {
		batch := make([]tiers.ID, 0, len(w.touched))
		for id := range w.touched {
			batch = append(batch, id)
		}
		clear(w.touched)
		sort.Slice(batch, func(i, j int) bool {
			if w.tier[batch[i]] != w.tier[batch[j]] {
				return w.tier[batch[i]] < w.tier[batch[j]]
			}
			return batch[i].Less(batch[j])
		})
		for _, id := range batch {
			st, ok := w.nodes[id]
			if !ok || !w.sel.Active(id) || !st.watched() {
				continue
			}
			a, wake := w.stepNode(now, id, w.objs[id], st)
			actions = append(actions, a...)
			w.schedule(id, st, wake)
		}
	}
	w.muts += len(actions)
	return actions, w.events, w.timers.next()
}

func (w *Walker) rebuild() error {
	nodes := make([]tiers.Node, 0, len(w.objs))
	for _, o := range w.objs {
		nodes = append(nodes, o.Node)
	}
	g, err := tiers.Build(nodes, tiers.Options{AllowMissing: true})
	if err != nil {
		return err
	}
	w.graph, w.dirty = g, false
	w.sel = w.opts.Selection.Resolve(g)
	w.order = g.Order()
	w.tier = make(map[tiers.ID]int, len(w.order))
	w.dependents = make(map[tiers.ID][]tiers.ID, len(w.order))
	w.bySource = map[tiers.ID][]tiers.ID{}
	w.open = 0
	for _, id := range w.order {
		w.tier[id], _ = g.TierOf(id)
		obj := w.objs[id]
		for _, d := range obj.DependsOn {
			w.dependents[d.ID] = append(w.dependents[d.ID], id)
		}
		w.bySource[obj.SourceRef] = append(w.bySource[obj.SourceRef], id)
		if w.sel.Active(id) && !w.nodes[id].phase.Terminal() {
			w.open++
		}
		w.touched[id] = struct{}{}
	}
	return nil
}

func (w *Walker) touch(id tiers.ID) { w.touched[id] = struct{}{} }

// touchBusy touches the nodes a CRD change can move: those reconciling,
// remediating or waiting on CRDs.
func (w *Walker) touchBusy() {
	for id := range w.busy {
		w.touch(id)
	}
}

func (w *Walker) schedule(id tiers.ID, st *nodeState, wake time.Time) {
	if wake.IsZero() || wake.Equal(st.wake) {
		return
	}
	st.wake = wake
	w.timers.push(id, wake)
}

func (w *Walker) inflight() int {
	n := 0
	for id := range w.busy {
		if holdsSlot(w.nodes[id].phase) {
			n++
		}
	}
	return n
}

// holdsSlot reports whether a node in this phase counts against --max-inflight.
func holdsSlot(p Phase) bool { return p == PhaseReconciling || p == PhaseRemediating }

func (w *Walker) stepNode(now time.Time, id tiers.ID, obj flux.Object, st *nodeState) ([]Action, time.Time) {
	actions, wake := w.stepPhase(now, id, obj, st)
	if st.phase == PhaseReconciling && !st.askedAgain && st.token != "" && (!RequestHandled(obj, st.token) || leftInProgress(obj, st.token)) {
		// Wake up to ask again even if nothing is observed meanwhile.
		if at := st.quietSince.Add(w.opts.AskAgainAfter); at.After(now) {
			wake = earliest(wake, at)
		}
	}
	return actions, wake
}

func (w *Walker) stepPhase(now time.Time, id tiers.ID, obj flux.Object, st *nodeState) ([]Action, time.Time) {
	switch st.phase {
	case PhasePending:
		return w.stepPending(now, id, obj, st)
	case PhaseReconciling:
		return w.stepReconciling(now, id, obj, st)
	case PhaseRemediating:
		return w.stepRemediating(now, id, obj, st)
	case PhaseCRDs:
		return nil, w.stepCRDs(now, id, obj, st)
	case PhaseReady:
		return w.stepSettled(now, id, obj, st)
	}
	return nil, time.Time{}
}

// stepSettled watches a node already Ready. kustomize-controller may run it
// again (the root re-applying it, a reconcile standup requested of its
// dependency) and, finding that dependency mid-reconcile, park it at
// DependencyNotReady until its own re-check, 30 s later; its dependents
// would wait that out. standup reopens such a node once, so that it is asked
// again as soon as its dependencies are Ready, and its dependents wait for it.
func (w *Walker) stepSettled(now time.Time, id tiers.ID, obj flux.Object, st *nodeState) ([]Action, time.Time) {
	if st.reopened || obj.Ready == nil || obj.Ready.Status != "False" || obj.Ready.Reason != meta.DependencyNotReadyReason {
		return nil, time.Time{}
	}
	st.reopened = true
	st.retryAt, st.retries = time.Time{}, 0
	w.set(now, id, st, PhasePending, meta.DependencyNotReadyReason, "Flux found a dependency not ready after this was Ready: "+obj.Ready.Message)
	for _, d := range w.dependents[id] {
		w.touch(d)
	}
	return w.stepPending(now, id, obj, st)
}

func (w *Walker) stepPending(now time.Time, id tiers.ID, obj flux.Object, st *nodeState) ([]Action, time.Time) {
	ready, why, blocker, absent, exprErr := w.depsReady(obj)
	if exprErr != nil {
		w.set(now, id, st, PhaseFailed, "InvalidCELExpression", exprErr.Error())
		return nil, time.Time{}
	}
	if blocker != nil {
		w.set(now, id, st, PhaseBlocked, "DependencyFailed", "blocked by "+blocker.String())
		return nil, time.Time{}
	}
	if !ready {
		if !absent {
			w.note(now, id, st, meta.DependencyNotReadyReason, why)
			return nil, time.Time{}
		}
		// A dependency the root has not created yet: wait for it to appear,
		// but not forever.
		limit := w.start.Add(w.timeout(obj))
		if now.After(limit) {
			w.set(now, id, st, PhaseFailed, "DependencyMissing", why+": it never appeared")
			return nil, time.Time{}
		}
		w.note(now, id, st, meta.DependencyNotReadyReason, why)
		return nil, limit
	}
	if !obj.Suspended && w.readySelf(obj) && obj.RequestedAt == obj.LastHandledReconcileAt {
		st.kickedAt = now
		st.deadline = now.Add(w.timeout(obj))
		w.set(now, id, st, PhaseCRDs, "AlreadyReady", "ready at "+obj.LastAppliedRevision+"; not touched")
		return nil, w.stepCRDs(now, id, obj, st)
	}
	if obj.Suspended && w.opts.NoUnsuspend {
		w.set(now, id, st, PhaseBlocked, meta.SuspendedReason, "suspended (--no-unsuspend)")
		return nil, time.Time{}
	}
	if w.opts.MaxInflight > 0 && w.inflight() >= w.opts.MaxInflight {
		w.queued[id] = struct{}{}
		w.note(now, id, st, "Queued", fmt.Sprintf("dependencies ready; waiting for a slot (--max-inflight %d)", w.opts.MaxInflight))
		return nil, time.Time{}
	}
	if c := Classify(obj); c.State == SuspectedDeadlock {
		// It already failed a dry-run on a missing kind before standup asked:
		// the reconcile requested now is the one that proves or clears it.
		w.suspect(now, id, obj, st)
	}
	st.kickedAt = now
	st.deadline = now.Add(w.timeout(obj))
	a := w.request(now, id, st, obj.Suspended)
	w.set(now, id, st, PhaseReconciling, "Requested", requestMessage(obj.Suspended))
	return []Action{a}, st.deadline
}

func requestMessage(unsuspend bool) string {
	if unsuspend {
		return "resumed and requested reconcile"
	}
	return "requested reconcile"
}

func (w *Walker) request(now time.Time, id tiers.ID, st *nodeState, unsuspend bool) Action {
	token := now.UTC().Format(time.RFC3339Nano)
	if token == st.token {
		token += "-1"
	}
	st.token = token
	st.quietSince, st.changed = now, false
	return Action{Kind: ActionReconcile, Node: id, Token: token, Unsuspend: unsuspend}
}

func (w *Walker) stepReconciling(now time.Time, id tiers.ID, obj flux.Object, st *nodeState) ([]Action, time.Time) {
	if now.After(st.deadline) {
		st.timedOut = true
		w.set(now, id, st, PhaseFailed, "Timeout", fmt.Sprintf("not ready within %s: %s", w.timeout(obj), st.message))
		return nil, time.Time{}
	}
	if !RequestHandled(obj, st.token) {
		return w.askAgain(now, id, obj, st, "kustomize-controller has not acknowledged the request")
	}
	if w.readySelf(obj) {
		w.set(now, id, st, PhaseCRDs, "Ready", readyMessage(obj))
		return nil, w.stepCRDs(now, id, obj, st)
	}
	c := Classify(obj)
	switch c.State {
	case HardFailure:
		w.set(now, id, st, PhaseFailed, c.Reason, c.Message)
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
// otherwise wait for the Kustomization's next interval.
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
	st.askedAgain = true
	w.note(now, id, st, "Unacknowledged", fmt.Sprintf("%s, and nothing changed for %s; asking again", why, w.opts.AskAgainAfter))
	return []Action{w.request(now, id, st, obj.Suspended)}, st.deadline
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

// readySelf reports whether the node is ready at its own source's current revision.
func (w *Walker) readySelf(obj flux.Object) bool {
	ok, _ := ReadyForDependents(obj, obj, w.sources[obj.SourceRef])
	return ok
}

// depsReady reports whether every dependency is ready for obj, with
// kustomize-controller's rules: a readyExpr, when set, decides instead of
// the built-in check (unless AdditiveCELDependencyCheck); otherwise a
// walked dependency must have finished and an untouched one must pass
// Flux's own check. It also says why not, which failed dependency blocks
// obj, whether a dependency is absent, and any readyExpr that cannot compile.
func (w *Walker) depsReady(obj flux.Object) (ready bool, why string, blocker *tiers.ID, absent bool, exprErr error) {
	for _, dep := range obj.DependsOn {
		depObj, ok := w.objs[dep.ID]
		if !ok {
			return false, fmt.Sprintf("waiting for %s to appear", dep.ID), nil, true, nil
		}
		if dep.ReadyExpr != "" {
			ok, err := w.exprs.EvalReadyExpr(context.Background(), dep.ReadyExpr, obj.Raw, depObj.Raw)
			var invalid *ReadyExprError
			switch {
			case errors.As(err, &invalid):
				return false, "", nil, false, fmt.Errorf("dependency %s: %w", dep.ID.NamespacedName(), err)
			case err != nil || !ok:
				return false, fmt.Sprintf("dependency '%s' is not ready according to readyExpr eval", dep.ID.NamespacedName()), nil, false, nil
			}
			if !w.opts.AdditiveCELDependencyCheck {
				continue
			}
		}
		if w.sel.Active(dep.ID) {
			switch w.nodes[dep.ID].phase {
			case PhaseFailed, PhaseBlocked:
				id := dep.ID
				return false, "", &id, false, nil
			case PhaseReady:
				continue
			}
			return false, fmt.Sprintf("dependency '%s' is not ready", dep.ID.NamespacedName()), nil, false, nil
		}
		if ok, why := ReadyForDependents(depObj, obj, w.sources[obj.SourceRef]); !ok {
			return false, why, nil, false, nil
		}
	}
	return true, "", nil, false, nil
}

func (w *Walker) timeout(obj flux.Object) time.Duration {
	if w.opts.Timeout > 0 {
		return w.opts.Timeout
	}
	if obj.Timeout > 0 {
		return obj.Timeout
	}
	return 5 * time.Minute
}

// set moves a node to a phase and emits an event.
func (w *Walker) set(now time.Time, id tiers.ID, st *nodeState, phase Phase, reason, message string) {
	old := st.phase
	st.phase, st.reason, st.message = phase, reason, message
	if holdsSlot(old) && !holdsSlot(phase) {
		for q := range w.queued {
			w.touch(q)
		}
		clear(w.queued)
	}
	switch phase {
	case PhaseReconciling, PhaseRemediating, PhaseCRDs:
		w.busy[id] = struct{}{}
	default:
		delete(w.busy, id)
	}
	if old.Terminal() && !phase.Terminal() && w.sel.Active(id) {
		w.open++ // a Ready node reopened (stepSettled)
	}
	if phase.Terminal() && !old.Terminal() {
		if w.sel.Active(id) {
			w.open--
		}
		for _, d := range w.dependents[id] {
			w.touch(d)
		}
		if phase == PhaseReady {
			for _, child := range kustomizationsIn(w.objs[id].Inventory) {
				if _, seen := w.objs[child]; !seen {
					w.unseen[child] = struct{}{}
				}
			}
		}
	}
	w.emit(now, id, st)
}

// note updates a node's reason and message, emitting an event only on change.
func (w *Walker) note(now time.Time, id tiers.ID, st *nodeState, reason, message string) {
	st.reason, st.message = reason, message
	w.emit(now, id, st)
}

func (w *Walker) emit(now time.Time, id tiers.ID, st *nodeState) {
	if st.phase == st.lastPhase && st.reason == st.lastReason && st.message == st.lastMessage {
		return
	}
	st.lastPhase, st.lastReason, st.lastMessage = st.phase, st.reason, st.message
	w.events = append(w.events, Event{
		Time: now, Type: EventNode, Node: &id, Tier: w.tierOf(id), Phase: st.phase,
		Reason: st.reason, Message: st.message, Elapsed: Duration(w.elapsed(now, st)),
	})
}

func (w *Walker) elapsed(now time.Time, st *nodeState) time.Duration {
	if st.kickedAt.IsZero() {
		return now.Sub(w.start)
	}
	return now.Sub(st.kickedAt)
}

func (w *Walker) tierOf(id tiers.ID) int { return w.tier[id] }

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

func sameDeps(a, b []tiers.Dependency) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
