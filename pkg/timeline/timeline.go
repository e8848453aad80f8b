package timeline

import (
	"cmp"
	"slices"
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
)

// State is what a node is doing during a span of its bar.
type State string

const (
	// Waiting: on its dependencies (not yet asked to reconcile).
	Waiting State = "waiting"
	// Queued: asked to reconcile, not yet taken up by the controller.
	Queued State = "queued"
	// Reconciling: the controller works on it (apply, health checks).
	Reconciling State = "reconciling"
	// CRDs: waiting for the CRDs it applied to be established.
	CRDs State = "crds"
	// Stuck: its dry-run failed on a kind whose CRD does not exist.
	Stuck State = "stuck"
	// Remediating: standup pre-applies the missing CRDs.
	Remediating State = "remediating"
	// RetryWait: failed, waiting for the controller's retry.
	RetryWait State = "retry-wait"
)

// States lists every state, in legend order.
var States = []State{Waiting, Queued, Reconciling, CRDs, Stuck, Remediating, RetryWait}

// Outcome is how a bar ends.
type Outcome string

const (
	Ready      Outcome = "ready"
	Failed     Outcome = "failed"
	Blocked    Outcome = "blocked"
	Unfinished Outcome = "unfinished" // the run ended (or was cut off) first
	Never      Outcome = "never"      // predicted never to converge
)

// Span is one state over [From, To), offsets from the timeline's start.
type Span struct {
	State State         `json:"state"`
	From  time.Duration `json:"from"`
	To    time.Duration `json:"to"`
}

// Bar is one node's line of the chart.
type Bar struct {
	Node    tiers.ID `json:"node"`
	Tier    int      `json:"tier"`
	Spans   []Span   `json:"spans"`
	Outcome Outcome  `json:"outcome"`
	// End is when the bar ends: Ready, failed, or the timeline's end.
	End time.Duration `json:"end"`
}

// Time spent in state s.
func (b Bar) Time(s State) time.Duration {
	var d time.Duration
	for _, sp := range b.Spans {
		if sp.State == s {
			d += sp.To - sp.From
		}
	}
	return d
}

// Pass is the reconcile that brought the bar to Ready: its last
// Reconciling span, which runs from the controller taking up standup's
// last request (from the request itself when the walk never saw it under
// way) to Ready; a wait for CRDs to be established after Ready is no part
// of it. ok is false for a bar that did not end Ready, or whose last span
// before Ready is not Reconciling (it turned Ready while stuck, or
// queued).
func (b Bar) Pass() (d time.Duration, ok bool) {
	if b.Outcome != Ready {
		return 0, false
	}
	for i := len(b.Spans) - 1; i >= 0; i-- {
		switch sp := b.Spans[i]; sp.State {
		case CRDs:
			continue
		case Reconciling:
			return sp.To - sp.From, true
		}
		return 0, false
	}
	return 0, false
}

// Timeline is a bring-up, real or predicted.
type Timeline struct {
	Title string    `json:"title"`
	Start time.Time `json:"start"`
	Bars  []Bar     `json:"bars"`
	// Total is the timeline's length: when the last bar ended.
	Total time.Duration `json:"total"`
}

// Sort orders the bars by tier, then by when they end, then by node: the
// order a reader follows a bring-up in.
func (t *Timeline) Sort() {
	slices.SortStableFunc(t.Bars, func(a, b Bar) int {
		return cmp.Or(cmp.Compare(a.Tier, b.Tier), cmp.Compare(a.End, b.End), compareIDs(a.Node, b.Node))
	})
}

func compareIDs(a, b tiers.ID) int {
	switch {
	case a.Less(b):
		return -1
	case b.Less(a):
		return 1
	}
	return 0
}
