package rehearse

import (
	"container/heap"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/timeline"
)

// Stall is time a node lost to something other than its own reconcile.
type Stall struct {
	Node tiers.ID `json:"node"`
	// Cause is requeue (a dependency not Ready when the controller
	// looked, then --requeue-dependency), retry (a dry-run failed on a
	// kind whose CRD did not exist yet, then the retry interval), queue
	// (waiting for a worker), or crd (standup waiting for an operator's
	// CRD).
	Cause  string        `json:"cause"`
	From   time.Duration `json:"from"`
	To     time.Duration `json:"to"`
	Detail string        `json:"detail,omitempty"`
}

// Cost is the stall's length.
func (s Stall) Cost() time.Duration { return s.To - s.From }

// NeverReady is a node the simulation never sees Ready, and why.
type NeverReady struct {
	Node tiers.ID `json:"node"`
	Why  string   `json:"why"`
}

// Result is one contender's predicted bring-up.
type Result struct {
	Contender string `json:"contender"`
	// Converged: every node Ready, at AllReady.
	Converged bool          `json:"converged"`
	AllReady  time.Duration `json:"allReady"`
	Never     []NeverReady  `json:"never,omitempty"`
	Stalls    []Stall       `json:"stalls,omitempty"`
	// CriticalPath is the chain that set AllReady: from the node Ready
	// last, back through the dependency (or the node that applied it, or
	// the provider of a CRD it needed) that was Ready last before it.
	CriticalPath []tiers.ID         `json:"criticalPath"`
	Timeline     *timeline.Timeline `json:"timeline"`
	Repaired     []string           `json:"repaired,omitempty"`
	blockers     map[tiers.ID]tiers.ID
}

// node is the simulation's state of one Node.
type node struct {
	Node
	i                      int
	exists, ready, applied bool
	existsAt, readyAt      time.Duration
	appliedAt              time.Duration
	queued, running        bool
	queuedAt               time.Duration
	waitingCRD             bool
	state                  timeline.State
	since                  time.Duration
	bar                    *timeline.Bar
	children               []*node
	dependents             []*node
	// repaired holds the needs standup pre-applied for it.
	repaired map[string]bool
	// pending: a Flux requeue or retry is scheduled.
	pending bool
	// dirty: standup asked for a reconcile while one was running; the
	// controller's work queue runs it again as soon as that one ends
	// (controller-runtime re-adds an item marked dirty while processed).
	dirty bool
}

type event struct {
	at  time.Duration
	seq int
	run func()
}

type eventQueue []event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// sim is one simulation run.
type sim struct {
	m         Model
	suspended bool
	c         Contender
	now       time.Duration
	seq       int
	q         eventQueue
	nodes     map[tiers.ID]*node
	order     []*node
	// pools: first in, first out; busy counts the running.
	ksQueue, hrQueue []*node
	ksBusy, hrBusy   int
	res              *Result
	lastChange       time.Duration
}

// Simulate predicts the bring-up of s by c under m.
func Simulate(s Scenario, c Contender, m Model) *Result {
	x := &sim{m: m, suspended: s.Suspended, c: c, nodes: map[tiers.ID]*node{}, res: &Result{Contender: c.Name, blockers: map[tiers.ID]tiers.ID{}}}
	tl := &timeline.Timeline{Title: "rehearse: " + c.Name}
	for i, n := range s.Nodes {
		tl.Bars = append(tl.Bars, timeline.Bar{Node: n.ID})
		nd := &node{Node: n, i: i, state: timeline.Waiting, repaired: map[string]bool{}}
		x.nodes[n.ID] = nd
		x.order = append(x.order, nd)
	}
	for _, nd := range x.order {
		nd.bar = &tl.Bars[nd.i]
		if nd.AppliedBy != nil {
			if p, ok := x.nodes[*nd.AppliedBy]; ok {
				p.children = append(p.children, nd)
			}
		}
		for _, d := range nd.DependsOn {
			if p, ok := x.nodes[d]; ok {
				p.dependents = append(p.dependents, nd)
			}
		}
	}
	tiersOf(x.order, tl)
	for _, nd := range x.order {
		if nd.AppliedBy == nil || x.nodes[*nd.AppliedBy] == nil {
			x.at(0, func() { x.create(nd) })
		}
	}
	for x.q.Len() > 0 {
		e := heap.Pop(&x.q).(event)
		if e.at > m.Horizon {
			break
		}
		x.now = e.at
		e.run()
	}
	x.finish(tl)
	return x.res
}

