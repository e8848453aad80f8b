package timeline

import (
	"strings"
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// The walker's reasons FromEvents reads, on a node in the reconciling
// phase (pkg/wait writes them).
const (
	// reasonRequested: standup asked for a reconcile.
	reasonRequested = "Requested"
	// reasonAskedAgain and reasonUnacknowledged: standup repeats a
	// request the controller left quiet; the controller's pass, if one
	// runs, goes on.
	reasonAskedAgain     = "AskedAgain"
	reasonUnacknowledged = "Unacknowledged"
	// reasonCRDsAppeared: the kinds a suspected deadlock missed exist now,
	// and standup asks again.
	reasonCRDsAppeared = "CRDsAppeared"
)

// FromEvents builds the timeline of a walk from its events (a record's, or
// -o json's), in time order, from start. A node's bar follows its phase:
// pending is Waiting; reconciling is Queued from standup's request
// (reason Requested, or a reconcile action: a request asked again after
// the controller found a dependency not Ready, or once the CRDs a
// suspected deadlock missed appeared) until the controller is seen on it
// (any other reason: its own words), then Reconciling; Stuck from a
// suspected deadlock until the phase moves on or the missing CRDs appear;
// crds is CRDs, remediating is Remediating. A Queued span the walk never
// saw taken up, but whose request was handled (the node turned Ready,
// waited for CRDs, was stuck, repaired, or failed other than by a
// timeout), is Reconciling: the controller's pass was too quick to be
// seen, and the request is all the walk knows of its start. A bar ends
// Ready, failed or blocked, or Unfinished at the walk's last event.
func FromEvents(title string, start time.Time, events []wait.Event) *Timeline {
	t := &Timeline{Title: title, Start: start}
	bars := map[tiers.ID]*open{}
	var end time.Duration
	at := func(e wait.Event) time.Duration { return max(e.Time.Sub(start), 0) }
	for _, e := range events {
		end = max(end, at(e))
		if e.Node == nil {
			continue
		}
		switch e.Type {
		case wait.EventAction:
			if o, ok := bars[*e.Node]; ok && asksAgain(o, e) {
				o.move(t, Queued, at(e))
			}
			continue
		case wait.EventNode, wait.EventDiagnosis:
		default:
			continue
		}
		o, ok := bars[*e.Node]
		if !ok {
			t.Bars = append(t.Bars, Bar{Node: *e.Node, Tier: e.Tier})
			o = &open{bar: len(t.Bars) - 1, state: Waiting, since: at(e)}
			bars[*e.Node] = o
		}
		if o.done {
			continue
		}
		if e.Type == wait.EventNode {
			o.reason = e.Reason
		}
		next := o.next(e)
		if o.state == Queued && handled(e) && (e.Phase.Terminal() || (next != Queued && next != Reconciling)) {
			o.state, o.unseen = Reconciling, true
		}
		if e.Phase.Terminal() && e.Type == wait.EventNode {
			o.closeSpan(t, at(e))
			o.done = true
			b := &t.Bars[o.bar]
			b.End = at(e)
			b.Outcome = map[wait.Phase]Outcome{wait.PhaseReady: Ready, wait.PhaseFailed: Failed, wait.PhaseBlocked: Blocked}[e.Phase]
			continue
		}
		o.move(t, next, at(e))
	}
	for _, o := range bars {
		if !o.done {
			o.closeSpan(t, end)
			b := &t.Bars[o.bar]
			b.End, b.Outcome = end, Unfinished
		}
	}
	t.Total = end
	t.Sort()
	return t
}

// open is a bar FromEvents is building: the state of its open span.
type open struct {
	bar   int
	state State
	since time.Duration
	done  bool
	// reason is the node's last reason.
	reason string
	// unseen: the open span is a Queued one relabelled Reconciling; it
	// stays a span of its own, apart from a Reconciling span before it.
	unseen bool
}

// next is the state a node event or diagnosis moves o to.
func (o *open) next(e wait.Event) State {
	switch {
	case e.Type == wait.EventDiagnosis && strings.HasPrefix(e.Message, "suspected"):
		return Stuck
	case e.Type == wait.EventDiagnosis:
		return o.state
	case e.Phase == wait.PhasePending:
		return Waiting
	case e.Phase == wait.PhaseReconciling && o.state == Stuck:
		if e.Reason == reasonCRDsAppeared {
			return Queued
		}
		return Stuck
	case e.Phase == wait.PhaseReconciling && e.Reason == reasonRequested:
		return Queued
	case e.Phase == wait.PhaseReconciling && (e.Reason == reasonAskedAgain || e.Reason == reasonUnacknowledged):
		return o.state
	case e.Phase == wait.PhaseReconciling:
		return Reconciling
	case e.Phase == wait.PhaseCRDs:
		return CRDs
	case e.Phase == wait.PhaseRemediating:
		return Remediating
	}
	return o.state
}

// asksAgain reports a reconcile action that gives the controller a new
// request to take up while o reconciles: one standup asked again after
// the controller handled the last (a dependency it found not Ready), not
// the repeat of a request left quiet (AskedAgain), whose pass goes on.
func asksAgain(o *open, e wait.Event) bool {
	return !o.done && e.Action == string(wait.ActionReconcile) && e.Reason != "Failed" &&
		o.state == Reconciling && o.reason != reasonAskedAgain && o.reason != reasonUnacknowledged
}

// handled reports an event that shows standup's request was handled.
func handled(e wait.Event) bool {
	switch {
	case e.Type == wait.EventDiagnosis:
		return strings.HasPrefix(e.Message, "suspected")
	case e.Phase == wait.PhaseFailed:
		return e.Reason != "Timeout"
	}
	return e.Phase == wait.PhaseReady || e.Phase == wait.PhaseCRDs || e.Phase == wait.PhaseRemediating
}

// move closes o's open span at to and opens one in state s.
func (o *open) move(t *Timeline, s State, to time.Duration) {
	if s == o.state {
		return
	}
	o.closeSpan(t, to)
	o.state = s
}

// closeSpan ends o's open span at to, joining it to the span before when
// that one is of the same state and ends where it starts.
func (o *open) closeSpan(t *Timeline, to time.Duration) {
	if to > o.since {
		b := &t.Bars[o.bar]
		if n := len(b.Spans); n > 0 && !o.unseen && b.Spans[n-1].State == o.state && b.Spans[n-1].To == o.since {
			b.Spans[n-1].To = to
		} else {
			b.Spans = append(b.Spans, Span{State: o.state, From: o.since, To: to})
		}
	}
	o.since, o.unseen = to, false
}
