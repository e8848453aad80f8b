package wait

import (
	"time"

	"github.com/fluxcd/pkg/apis/meta"

	"github.com/kubestandup/standup/pkg/tiers"
)

// Finished reports whether every walked node has ended, and no ready node's
// inventory names a Kustomization standup has not seen yet (the cold-start
// case: the root creates the tiers, and they join the walk as they appear).
func (w *Walker) Finished() bool {
	return w.graph != nil && !w.dirty && w.open == 0 && len(w.unseen) == 0
}

// Summary counts how the walked nodes ended.
func (w *Walker) Summary(now time.Time, interrupted bool) Summary {
	s := Summary{Elapsed: Duration(now.Sub(w.start)), Interrupted: interrupted, Mutations: w.muts, Waits: w.waits}
	if w.graph == nil {
		return s
	}
	var timings []NodeTiming
	for _, id := range w.graph.Order() {
		st, ok := w.nodes[id]
		if !ok || !w.active(id) {
			continue
		}
		if !st.requestedAt.IsZero() {
			t := NodeTiming{ID: id, Requested: st.requestedAt, Started: st.startedAt, Ready: st.readyAt}
			if !st.heldAt.IsZero() && st.heldAt.Before(t.Requested) {
				t.Requested = st.heldAt // it waited for a worker in standup's queue
			}
			for _, d := range w.objs[id].DependsOn {
				t.DependsOn = append(t.DependsOn, d.ID)
			}
			timings = append(timings, t)
		}
		s.Total++
		switch st.phase {
		case PhaseReady:
			s.Ready++
		case PhaseFailed:
			s.Failed++
			s.FailedNodes = append(s.FailedNodes, id)
			if st.deadlock {
				s.Deadlocked = append(s.Deadlocked, id)
			}
			if st.timedOut {
				s.TimedOut = append(s.TimedOut, id)
			}
		case PhaseBlocked:
			s.Blocked++
			if st.reason == meta.SuspendedReason {
				s.LeftSuspended = append(s.LeftSuspended, id)
			}
		default:
			s.Pending++
		}
	}
	s.Limit = AnalyzeLimit(timings)
	return s
}

// Phase returns a node's phase, for tests and printers.
func (w *Walker) Phase(id tiers.ID) (Phase, bool) {
	st, ok := w.nodes[id]
	if !ok {
		return "", false
	}
	return st.phase, true
}