// tiersOf gives each bar its tier in the dependsOn graph.
func tiersOf(order []*node, tl *timeline.Timeline) {
	var ns []tiers.Node
	for _, nd := range order {
		n := tiers.Node{ID: nd.ID}
		for _, d := range nd.DependsOn {
			n.DependsOn = append(n.DependsOn, tiers.Dependency{ID: d})
		}
		ns = append(ns, n)
	}
	g, err := tiers.Build(ns, tiers.Options{})
	if err != nil {
		return
	}
	for t, ids := range g.Tiers() {
		for _, id := range ids {
			for _, nd := range order {
				if nd.ID == id {
					tl.Bars[nd.i].Tier = t
				}
			}
		}
	}
}

func (x *sim) at(t time.Duration, f func()) {
	x.seq++
	heap.Push(&x.q, event{at: t, seq: x.seq, run: f})
}

// set moves a node's bar to state s from now.
func (x *sim) set(nd *node, s timeline.State) {
	if nd.state == s {
		return
	}
	if x.now > nd.since {
		b := nd.bar
		if n := len(b.Spans); n > 0 && b.Spans[n-1].State == nd.state && b.Spans[n-1].To == nd.since {
			b.Spans[n-1].To = x.now
		} else {
			b.Spans = append(b.Spans, timeline.Span{State: nd.state, From: nd.since, To: x.now})
		}
	}
	nd.state, nd.since = s, x.now
}

func (x *sim) changed() { x.lastChange = x.now }

// create: the node now exists. Flux's controller takes it up at once;
// standup asks for it when its dependencies are Ready.
func (x *sim) create(nd *node) {
	if nd.exists {
		return
	}
	nd.exists, nd.existsAt = true, x.now
	x.changed()
	if x.suspended && x.c.Standup && !x.depsReady(nd) {
		// Suspended until standup's request resumes it (request).
		return
	}
	x.enqueue(nd)
}

func (x *sim) depsReady(nd *node) bool {
	for _, d := range nd.DependsOn {
		if p, ok := x.nodes[d]; ok && !p.ready {
			return false
		}
	}
	return true
}

func (x *sim) enqueue(nd *node) {
	if nd.queued || nd.running || nd.ready {
		return
	}
	nd.queued, nd.queuedAt, nd.pending = true, x.now, false
	x.set(nd, timeline.Queued)
	if nd.ID.Kind == KindHelmRelease {
		x.hrQueue = append(x.hrQueue, nd)
	} else {
		x.ksQueue = append(x.ksQueue, nd)
	}
	x.dispatch()
}

func (x *sim) dispatch() {
	for x.ksBusy < max(x.m.Workers, 1) && len(x.ksQueue) > 0 {
		nd := x.ksQueue[0]
		x.ksQueue = x.ksQueue[1:]
		x.ksBusy++
		x.start(nd)
	}
	for x.hrBusy < max(x.m.HelmWorkers, 1) && len(x.hrQueue) > 0 {
		nd := x.hrQueue[0]
		x.hrQueue = x.hrQueue[1:]
		x.hrBusy++
		x.start(nd)
	}
}

func (x *sim) release(nd *node) {
	nd.running = false
	if nd.ID.Kind == KindHelmRelease {
		x.hrBusy--
	} else {
		x.ksBusy--
	}
	x.dispatch()
}

// start runs one reconcile of nd on a worker.
func (x *sim) start(nd *node) {
	nd.queued, nd.running = false, true
	if wait := x.now - nd.queuedAt; wait > 0 {
		x.res.Stalls = append(x.res.Stalls, Stall{Node: nd.ID, Cause: "queue", From: nd.queuedAt, To: x.now})
	}
	x.set(nd, timeline.Reconciling)
	if !x.depsReady(nd) {
		requeue := x.c.Requeue
		x.at(x.now+x.m.DependencyCheck, func() {
			x.release(nd)
			if nd.dirty {
				nd.dirty = false
				x.enqueue(nd)
				return
			}
			x.set(nd, timeline.Waiting)
			from := x.now
			nd.pending = true
			x.at(x.now+requeue, func() {
				if nd.pending {
					x.res.Stalls = append(x.res.Stalls, Stall{Node: nd.ID, Cause: "requeue", From: from, To: x.now, Detail: "a dependency was not Ready"})
					x.enqueue(nd)
				}
			})
		})
		return
	}
	total := x.m.Cost(nd.Node)
	if nd.ID.Kind == KindHelmRelease {
		x.at(x.now+total, func() { x.becomeReady(nd); x.release(nd) })
		return
	}
	if missing := x.missing(nd); len(missing) > 0 {
		x.at(x.now+x.m.PerBuild, func() { x.failed(nd, missing) })
		return
	}
	// It applies once built (a measured pass shorter than the model's
	// build applies at its end).
	build := min(x.m.PerBuild+time.Duration(nd.Objects)*x.m.PerObject, total)
	x.at(x.now+build, func() { x.apply(nd) })
	x.at(x.now+total, func() { x.becomeReady(nd); x.release(nd) })
}

