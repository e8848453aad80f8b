package wait

import (
	"container/heap"
	"fmt"
	"time"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// With Options.Slow, the walker feeds kustomize-controller instead of
// handing it every ready Kustomization at once. The controller serves its
// work queue first in, first out; when all its workers are busy (a graph
// of hundreds on the default --concurrent 4), whichever request came first
// runs first, and a slow reconcile that happens to be requested late ends
// the walk alone while the other workers idle. Fed, the controller holds
// at most FeedAhead requests it has not taken up, and standup picks the
// next from everything ready: the Kustomization with the most expected
// work still behind it (rank), which starts the slow chains first. An
// idle controller takes every request at once, so feeding costs it
// nothing but a watch event per request.

// FeedAhead is how many requests a fed walk leaves waiting in
// kustomize-controller's queue: enough that a worker that frees never
// waits for standup's next request, few enough that standup, not the
// queue's order, chooses what runs next.
const FeedAhead = 4

// slowWeight is the rank weight of a Kustomization Options.Slow names,
// against 1 for any other: a reconcile that waits on a controller takes
// seconds to minutes where an apply takes a fraction of a second. Only
// the order it gives matters: on issue 18's scale graphs any weight from 3
// to 30 gave the same walk times in a simulation of the controller's
// queue (TestWalkerFeedRidesTheWorkerPool is that simulation at 10).
const slowWeight = 10

// feeds reports whether the walk holds id back while the controller's
// queue is full: only Kustomizations (HelmReleases go to helm-controller's
// own queue), and only when the walk knows which reconciles are slow (a
// node of the live graph is among Options.Slow: a checkout of another
// cluster names none), since without that knowledge any order is as good
// as the queue's.
func (w *Walker) feeds(id tiers.ID) bool {
	return w.slowSeen && id.Kind == flux.KindKustomization
}

// waitingAtController counts the Kustomization requests kustomize-controller
// has not been seen taking up.
func (w *Walker) waitingAtController() int {
	n := 0
	for id := range w.unstarted {
		if id.Kind == flux.KindKustomization {
			n++
		}
	}
	return n
}

// hold reports whether a ready Kustomization waits in standup's own queue,
// and puts it there. The time it is first held counts as its request for
// AnalyzeLimit: it waits for a worker, in standup's queue instead of the
// controller's.
func (w *Walker) hold(now time.Time, id tiers.ID, st *nodeState) bool {
	if !w.feeds(id) {
		return false
	}
	if _, ok := w.granted[id]; ok {
		delete(w.granted, id)
		return false
	}
	if _, ok := w.held[id]; !ok {
		w.held[id] = struct{}{}
		heap.Push(&w.heldQ, id)
		w.heldNow = append(w.heldNow, id)
	}
	if st.heldAt.IsZero() {
		st.heldAt = now
	}
	return true
}

// grant requests, while the controller's queue has room, the held
// Kustomizations with the highest rank, in rank order: the controller
// serves them in the order they are asked. It reports whether it picked
// any; what their steps touch is left to the next stepTouched. The queue
// is a heap, so a Step costs the log of what is held, not all of it.
func (w *Walker) grant(now time.Time) ([]Action, bool) {
	if len(w.held) == 0 {
		return nil, false
	}
	room := FeedAhead - w.waitingAtController()
	if w.stalled(now) {
		room = len(w.held)
	}
	var actions []Action
	picked := 0
	for picked < room && w.heldQ.Len() > 0 {
		id := heap.Pop(&w.heldQ).(tiers.ID)
		if _, ok := w.held[id]; !ok {
			continue // granted or forgotten since it was queued
		}
		delete(w.held, id)
		st, ok := w.nodes[id]
		if !ok || st.phase != PhasePending {
			continue // it moved on without standup's request
		}
		picked++
		w.granted[id] = struct{}{}
		a, wake := w.stepNode(now, id, w.objs[id], st)
		actions = append(actions, a...)
		w.schedule(id, st, wake)
	}
	return actions, picked > 0
}

// stalled reports whether kustomize-controller has taken up none of the
// requests waiting for it for AskAgainAfter, the oldest of them that old
// too: a controller that is down, or whose workers are all in long health
// checks. Holding then orders nothing and only delays: every request would
// wait out the one before it, and a dead controller would fail the held
// nodes one timeout after another instead of at once. The walk stops
// holding until the controller takes a request up again.
func (w *Walker) stalled(now time.Time) bool {
	since := now.Add(-w.opts.AskAgainAfter)
	if w.queueMovedAt.After(since) {
		return false
	}
	for id := range w.unstarted {
		if st, ok := w.nodes[id]; ok && id.Kind == flux.KindKustomization && !st.requestedAt.After(since) {
			return true
		}
	}
	return false
}

// heldQueue is the held Kustomizations, highest rank first (byRank); an
// entry no longer held is skipped when it comes up.
type heldQueue struct {
	ids []tiers.ID
	w   *Walker
}

func (q heldQueue) Len() int           { return len(q.ids) }
func (q heldQueue) Less(i, j int) bool { return q.w.byRank(q.ids[i], q.ids[j]) < 0 }
func (q heldQueue) Swap(i, j int)      { q.ids[i], q.ids[j] = q.ids[j], q.ids[i] }
func (q *heldQueue) Push(x any)        { q.ids = append(q.ids, x.(tiers.ID)) }
func (q *heldQueue) Pop() any {
	id := q.ids[len(q.ids)-1]
	q.ids = q.ids[:len(q.ids)-1]
	return id
}

// byRank orders the highest rank first, then the earlier tier, then IDs.
func (w *Walker) byRank(a, b tiers.ID) int {
	if ra, rb := w.rank[a], w.rank[b]; ra != rb {
		if ra > rb {
			return -1
		}
		return 1
	}
	if ta, tb := w.tierOf(a), w.tierOf(b); ta != tb {
		return ta - tb
	}
	if a.Less(b) {
		return -1
	}
	if b.Less(a) {
		return 1
	}
	return 0
}

// rankNodes gives every node the expected work of its longest chain of
// dependents, itself included: slowWeight for a node Options.Slow names,
// 1 for any other. It is the classic list-scheduling priority (highest
// level first), weighted by the only durations known before the walk.
func (w *Walker) rankNodes() {
	clear(w.rank)
	w.slowSeen = false
	if len(w.opts.Slow) == 0 {
		return
	}
	order := w.graph.Order()
	for i := len(order) - 1; i >= 0; i-- {
		id := order[i]
		var after float64
		for _, d := range w.graph.Dependents(id) {
			after = max(after, w.rank[d])
		}
		weight := 1.0
		if _, slow := w.opts.Slow[id]; slow {
			weight, w.slowSeen = slowWeight, true
		}
		w.rank[id] = weight + after
	}
	heap.Init(&w.heldQ) // the ranks it was ordered by may have changed
}

// noteHeld tells why each Kustomization held in this Step waits, once:
// it runs after grant, so a node held and granted in one Step never
// shows it, and a node still held says nothing new.
func (w *Walker) noteHeld(now time.Time) {
	for _, id := range w.heldNow {
		if _, still := w.held[id]; !still {
			continue
		}
		if st, ok := w.nodes[id]; ok {
			w.note(now, id, st, "Queued", fmt.Sprintf("dependencies ready; held until kustomize-controller takes up earlier requests (it keeps %d waiting; slow chains go first)", FeedAhead))
		}
	}
	w.heldNow = w.heldNow[:0]
}
