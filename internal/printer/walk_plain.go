package printer

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// heartbeatEvery is how often the plain lines say what is still waiting,
// however quiet the walk: a CI log then shows within 30 s that standup is
// alive, and what it waits on.
const heartbeatEvery = 30 * time.Second

// settleAfter is how long a node's new state must last before the plain
// lines print it: the steps of a reconcile that ends in a second
// (fetching, building, detecting drift) are not news; a health check that
// runs for minutes is, and is printed a moment after it starts.
const settleAfter = 2 * time.Second

// plainClock is what the plain lines need of time: ticks on which to
// consider a heartbeat, each carrying the time it stands for, as a
// time.Ticker's do. A nil Ticks never ticks.
type plainClock struct {
	Ticks <-chan time.Time
	// Now is the time the printer opens: the first heartbeat comes
	// heartbeatEvery after it.
	Now func() time.Time
	// Stop releases Ticks.
	Stop func()
}

// plainWalk writes one timestamped line per change a person needs, for
// logs: actions, diagnoses, how each node ended, at once; a node's state
// whenever its reason or message changes once it has started, when the
// state has lasted settleAfter (then with the time it is printed, and how
// long the node has waited); and a heartbeat every heartbeatEvery that
// sums up what is still waiting, and on what.
type plainWalk struct {
	w, summary io.Writer
	styles     Styles
	notes      *walkNotes
	clock      plainClock

	mu sync.Mutex
	// last is each node's latest event; started holds the nodes that left
	// pending once, whose later waits are news; held are the states not
	// printed yet, until they have lasted settleAfter.
	last     map[tiers.ID]wait.Event
	started  map[tiers.ID]bool
	held     map[tiers.ID]wait.Event
	lastBeat time.Time
	closed   bool
	quit     chan struct{}
	followed chan struct{}
	stopOnce sync.Once
}

// openPlainWalk returns the plain lines on w, with a heartbeat from the
// wall clock.
func openPlainWalk(w io.Writer, st Styles, explained []tiers.ID) *plainWalk {
	ticker := time.NewTicker(time.Second)
	return newPlainWalk(w, w, st, explained, plainClock{Ticks: ticker.C, Now: time.Now, Stop: ticker.Stop})
}

// newPlainWalk starts the plain lines on w, the summary on summary; Close
// stops them.
func newPlainWalk(w, summary io.Writer, st Styles, explained []tiers.ID, c plainClock) *plainWalk {
	p := &plainWalk{
		w: w, summary: summary, styles: st, notes: newWalkNotes(explained), clock: c,
		last: map[tiers.ID]wait.Event{}, started: map[tiers.ID]bool{}, held: map[tiers.ID]wait.Event{},
		quit: make(chan struct{}), followed: make(chan struct{}),
	}
	if c.Now != nil {
		p.lastBeat = c.Now()
	}
	go p.follow()
	return p
}

func (p *plainWalk) follow() {
	defer close(p.followed)
	for {
		select {
		case <-p.quit:
			return
		case now := <-p.clock.Ticks:
			p.mu.Lock()
			if !p.closed {
				p.settle(now, false)
			}
			if !p.closed && now.Sub(p.lastBeat) >= heartbeatEvery {
				p.lastBeat = now
				if line, ok := heartbeat(p.last, now); ok {
					fmt.Fprintf(p.w, "%s %s %s\n", now.Format("15:04:05.000"), p.styles.Dim.Render("…"), line)
				}
			}
			p.mu.Unlock()
		}
	}
}

func (p *plainWalk) Event(e wait.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || !p.news(e) {
		return
	}
	fmt.Fprintf(p.w, "%s %s\n", e.Time.Format("15:04:05.000"), eventLine(e, p.styles, p.notes))
}

