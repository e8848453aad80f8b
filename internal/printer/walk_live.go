package printer

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// liveTerminal is what the live view needs of its terminal besides a
// writer: its size now, word that the size changed (SIGWINCH), a frame
// tick and a clock. A nil channel never fires.
type liveTerminal struct {
	// Size returns the terminal's width and height in cells; ok is false
	// when the terminal cannot tell, and the last size it told is kept.
	Size    func() (width, height int, ok bool)
	Resized <-chan os.Signal
	// Ticks come every frame (liveFrame in production): each redraws when
	// events came since the last redraw, or a second passed.
	Ticks <-chan time.Time
	Now   func() time.Time
	// Stop releases Resized and Ticks.
	Stop func()
}

// liveFrame is the least time between two redraws an event causes; the
// events of a burst (a walk's first step reports every node) wait for the
// next tick, and are drawn as one frame.
const liveFrame = 100 * time.Millisecond

// liveWalk redraws a view of the walk in place at the bottom of a terminal
// (a header, a line per tier, the rows that matter), every second and on
// events (at most every liveFrame), sized to the terminal as it is at each
// redraw. Notes (diagnoses, actions other than a reconcile) are printed
// once, above the view, to stay in the scrollback; Close leaves the final
// view and the summary below them.
type liveWalk struct {
	w      io.Writer
	styles Styles
	term   liveTerminal
	notes  *walkNotes

	mu    sync.Mutex
	view  liveView
	lines []string // notes printed above the view at the next redraw
	// dirty is true when events came since lastDraw.
	dirty    bool
	lastDraw time.Time
	// drawn are the widths of the lines of the view last drawn, and
	// drawnAt the terminal's width then: what the next redraw moves the
	// cursor up over.
	drawn          []int
	drawnAt        int
	width, height  int
	closed         bool
	quit, followed chan struct{}
	stopOnce       sync.Once
}

// openLiveWalk returns the live view on the terminal f, or false when f's
// size cannot be read or is too small (liveFits) for it.
func openLiveWalk(f *os.File, st Styles, explained []tiers.ID) (*liveWalk, bool) {
	size := func() (int, int, bool) { return terminalSize(f) }
	if width, height, ok := size(); !ok || !liveFits(width, height) {
		return nil, false
	}
	ticker := time.NewTicker(liveFrame)
	resized := make(chan os.Signal, 1)
	stopResize := notifyResize(resized)
	p := newLiveWalk(f, st, liveTerminal{
		Size: size, Resized: resized, Ticks: ticker.C, Now: time.Now,
		Stop: func() { ticker.Stop(); stopResize() },
	})
	p.notes = newWalkNotes(explained)
	return p, true
}

// newLiveWalk starts the live view on w; Close stops it.
func newLiveWalk(w io.Writer, st Styles, t liveTerminal) *liveWalk {
	p := &liveWalk{
		w: w, styles: st, term: t, notes: newWalkNotes(nil),
		quit: make(chan struct{}), followed: make(chan struct{}),
	}
	p.width, p.height, _ = t.Size()
	go p.follow()
	return p
}

// follow redraws on every resize, and on ticks when events came or a
// second passed, until Close.
func (p *liveWalk) follow() {
	defer close(p.followed)
	for {
		resized := false
		select {
		case <-p.quit:
			return
		case <-p.term.Ticks:
		case <-p.term.Resized:
			resized = true
		}
		p.mu.Lock()
		begun := len(p.view.nodes) > 0 || len(p.lines) > 0
		if !p.closed && begun && (resized || p.dirty || p.term.Now().Sub(p.lastDraw) >= time.Second) {
			p.redraw(nil)
		}
		p.mu.Unlock()
	}
}

func (p *liveWalk) Event(e wait.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if p.view.start.IsZero() {
		p.view.start = e.Time
	}
	switch {
	case isNote(e):
		e.Message = printable(e.Message)
		p.lines = append(p.lines, eventLine(e, p.styles, p.notes))
	case e.Type == wait.EventNode && e.Node != nil:
		p.view.update(e)
		if e.Phase == wait.PhaseFailed {
			// A failure is explained once, above the view, where it stays;
			// its row keeps only the first words.
			e.Message = printable(e.Message)
			p.lines = append(p.lines, eventLine(e, p.styles, p.notes))
		}
	}
	p.dirty = true
	if p.term.Now().Sub(p.lastDraw) >= liveFrame {
		p.redraw(nil)
	}
}

// isNote tells the events printed once, to stay, from those the view
// redraws: a diagnosis, and every action but the routine reconcile.
func isNote(e wait.Event) bool {
	return e.Type == wait.EventDiagnosis || (e.Type == wait.EventAction && e.Action != string(wait.ActionReconcile))
}

// Close stops the ticks and resizes, then draws the view a last time with
// the summary under it.
func (p *liveWalk) Close(s wait.Summary) {
	p.stopOnce.Do(func() {
		close(p.quit)
		<-p.followed
		if p.term.Stop != nil {
			p.term.Stop()
		}
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	p.redraw(&s)
}

// redraw moves the cursor up over the view last drawn, prints the notes
// that came since, then the view (with the summary, when final) and clears
// what the old view left below. It draws in one write, so the terminal
// shows no half-drawn frame.
func (p *liveWalk) redraw(final *wait.Summary) {
	now := p.term.Now()
	p.dirty, p.lastDraw = false, now
	if width, height, ok := p.term.Size(); ok && width > 0 && height > 0 {
		p.width, p.height = width, height
	}
	var b strings.Builder
	if up := rowsAfterResize(p.drawn, p.drawnAt, p.width); up > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", up)
	}
	b.WriteString("\r")
	for _, note := range p.lines {
		for _, line := range wrapLines(note, p.width) {
			b.WriteString(line + "\x1b[K\n")
		}
	}
	p.lines = nil
	// The cursor rests on the row below the view, so the view has one row
	// less than the screen: were it taller, its top would scroll away
	// where no cursor movement reaches it.
	room := max(1, p.height-1)
	var lines, summary []string
	if final != nil {
		summary = wrapLines(summaryLine(*final, p.styles), p.width)
		lines = p.view.lines(now, p.width, room-len(summary), false, p.styles)
	} else {
		lines = p.view.lines(now, p.width, room, true, p.styles)
	}
	p.drawn = p.drawn[:0]
	for _, line := range lines {
		b.WriteString(line + "\x1b[K\n")
		p.drawn = append(p.drawn, ansi.StringWidth(line))
	}
	p.drawnAt = p.width
	for _, line := range summary {
		b.WriteString(line + "\x1b[K\n")
	}
	b.WriteString("\x1b[J")
	_, _ = io.WriteString(p.w, b.String())
}

// rowsAfterResize returns how many rows the lines drawn (of these widths,
// on a terminal drawnAt cells wide) take on one width cells wide. A
// terminal that narrows reflows a line wider than it onto several rows, as
// most terminals do today (VTE, iTerm2, kitty, Windows Terminal, tmux);
// one that does not (xterm) cuts it, and the redraw then clears a few rows
// above the view too, rather than leave broken rows behind.
func rowsAfterResize(drawn []int, drawnAt, width int) int {
	if width >= drawnAt || width <= 0 {
		return len(drawn)
	}
	rows := 0
	for _, w := range drawn {
		rows += max(1, (w+width-1)/width)
	}
	return rows
}
