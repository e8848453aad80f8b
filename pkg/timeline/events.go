package timeline

import (
	"strings"
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// FromEvents builds the timeline of a walk from its events (a record's, or
// -o json's), in time order, from start. A node's bar follows its phase:
// pending is Waiting, reconciling is Reconciling (Stuck from a suspected
// deadlock until the phase moves on), crds is CRDs, remediating is
// Remediating; it ends Ready, failed or blocked, or Unfinished at the
// walk's last event.
func FromEvents(title string, start time.Time, events []wait.Event) *Timeline {
	t := &Timeline{Title: title, Start: start}
	type open struct {
		bar   int
		state State
		since time.Duration
		done  bool
	}
	bars := map[tiers.ID]*open{}
	var end time.Duration
	at := func(e wait.Event) time.Duration { return max(e.Time.Sub(start), 0) }
	closeSpan := func(o *open, to time.Duration) {
		if to > o.since {
			b := &t.Bars[o.bar]
			if n := len(b.Spans); n > 0 && b.Spans[n-1].State == o.state && b.Spans[n-1].To == o.since {
				b.Spans[n-1].To = to
			} else {
				b.Spans = append(b.Spans, Span{State: o.state, From: o.since, To: to})
			}
		}
		o.since = to
	}
	for _, e := range events {
		end = max(end, at(e))
		if e.Node == nil || (e.Type != wait.EventNode && e.Type != wait.EventDiagnosis) {
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
		next := o.state
		switch {
		case e.Type == wait.EventDiagnosis && strings.HasPrefix(e.Message, "suspected"):
			next = Stuck
		case e.Type == wait.EventDiagnosis:
		case e.Phase == wait.PhasePending:
			next = Waiting
		case e.Phase == wait.PhaseReconciling && o.state != Stuck:
			next = Reconciling
		case e.Phase == wait.PhaseCRDs:
			next = CRDs
		case e.Phase == wait.PhaseRemediating:
			next = Remediating
		case e.Phase.Terminal():
			closeSpan(o, at(e))
			o.done = true
			b := &t.Bars[o.bar]
			b.End = at(e)
			b.Outcome = map[wait.Phase]Outcome{wait.PhaseReady: Ready, wait.PhaseFailed: Failed, wait.PhaseBlocked: Blocked}[e.Phase]
			continue
		}
		if next != o.state {
			closeSpan(o, at(e))
			o.state = next
		}
	}
	for _, o := range bars {
		if !o.done {
			closeSpan(o, end)
			b := &t.Bars[o.bar]
			b.End, b.Outcome = end, Unfinished
		}
	}
	t.Total = end
	t.Sort()
	return t
}