// news records e and reports whether it is worth a line now: not the
// first waits of a node for its dependencies (the heartbeat sums them up),
// nor a node's "requested reconcile", which the reconcile action's line
// says; a node's state in between is held until it settles.
func (p *plainWalk) news(e wait.Event) bool {
	if e.Type != wait.EventNode || e.Node == nil {
		return true
	}
	id := *e.Node
	p.last[id] = e
	delete(p.held, id)
	switch {
	case e.Phase == wait.PhasePending && !p.started[id]:
		return false
	case e.Phase == wait.PhaseReconciling && e.Reason == "Requested":
		p.started[id] = true
		return false
	case !e.Phase.Terminal():
		p.started[id] = true
		p.held[id] = e
		return false
	}
	p.started[id] = true
	return true
}

// settle prints the held states that have lasted settleAfter at now, with
// now's time and how long each node has waited by then; all of them, at
// the times they began, when the walk ends.
func (p *plainWalk) settle(now time.Time, all bool) {
	var due []wait.Event
	for id, e := range p.held {
		if all || now.Sub(e.Time) >= settleAfter {
			due = append(due, e)
			delete(p.held, id)
		}
	}
	sort.Slice(due, func(i, j int) bool {
		if !due[i].Time.Equal(due[j].Time) {
			return due[i].Time.Before(due[j].Time)
		}
		return due[i].Node.Less(*due[j].Node)
	})
	for _, e := range due {
		if !all {
			e.Elapsed += wait.Duration(now.Sub(e.Time))
			e.Time = now
		}
		fmt.Fprintf(p.w, "%s %s\n", e.Time.Format("15:04:05.000"), eventLine(e, p.styles, p.notes))
	}
}

func (p *plainWalk) Close(s wait.Summary) {
	p.stopOnce.Do(func() {
		close(p.quit)
		<-p.followed
		if p.clock.Stop != nil {
			p.clock.Stop()
		}
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.settle(time.Time{}, true) // an interrupted walk's last states
	}
	p.closed = true
	fmt.Fprintln(p.summary, summaryLine(s, p.styles))
}

// heartbeatRunning is how many running nodes a heartbeat names; the rest
// it counts.
const heartbeatRunning = 5

// heartbeat sums up a walk from each node's latest event: how many are
// Ready, each running node with how long it has waited and the
// controller's words, and what the pending nodes wait on. false when no
// node is waiting.
func heartbeat(last map[tiers.ID]wait.Event, now time.Time) (string, bool) {
	var running []wait.Event
	pending := map[string]int{}
	var c phaseCount
	for _, e := range last {
		c.add(e.Phase)
		switch {
		case e.Phase == wait.PhasePending:
			pending[firstLine(e.Message)]++
		case !e.Phase.Terminal():
			running = append(running, e)
		}
	}
	if c.finished() {
		return "", false
	}
	sort.Slice(running, func(i, j int) bool {
		if running[i].Tier != running[j].Tier {
			return running[i].Tier < running[j].Tier
		}
		return running[i].Node.Less(*running[j].Node)
	})
	var parts []string
	for i, e := range running {
		if i == heartbeatRunning {
			parts = append(parts, fmt.Sprintf("and %d more running", len(running)-i))
			break
		}
		elapsed := time.Duration(e.Elapsed)
		if now.After(e.Time) {
			elapsed += now.Sub(e.Time)
		}
		e.Elapsed = wait.Duration(elapsed)
		parts = append(parts, e.Node.String()+" "+progressText(e))
	}
	if len(pending) > 0 {
		parts = append(parts, pendingText(pending, c.pending))
	}
	return "waiting: " + c.String() + "; " + strings.Join(parts, "; "), true
}

// pendingText names what the pending nodes wait on, the most common first.
func pendingText(why map[string]int, n int) string {
	reasons := make([]string, 0, len(why))
	for r := range why {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if why[reasons[i]] != why[reasons[j]] {
			return why[reasons[i]] > why[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	if len(reasons) > 3 {
		reasons = reasons[:3]
	}
	for i, r := range reasons {
		reasons[i] = fmt.Sprintf("%d: %s", why[r], r)
	}
	return fmt.Sprintf("%s pending (%s)", Plural(n, "node"), strings.Join(reasons, ", "))
}
