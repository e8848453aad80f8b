package wait

import (
	"time"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

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
	if phase != PhaseReconciling {
		delete(w.unstarted, id)
	}
	switch phase {
	case PhaseReconciling, PhaseRemediating, PhaseCRDs:
		w.busy[id] = struct{}{}
	default:
		delete(w.busy, id)
	}
	if old.Terminal() && !phase.Terminal() && w.active(id) {
		w.open++ // a Ready node reopened (stepSettled)
	}
	if phase.Terminal() && !old.Terminal() {
		if w.active(id) {
			w.open--
		}
		w.touchDependents(id)
		if applier := w.objs[id].AppliedBy; applier != nil {
			w.touch(*applier) // it may wait on this node (waitedFailure)
		}
		if phase == PhaseReady {
			for _, child := range flux.NodesInInventory(w.objs[id].Inventory) {
				if _, seen := w.objs[child]; !seen && w.walks(child.Kind) {
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
