package printer

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// vtTerminal is a terminal emulator that keeps its scrollback, written to
// through the tty's newline translation (ONLCR), as a program's stderr is.
type vtTerminal struct {
	emu *vt.Emulator
}

func newVTTerminal(width, height int) *vtTerminal {
	return &vtTerminal{emu: vt.NewEmulator(width, height)}
}

func (t *vtTerminal) Write(p []byte) (int, error) {
	if _, err := t.emu.Write(bytes.ReplaceAll(p, []byte("\n"), []byte("\r\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (t *vtTerminal) size() (width, height int, ok bool) {
	return t.emu.Width(), t.emu.Height(), true
}

// screen returns the rows on screen, top first, trailing spaces trimmed.
func (t *vtTerminal) screen() []string {
	rows := make([]string, t.emu.Height())
	for y := range rows {
		line := make(uv.Line, t.emu.Width())
		for x := range line {
			if c := t.emu.CellAt(x, y); c != nil {
				line[x] = *c
			}
		}
		rows[y] = strings.TrimRight(line.String(), " ")
	}
	return rows
}

// scrollback returns the rows that scrolled off the screen, oldest first.
func (t *vtTerminal) scrollback() []string {
	var rows []string
	for _, line := range t.emu.Scrollback().Lines() {
		rows = append(rows, strings.TrimRight(line.String(), " "))
	}
	return rows
}

// wrapped returns the rows, scrollback then screen, whose last column is
// written. The live view never writes the last column, so a row that
// reaches it is one the terminal wrapped (or one a wider view left behind).
func (t *vtTerminal) wrapped() []string {
	var rows []string
	width := t.emu.Width()
	for _, line := range t.emu.Scrollback().Lines() {
		if len(line) >= width && strings.TrimSpace(line[width-1].Content) != "" {
			rows = append(rows, line.String())
		}
	}
	for y := range t.emu.Height() {
		if c := t.emu.CellAt(width-1, y); c != nil && strings.TrimSpace(c.Content) != "" {
			rows = append(rows, t.screen()[y])
		}
	}
	return rows
}

// walk40 is a cold start of 40 Kustomizations in six tiers, as the walker
// reports it: every node pending first, then tier by tier each one
// reconciling and ready; on the way a proven deadlock that a pre-apply of
// CRDs repairs (with a diagnosis, an action and a failed action, the notes
// that persist), a node whose health check fails and the three nodes it
// blocks, and a node still reconciling when the walk is interrupted.
func walk40() ([]wait.Event, wait.Summary) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	sizes := []int{6, 8, 10, 8, 5, 3}
	bases := []string{"infra-controllers", "infra-configs", "platform-services", "monitoring-stack", "apps", "tenants"}
	namespaces := []string{"flux-system", "flux-system", "platform", "monitoring", "apps", "tenants"}
	type node struct {
		id   tiers.ID
		tier int
	}
	var nodes []node
	for tier, n := range sizes {
		for i := range n {
			nodes = append(nodes, node{id: tiers.ID{Kind: "Kustomization", Namespace: namespaces[tier], Name: fmt.Sprintf("%s-%02d", bases[tier], i)}, tier: tier})
		}
	}
	now := t0
	var evs []wait.Event
	nodeEvent := func(nd node, ph wait.Phase, reason, msg string, kicked time.Time) {
		id := nd.id
		evs = append(evs, wait.Event{Time: now, Type: wait.EventNode, Node: &id, Tier: nd.tier, Phase: ph, Reason: reason, Message: msg, Elapsed: wait.Duration(now.Sub(kicked))})
	}
	for _, nd := range nodes {
		nodeEvent(nd, wait.PhasePending, "", "waiting for dependencies", t0)
	}
	deadlocked, unhealthy := nodes[9].id, nodes[16].id
	blocked := map[tiers.ID]bool{nodes[26].id: true, nodes[27].id: true, nodes[35].id: true}
	interrupted := nodes[39].id
	d := deadlockDiagnosis(deadlocked)
	for tier := range sizes {
		var inTier []node
		for _, nd := range nodes {
			if nd.tier == tier && !blocked[nd.id] {
				inTier = append(inTier, nd)
			}
		}
		kicked := now
		for _, nd := range inTier {
			id := nd.id
			evs = append(evs, wait.Event{Time: now, Type: wait.EventAction, Node: &id, Tier: tier, Action: string(wait.ActionReconcile), Message: "requested"})
			nodeEvent(nd, wait.PhaseReconciling, "Progressing", "Reconciliation in progress", kicked)
		}
		for _, nd := range nodes {
			if nd.tier == tier && blocked[nd.id] {
				nodeEvent(nd, wait.PhaseBlocked, "", "dependency "+unhealthy.NamespacedName()+" failed", kicked)
			}
		}
		for i, nd := range inTier {
			now = now.Add(time.Duration(700+97*i) * time.Millisecond)
			id := nd.id
			switch id {
			case deadlocked:
				nodeEvent(nd, wait.PhaseFailed, "ReconciliationFailed", `StorageProfile/local dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"`, kicked)
				evs = append(evs,
					wait.Event{Time: now, Type: wait.EventDiagnosis, Node: &id, Tier: tier, Message: "cold-start deadlock proven", Diagnosis: d},
					wait.Event{Time: now, Type: wait.EventAction, Node: &id, Tier: tier, Action: string(wait.ActionPreApplyCRDs), Reason: "Failed", Message: "storageprofiles.cdi.kubevirt.io: the server is currently unable to handle the request"},
					wait.Event{Time: now, Type: wait.EventAction, Node: &id, Tier: tier, Action: string(wait.ActionPreApplyCRDs), Message: "created storageprofiles.cdi.kubevirt.io"})
				nodeEvent(nd, wait.PhaseRemediating, "", "pre-applying CRDs", kicked)
				now = now.Add(2 * time.Second)
				nodeEvent(nd, wait.PhaseCRDs, "", "waiting for 3 CRDs to be established", kicked)
				now = now.Add(time.Second)
				nodeEvent(nd, wait.PhaseReady, "ReconciliationSucceeded", "Applied revision: main@sha1:5e1d0c2", kicked)
			case unhealthy:
				nodeEvent(nd, wait.PhaseFailed, "HealthCheckFailed", "timeout waiting for: [Deployment/platform/ingress-nginx-controller status: 'InProgress']", kicked)
			case interrupted:
				nodeEvent(nd, wait.PhaseReconciling, "Progressing", "Running health checks for revision main@sha1:5e1d0c2 with a timeout of 5m0s", kicked)
			default:
				nodeEvent(nd, wait.PhaseReady, "ReconciliationSucceeded", "Applied revision: main@sha1:5e1d0c2\nKustomization/"+id.NamespacedName()+" configured", kicked)
			}
		}
	}
	s := wait.Summary{Ready: 35, Failed: 1, Blocked: 3, Pending: 1, Total: 40, Mutations: 39, Elapsed: wait.Duration(now.Sub(t0)),
		FailedNodes: []tiers.ID{unhealthy}, Interrupted: true, Limit: poolLimit()}
	return evs, s
}

// TestLiveWalkFitsTheTerminal draws walk40 through a terminal emulator at
// 80×24 and 200×50, below a shell prompt, and reads what a user would see:
// the screen and the scrollback. No row may be wrapped or repeated; the
// scrollback may hold only what was there before, the notes that persist
// (diagnoses, CRD actions) and the summary, never a row of the redrawn view.
func TestLiveWalkFitsTheTerminal(t *testing.T) {
	evs, s := walk40()
	for _, size := range []struct{ width, height int }{{80, 24}, {200, 50}} {
		for _, color := range []bool{false, true} {
			t.Run(fmt.Sprintf("%dx%d color=%t", size.width, size.height, color), func(t *testing.T) {
				term := newVTTerminal(size.width, size.height)
				_, _ = term.Write([]byte(shellPrompt + "\n"))
				d := startLiveOn(term, color)
				for i, e := range evs {
					d.event(e)
					if i%7 == 0 {
						d.tick(e.Time.Add(time.Second))
					}
				}
				d.p.Close(s)
				checkLiveScreen(t, term, append([]string{shellPrompt}, persistentNotes(evs)...), summaryLine(s, NewStyles(nil, false)))
			})
		}
	}
}

const shellPrompt = "$ standup resume"

// liveDriver drives a live view as a walk does, with a clock the test
// sets: each event sets it to the event's time.
type liveDriver struct {
	p     *liveWalk
	clock *testClock
	ticks chan time.Time
}

func startLiveOn(term *vtTerminal, color bool) *liveDriver {
	d := &liveDriver{clock: &testClock{}, ticks: make(chan time.Time)}
	d.p = newLiveWalk(term, NewStyles(term, color), liveTerminal{Size: term.size, Ticks: d.ticks, Now: d.clock.now})
	return d
}

func (d *liveDriver) event(e wait.Event) {
	d.clock.set(e.Time)
	d.p.Event(e)
}

// tick sets the clock and redraws, as a second passing does. It sends the
// tick twice: the second send returns only once the first redraw is done.
func (d *liveDriver) tick(now time.Time) {
	d.clock.set(now)
	d.ticks <- now
	d.ticks <- now
}

type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// checkLiveScreen checks what a closed live view left on term: no wrapped
// row, no row twice, nothing in the scrollback but what persists, and the
// summary last on screen.
func checkLiveScreen(t *testing.T, term *vtTerminal, persistent []string, summary string) {
	t.Helper()
	screen, scrollback := term.screen(), term.scrollback()
	defer func() {
		if t.Failed() {
			t.Logf("scrollback, %d rows, the last 30:\n%s", len(scrollback), strings.Join(scrollback[max(0, len(scrollback)-30):], "\n"))
			t.Logf("screen:\n%s", strings.Join(screen, "\n"))
		}
	}()
	if rows := term.wrapped(); len(rows) > 0 {
		t.Errorf("%d rows reach the last column (wrapped), the first: %q", len(rows), rows[0])
	}
	checkNoRepeats(t, append(append([]string(nil), scrollback...), screen...))
	kept := normalizeSpace(strings.Join(append(persistent, summary), " "))
	var strays []string
	for _, row := range scrollback {
		if !strings.Contains(kept, normalizeSpace(row)) {
			strays = append(strays, row)
		}
	}
	if len(strays) > 0 {
		t.Errorf("scrollback holds %d rows that are neither a note nor the summary, the first: %q", len(strays), strays[0])
	}
	if text := normalizeSpace(strings.Join(screen, " ")); !strings.HasSuffix(text, normalizeSpace(summary)) {
		t.Errorf("the screen does not end with the summary %q", summary)
	}
}

// checkNoRepeats fails for each row but blank ones that rows hold twice.
func checkNoRepeats(t *testing.T, rows []string) {
	t.Helper()
	seen := map[string]int{}
	var repeated []string
	for _, row := range rows {
		if strings.TrimSpace(row) == "" {
			continue
		}
		if seen[row]++; seen[row] == 2 {
			repeated = append(repeated, row)
		}
	}
	if len(repeated) > 0 {
		t.Errorf("%d rows repeated, the first: %q", len(repeated), repeated[0])
	}
}

// persistentNotes returns the plain text of the events the live view
// prints once, above the redrawn rows, to stay in the scrollback: notes
// and failures.
func persistentNotes(evs []wait.Event) []string {
	var notes []string
	said := newWalkNotes(nil)
	for _, e := range evs {
		if isNote(e) || e.Type == wait.EventNode && e.Phase == wait.PhaseFailed {
			e.Message = printable(e.Message)
			notes = append(notes, eventLine(e, NewStyles(nil, false), said))
		}
	}
	return notes
}

var spaces = regexp.MustCompile(`\s+`)

func normalizeSpace(s string) string {
	return strings.TrimSpace(spaces.ReplaceAllString(s, " "))
}

// deadlockDiagnosis is a proven deadlock of id on a kind of CDI, whose
// explanation is a paragraph longer than any terminal is wide.
func deadlockDiagnosis(id tiers.ID) *crds.Diagnosis {
	return &crds.Diagnosis{Kustomization: id, Reason: "ReconciliationFailed",
		Missing: []crds.MissingType{{Group: "cdi.kubevirt.io", Kind: "StorageProfile", GroupKnown: true, Versions: []string{"v1beta1"}, Plural: "storageprofiles",
			CRDName: "storageprofiles.cdi.kubevirt.io", BundleFile: "bootstrap/crds/cdi.yaml", Objects: []crds.ObjectRef{{Kind: "StorageProfile", Name: "local"}}}}}
}

// TestLiveWalkFollowsResizes: the terminal is resized while the walk runs,
// narrower, shorter, then larger again; each resize redraws the view at
// the new size, and nothing wraps or is left twice.
func TestLiveWalkFollowsResizes(t *testing.T) {
	evs, s := walk40()
	sizes := []struct{ width, height int }{{200, 50}, {120, 40}, {90, 30}, {81, 24}, {160, 45}}
	term := newVTTerminal(sizes[0].width, sizes[0].height)
	resized := make(chan os.Signal)
	clock := &testClock{}
	p := newLiveWalk(term, NewStyles(term, true), liveTerminal{Size: term.size, Resized: resized, Now: clock.now})
	step := len(evs)/len(sizes) + 1
	for i, e := range evs {
		clock.set(e.Time)
		p.Event(e)
		if i%step == step-1 {
			size := sizes[i/step+1]
			p.mu.Lock() // the emulator is not safe for a redraw during its resize
			term.emu.Resize(size.width, size.height)
			p.mu.Unlock()
			resized <- resizeSignal{}
			resized <- resizeSignal{} // returns once the first is drawn
			p.mu.Lock()
			got := p.drawnAt
			p.mu.Unlock()
			if got != size.width {
				t.Errorf("after a resize to %d columns the view is drawn for %d", size.width, got)
			}
		}
	}
	p.Close(s)
	if rows := term.wrapped(); len(rows) > 0 {
		t.Errorf("%d rows reach the last column (wrapped), the first: %q", len(rows), rows[0])
	}
	checkNoRepeats(t, append(term.scrollback(), term.screen()...))
}

// resizeSignal stands for SIGWINCH, which Windows lacks.
type resizeSignal struct{}

func (resizeSignal) String() string { return "window changed" }
func (resizeSignal) Signal()        {}

// TestLiveWalkTicks: with no event, a tick redraws the elapsed times.
func TestLiveWalkTicks(t *testing.T) {
	evs, _ := walk40()
	term := newVTTerminal(100, 30)
	d := startLiveOn(term, false)
	for _, e := range evs[:74] { // tier 1 reconciling
		d.event(e)
	}
	d.tick(evs[73].Time.Add(65 * time.Second))
	d.p.Close(wait.Summary{})
	screen := strings.Join(term.screen(), "\n")
	if !strings.Contains(screen, "flux-system/infra-configs-00 reconciling  1m05s") {
		t.Errorf("a tick 65s later does not show the running node's time:\n%s", screen)
	}
}

// TestLiveWalkCloseStops: Close stops the goroutine that redraws (a tick
// after it finds no one listening), releases the terminal, and later calls
// print nothing.
func TestLiveWalkCloseStops(t *testing.T) {
	var out lockedBuffer
	ticks := make(chan time.Time)
	stopped := 0
	p := newLiveWalk(&out, NewStyles(nil, false), liveTerminal{
		Size:  func() (int, int, bool) { return 80, 24, true },
		Ticks: ticks, Now: time.Now, Stop: func() { stopped++ },
	})
	evs, _ := walk40()
	s := wait.Summary{Ready: 1, Total: 1}
	p.Event(evs[0])
	ticks <- time.Now()
	p.Close(s)
	p.Close(s)
	select {
	case ticks <- time.Now():
		t.Error("the redraw goroutine still runs after Close")
	case <-time.After(50 * time.Millisecond):
	}
	if stopped != 1 {
		t.Errorf("Stop called %d times, want 1", stopped)
	}
	before := out.String()
	p.Event(evs[1])
	if out.String() != before {
		t.Errorf("an event after Close printed %q", strings.TrimPrefix(out.String(), before))
	}
	if n := strings.Count(before, summaryLine(s, NewStyles(nil, false))); n != 1 {
		t.Errorf("the summary is printed %d times, want once", n)
	}
}

// lockedBuffer is a bytes.Buffer the test reads while the printer writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
