package wait

import (
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// Options tune a walk.
type Options struct {
	// Kinds are the kinds walked, as flux.ParseKinds returns them; empty
	// means Kustomizations only. A Loop feeds the walker only those.
	Kinds []string
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
	// WithApplied walks, beside the Selection's nodes, every node that a
	// walked Kustomization applied (its AppliedBy), as it appears: the
	// HelmReleases of a Kustomization that crds repairs, applied in the
	// pass its pre-applied CRDs unblock.
	WithApplied bool
	// RequeueAfter is how long to wait before asking again when
	// kustomize-controller handled a request but still saw a dependency not
	// ready (its cache lagging ours).
	RequeueAfter time.Duration
	// OperatorTimeout caps the wait for an operator that may still create
	// a missing CRD (walker_operator.go), progress or not; zero takes the
	// longest timeout the triggers' declarations give (crds.Trigger), else
	// DefaultOperatorTimeout.
	OperatorTimeout time.Duration
	// OperatorQuiet ends that wait when no progress has been seen for it
	// (the trigger objects' conditions, a Crossplane package installing,
	// the operator's Deployment rolling out); zero is
	// DefaultOperatorQuiet. A deadlock that is certain waits for neither.
	OperatorQuiet time.Duration
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
	// Slow names the Kustomizations whose reconcile is expected to take
	// long (render.SlowReconciles of the checkout), each with the object
	// that makes it so. With it, the walk feeds kustomize-controller a few
	// requests at a time, slow chains first (walker_feed.go); without it,
	// every ready Kustomization is requested at once.
	Slow map[tiers.ID]string
	// Triggers tells which trigger kinds make an operator create a missing
	// CRD (standup.yaml, the catalog). With it, a deadlock that nothing can
	// resolve is proven at once (certainty), and a wait for an operator
	// reads its trigger objects' progress; nil makes every deadlock wait
	// out the quiet window.
	Triggers crds.Triggers
	// Spokes are the remote clusters the walk reaches, by the kubeConfig
	// Secret (namespace/name, flux.Object.TargetSecret) their nodes name:
	// a node targeting one is diagnosed, proven and repaired on it. A node
	// naming a Secret not among them is judged by the hub's view and never
	// repaired (spoke.go).
	Spokes map[string]SpokeView
}

// DefaultAskAgainAfter is Options.AskAgainAfter's default: Flux's own
// dependency re-check interval. A reconcile that is merely slow (a long
// health check) costs one extra, quick reconcile after it ends.
const DefaultAskAgainAfter = 30 * time.Second

// timeZero is the walk start used by Plan, which never looks at clocks.
var timeZero time.Time

// nodeState is the walker's bookkeeping for one node.
type nodeState struct {
	// status is Classify of the latest observation, kept with it so that
	// its Ready message is parsed once however often the node is stepped.
	status      Status
	phase       Phase
	token       string
	kickedAt    time.Time
	deadline    time.Time
	message     string
	reason      string
	diag        *crds.Diagnosis
	confirm     string    // the token of the request whose failure diag is
	suspectedAt time.Time // when diag was first seen: a wait for an operator runs from it
	// wait is the wait for an operator that may still create diag's CRDs
	// (walker_operator.go); nil when none runs.
	wait *operatorWait
	// unsettled is the observation count when something last happened
	// that may have created a trigger (walker_proof.go): trigger facts
	// asked for before it are stale.
	unsettled uint64
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
	askedAgain bool // an unacknowledged request was repeated (AskAgainAfter)
	// takenUp: since the current request, kustomize-controller was seen
	// taking a reconcile up (Reconciling True or Ready Unknown, reason
	// Progressing) and has not ended it; the node's messages are then the
	// controller's own, and the request is never said to be unacknowledged.
	takenUp bool
	// alreadyReady: Ready at its source's revision when its dependencies
	// were, so standup did not ask it to reconcile.
	alreadyReady bool
	wake         time.Time // when the node asked to be looked at again
	// requestedAt, startedAt and readyAt time its first reconcile for
	// AnalyzeLimit: standup's first request, the first Step after
	// kustomize-controller was seen working on it (underWay), the Step
	// that saw it Ready.
	requestedAt, startedAt, readyAt time.Time
	underWay                        bool
	// heldAt is when a fed walk first held the node ready (walker_feed.go).
	heldAt time.Time
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
	opts    Options
	start   time.Time
	objs    map[tiers.ID]flux.Object
	sources map[tiers.ID]string
	crds    map[string]bool
	crdGK   map[schema.GroupKind]bool
	nodes   map[tiers.ID]*nodeState
	// graph holds the tiers and the dependents; it is built again only
	// when dirty: a node appeared or went, or its dependsOn changed.
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
	bySource map[tiers.ID]map[tiers.ID]struct{} // the Kustomizations that build from each source
	touched  map[tiers.ID]struct{}
	timers   wakeHeap
	busy     map[tiers.ID]struct{} // nodes reconciling, remediating or waiting on CRDs
	open     int                   // walked nodes not yet ended
	unseen   map[tiers.ID]struct{} // Kustomizations a ready node's inventory names, not yet observed
	queued   map[tiers.ID]struct{} // nodes ready to go but held by --max-inflight
	// held are the ready Kustomizations a fed walk keeps back, heldQ the
	// same by priority, heldNow those held in this Step, granted those
	// picked to be requested in this Step, rank each node's priority
	// (walker_feed.go).
	held, granted map[tiers.ID]struct{}
	heldQ         heldQueue
	heldNow       []tiers.ID
	rank          map[tiers.ID]float64
	slowSeen      bool // a node of the graph is among Options.Slow
	exprs         exprCache

	// The certain proof of a deadlock (walker_proof.go): the nodes whose
	// deadlock awaits a proof, a count of observations, and the trigger
	// facts wanted, asked for (at which count) and gathered.
	proving map[tiers.ID]struct{}
	seq     uint64
	wanted  map[triggerKey]struct{}
	asked   map[triggerKey]uint64
	facts   map[triggerKey]TriggerFact
	// spokeCRDs and spokeGK are crds and crdGK of each spoke the walk
	// reaches (Options.Spokes), by its kubeConfig Secret (spoke.go).
	spokeCRDs map[string]map[string]bool
	spokeGK   map[string]map[schema.GroupKind]bool
	// The wait for an operator (walker_operator.go): each progress
	// target's reads, the reads wanted now, and how every wait ended.
	tracks         map[ProgressTarget]*progressTrack
	progressWanted map[ProgressTarget]struct{}
	waits          []OperatorWait
	// unstarted holds the requests kustomize-controller has not been seen
	// acting on yet, by the order they were first made (requests counts
	// them): its work queue is first in, first out, so a request behind
	// another unstarted one is waiting its turn, not lost (askAgain).
	// queueMovedAt is the last Step at which the controller was seen taking
	// one up (queueMoved: since the last Step).
	unstarted    map[tiers.ID]uint64
	requests     uint64
	queueMoved   bool
	queueMovedAt time.Time
	// preApplied maps each CRD this walk created to the node it was
	// created for, to explain a chart that then refuses it.
	preApplied map[string]tiers.ID
	// applied maps a Kustomization to the walked nodes it applied
	// (their AppliedBy), which it waits on when spec.wait is set.
	applied map[tiers.ID]map[tiers.ID]struct{}
}

// NewWalker starts a walk at now.
func NewWalker(opts Options, now time.Time) *Walker {
	if opts.RequeueAfter == 0 {
		opts.RequeueAfter = 2 * time.Second
	}
	if opts.OperatorQuiet == 0 {
		opts.OperatorQuiet = DefaultOperatorQuiet
	}
	if opts.AskAgainAfter == 0 {
		opts.AskAgainAfter = DefaultAskAgainAfter
	}
	w := &Walker{
		opts: opts, start: now,
		objs: map[tiers.ID]flux.Object{}, sources: map[tiers.ID]string{},
		crds: map[string]bool{}, crdGK: map[schema.GroupKind]bool{},
		nodes: map[tiers.ID]*nodeState{}, dirty: true, bySource: map[tiers.ID]map[tiers.ID]struct{}{},
		touched: map[tiers.ID]struct{}{}, busy: map[tiers.ID]struct{}{}, unseen: map[tiers.ID]struct{}{},
		queued: map[tiers.ID]struct{}{}, held: map[tiers.ID]struct{}{}, granted: map[tiers.ID]struct{}{},
		rank: map[tiers.ID]float64{}, exprs: exprCache{}, unstarted: map[tiers.ID]uint64{},
		proving: map[tiers.ID]struct{}{}, wanted: map[triggerKey]struct{}{},
		asked: map[triggerKey]uint64{}, facts: map[triggerKey]TriggerFact{},
		spokeCRDs: map[string]map[string]bool{}, spokeGK: map[string]map[schema.GroupKind]bool{},
		tracks: map[ProgressTarget]*progressTrack{}, progressWanted: map[ProgressTarget]struct{}{},
		preApplied: map[string]tiers.ID{},
		applied:    map[tiers.ID]map[tiers.ID]struct{}{},
	}
	w.heldQ.w = w
	return w
}

// walks reports whether nodes of kind are walked (Options.Kinds).
func (w *Walker) walks(kind string) bool {
	if len(w.opts.Kinds) == 0 {
		return kind == flux.KindKustomization
	}
	return slices.Contains(w.opts.Kinds, kind)
}

// active reports whether the walk may touch id: a node of the Selection,
// or with Options.WithApplied one that a node the walk may touch applied.
func (w *Walker) active(id tiers.ID) bool {
	for range 8 { // appliers of appliers; a loop of AppliedBy ends here
		if w.sel.Active(id) {
			return true
		}
		obj, ok := w.objs[id]
		if !w.opts.WithApplied || !ok || obj.AppliedBy == nil || *obj.AppliedBy == id {
			return false
		}
		id = *obj.AppliedBy
	}
	return false
}

// GraphError is the last error from building the graph (a cycle), if any.
func (w *Walker) GraphError() error { return w.graphErr }

// Graph returns the current graph (nil before the first Step).
func (w *Walker) Graph() *tiers.Graph { return w.graph }