// missing returns the needs of nd whose CRD does not exist now.
func (x *sim) missing(nd *node) []Need {
	var out []Need
	for _, n := range nd.Needs {
		if nd.repaired[n.Kind] || x.exists(n) {
			continue
		}
		out = append(out, n)
	}
	return out
}

func (x *sim) exists(n Need) bool {
	p, ok := x.nodes[n.Provider]
	if !ok {
		return true // a provider outside the graph: assumed there
	}
	switch n.When {
	case Applied:
		return p.applied
	case Ready:
		return p.ready
	}
	return p.applied && x.now >= p.appliedAt+x.m.OperatorDelay
}

// never reports whether n's CRD can never come while nd waits for it: its
// provider is nd itself, or is created by nd, or waits on nd.
func (x *sim) never(nd *node, n Need) bool {
	seen := map[tiers.ID]bool{}
	var blocked func(id tiers.ID) bool
	blocked = func(id tiers.ID) bool {
		if id == nd.ID {
			return true
		}
		if seen[id] {
			return false
		}
		seen[id] = true
		p, ok := x.nodes[id]
		if !ok || p.applied {
			return false
		}
		if p.AppliedBy != nil && blocked(*p.AppliedBy) {
			return true
		}
		for _, d := range p.DependsOn {
			if dp, ok := x.nodes[d]; ok && !dp.ready && blocked(d) {
				return true
			}
		}
		return false
	}
	return blocked(n.Provider)
}

// failed: nd's dry-run failed on missing kinds.
func (x *sim) failed(nd *node, missing []Need) {
	x.release(nd)
	from := x.now
	if !x.c.Standup {
		x.set(nd, timeline.RetryWait)
		retry := nd.Retry
		if retry <= 0 {
			retry = 10 * time.Minute
		}
		nd.pending = true
		x.at(x.now+retry, func() {
			if nd.pending {
				x.res.Stalls = append(x.res.Stalls, Stall{Node: nd.ID, Cause: "retry", From: from, To: x.now, Detail: "dry-run failed on " + missing[0].Kind})
				x.enqueue(nd)
			}
		})
		return
	}
	var never []Need
	for _, n := range missing {
		if x.never(nd, n) {
			never = append(never, n)
		}
	}
	if len(never) > 0 {
		// standup proves the deadlock and pre-applies the CRDs.
		x.set(nd, timeline.Remediating)
		x.at(x.now+x.m.Proof, func() {
			for _, n := range never {
				nd.repaired[n.Kind] = true
				x.res.Repaired = append(x.res.Repaired, fmt.Sprintf("%s: pre-apply the CRD of %s", nd.ID.NamespacedName(), n.Kind))
			}
			x.changed()
			x.enqueue(nd)
		})
		return
	}
	// An operator or a chart will create them: standup waits for the CRD
	// and asks again the moment it exists.
	x.set(nd, timeline.Stuck)
	nd.waitingCRD = true
	x.res.Stalls = append(x.res.Stalls, Stall{Node: nd.ID, Cause: "crd", From: from, To: from, Detail: "waiting for the CRD of " + missing[0].Kind})
	x.pollCRD(nd, len(x.res.Stalls)-1)
}

// pollCRD re-checks, at each change and at each operator's due time,
// whether nd's missing CRDs exist now.
func (x *sim) pollCRD(nd *node, stall int) {
	if len(x.missing(nd)) == 0 {
		nd.waitingCRD = false
		x.res.Stalls[stall].To = x.now
		x.enqueue(nd)
		return
	}
	x.at(x.now+100*time.Millisecond, func() { x.pollCRD(nd, stall) })
}

// apply: nd's objects are applied: its CRDs exist, the Kustomizations
// and HelmReleases it holds exist, its trigger objects reach operators.
func (x *sim) apply(nd *node) {
	nd.applied, nd.appliedAt = true, x.now
	x.changed()
	for _, c := range nd.children {
		x.create(c)
	}
}

func (x *sim) becomeReady(nd *node) {
	nd.ready, nd.readyAt = true, x.now
	x.changed()
	x.set(nd, timeline.State("ready"))
	nd.bar.Outcome, nd.bar.End = timeline.Ready, x.now
	if x.c.Standup {
		for _, d := range nd.dependents {
			switch {
			case x.m.Reaction == 0:
				x.request(d)
			case x.depsReady(d):
				// standup reacts to the last dependency turning Ready.
				x.at(x.now+x.m.Reaction, func() { x.request(d) })
			}
		}
	}
}

