package wait

import (
	"sort"
	"time"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

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
	if w.queueMoved {
		w.queueMovedAt, w.queueMoved = now, false
	}
	for _, r := range w.pending {
		w.applyResult(now, r)
	}
	w.pending = nil
	for _, id := range w.timers.due(now) {
		w.touch(id)
	}
	actions := w.stepTouched(now)
	for {
		granted, ok := w.grant(now)
		if !ok {
			break
		}
		actions = append(actions, granted...)
		actions = append(actions, w.stepTouched(now)...)
	}
	clear(w.granted)
	w.noteHeld(now)
	w.muts += len(actions)
	return actions, w.events, w.timers.next()
}

// stepTouched steps every touched node and returns their actions.
func (w *Walker) stepTouched(now time.Time) []Action {
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
			if ti, tj := w.tierOf(batch[i]), w.tierOf(batch[j]); ti != tj {
				return ti < tj
			}
			return batch[i].Less(batch[j])
		})
		for _, id := range batch {
			st, ok := w.nodes[id]
			if !ok || !w.active(id) || !st.watched() {
				continue
			}
			a, wake := w.stepNode(now, id, w.objs[id], st)
			actions = append(actions, a...)
			w.schedule(id, st, wake)
		}
	}
	return actions
}

// rebuild builds the graph again, which only a node appearing or going, or
// a dependsOn edit, calls for (dirty): tiers and dependents are read from
// it, never copied. The selection resolves against the new graph, and every
// node is looked at again.
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
	w.rankNodes()
	w.open = 0
	for _, id := range g.Order() {
		if w.active(id) && !w.nodes[id].phase.Terminal() {
			w.open++
		}
		w.touch(id)
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
		if at := w.askAgainAt(obj, st); at.After(now) {
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

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// tierOf is id's tier in the current graph (0 before the first build).
func (w *Walker) tierOf(id tiers.ID) int {
	if w.graph == nil {
		return 0
	}
	t, _ := w.graph.TierOf(id)
	return t
}

// touchDependents touches the nodes that depend on id in the current graph.
func (w *Walker) touchDependents(id tiers.ID) {
	if w.graph == nil {
		return
	}
	for _, d := range w.graph.Dependents(id) {
		w.touch(d)
	}
}