// request is standup asking for d's reconcile, once its dependencies are
// Ready: it is queued at once, not at its next requeue.
func (x *sim) request(d *node) {
	if d.running {
		d.dirty = true
		return
	}
	if d.exists && !d.ready && x.depsReady(d) {
		d.pending = false
		x.enqueue(d)
	}
}

// finish closes every bar, and reads the result.
func (x *sim) finish(tl *timeline.Timeline) {
	end := time.Duration(0)
	converged := true
	for _, nd := range x.order {
		if nd.ready {
			end = max(end, nd.readyAt)
			// The "ready" pseudo-state closed the last span.
			continue
		}
		converged = false
	}
	if !converged {
		end = max(end, x.lastChange)
	}
	for _, nd := range x.order {
		if nd.ready {
			b := nd.bar
			b.Spans = slices.DeleteFunc(b.Spans, func(s timeline.Span) bool { return s.State == "ready" })
			continue
		}
		x.now = end
		x.set(nd, "end")
		nd.bar.Outcome, nd.bar.End = timeline.Never, end
		x.res.Never = append(x.res.Never, NeverReady{Node: nd.ID, Why: x.why(nd)})
	}
	tl.Total = end
	tl.Sort()
	x.res.Timeline = tl
	x.res.Converged, x.res.AllReady = converged, end
	x.res.CriticalPath = x.critical()
	x.res.Stalls = mergeStalls(x.res.Stalls, x.m.PerBuild+x.m.DependencyCheck)
}

// mergeStalls joins a node's stalls of one cause that follow each other
// (two requeues in a row, the failed attempt between two retries, within
// gap) into one, drops the empty ones, and sorts them, the costliest
// first.
func mergeStalls(stalls []Stall, gap time.Duration) []Stall {
	slices.SortStableFunc(stalls, func(a, b Stall) int {
		if c := compareIDs(a.Node, b.Node); c != 0 {
			return c
		}
		if a.Cause != b.Cause {
			return strings.Compare(a.Cause, b.Cause)
		}
		return int(a.From - b.From)
	})
	var out []Stall
	for _, s := range stalls {
		if n := len(out); n > 0 && out[n-1].Node == s.Node && out[n-1].Cause == s.Cause && s.From-out[n-1].To <= gap {
			out[n-1].To = max(out[n-1].To, s.To)
			continue
		}
		out = append(out, s)
	}
	out = slices.DeleteFunc(out, func(s Stall) bool { return s.Cost() <= 0 })
	slices.SortStableFunc(out, func(a, b Stall) int { return int(b.Cost() - a.Cost()) })
	return out
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

// why says why nd never became Ready.
func (x *sim) why(nd *node) string {
	switch {
	case !nd.exists && nd.AppliedBy != nil:
		return "never created: " + nd.AppliedBy.NamespacedName() + " never applied"
	case !x.depsReady(nd):
		for _, d := range nd.DependsOn {
			if p, ok := x.nodes[d]; ok && !p.ready {
				return "waits on " + d.NamespacedName() + ", never Ready"
			}
		}
	}
	if m := x.missing(nd); len(m) > 0 {
		if x.never(nd, m[0]) {
			return fmt.Sprintf("deadlocked: its dry-run fails on %s, whose CRD only %s would create, and that never gets to run (a cold-start deadlock)", m[0].Kind, m[0].Provider.NamespacedName())
		}
		return "its dry-run fails on " + m[0].Kind
	}
	return "not Ready by the horizon"
}

// critical walks back from the node Ready last through what it waited on
// last: a dependency, the node that applied it, or a CRD's provider.
func (x *sim) critical() []tiers.ID {
	var last *node
	for _, nd := range x.order {
		if nd.ready && (last == nil || nd.readyAt > last.readyAt) {
			last = nd
		}
	}
	var path []tiers.ID
	seen := map[tiers.ID]bool{}
	for nd := last; nd != nil && !seen[nd.ID]; {
		seen[nd.ID] = true
		path = append(path, nd.ID)
		var next *node
		consider := func(id tiers.ID) {
			if p, ok := x.nodes[id]; ok && p.ready && (next == nil || p.readyAt > next.readyAt) {
				next = p
			}
		}
		for _, d := range nd.DependsOn {
			consider(d)
		}
		if nd.AppliedBy != nil {
			consider(*nd.AppliedBy)
		}
		for _, n := range nd.Needs {
			consider(n.Provider)
		}
		nd = next
	}
	slices.Reverse(path)
	return path
}
