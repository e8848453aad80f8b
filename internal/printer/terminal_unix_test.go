//go:build unix

package printer

import (
	"bytes"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/kubestandup/standup/internal/ciskip"
)

// TestNewWalkPrinterOnATerminal: on a real terminal (a pseudo-terminal),
// the walk printer reads the size the terminal reports: the live view when
// it fits, plain lines when not; and the live view follows SIGWINCH.
func TestNewWalkPrinterOnATerminal(t *testing.T) {
	tests := []struct {
		name       string
		cols, rows uint16
		wantLive   bool
	}{
		{name: "large enough", cols: 100, rows: 30, wantLive: true},
		{name: "the smallest that fits", cols: liveMinWidth, rows: liveMinHeight, wantLive: true},
		{name: "too narrow", cols: liveMinWidth - 1, rows: 30},
		{name: "too short", cols: 100, rows: liveMinHeight - 1},
	}
	evs, s := walkEvents()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tty := openPTY(t, tt.cols, tt.rows)
			var out bytes.Buffer
			p := NewWalkPrinter(&out, tty, WalkOptions{Format: FormatText})
			live, isLive := p.(*liveWalk)
			if _, isPlain := p.(*plainWalk); isLive != tt.wantLive || isPlain == tt.wantLive {
				t.Fatalf("NewWalkPrinter on a %d×%d terminal = %T, want the live view: %t", tt.cols, tt.rows, p, tt.wantLive)
			}
			for _, e := range evs {
				p.Event(e)
			}
			if isLive {
				if err := pty.Setsize(tty, &pty.Winsize{Cols: tt.cols + 20, Rows: tt.rows + 5}); err != nil {
					t.Fatal(err)
				}
				if err := syscall.Kill(os.Getpid(), syscall.SIGWINCH); err != nil {
					t.Fatal(err)
				}
				waitFor(t, func() bool {
					live.mu.Lock()
					defer live.mu.Unlock()
					return live.drawnAt == int(tt.cols)+20
				})
			}
			p.Close(s)
			if out.Len() > 0 {
				t.Errorf("progress on stdout: %q", out.String())
			}
		})
	}
}

// openPTY returns the terminal end of a pseudo-terminal of cols×rows,
// whose output is read and dropped so that writes never block.
func openPTY(t *testing.T, cols, rows uint16) *os.File {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		ciskip.Skipf(t, "no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { _ = tty.Close(); _ = ptmx.Close() })
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: cols, Rows: rows}); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, ptmx) }()
	return tty
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("the live view did not redraw at the new size")
}

// TestLiveWalkOnAPseudoTerminal is TestLiveWalkFitsTheTerminal end to end:
// the walk printer NewWalkPrinter picks for a pseudo-terminal of 80×24,
// with the real clock, ticker and size, and the tty's own newline
// translation, read back through the emulator.
func TestLiveWalkOnAPseudoTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		ciskip.Skipf(t, "no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: 80, Rows: 24}); err != nil {
		t.Fatal(err)
	}
	term := newVTTerminal(80, 24)
	read := make(chan struct{})
	go func() {
		defer close(read)
		_, _ = io.Copy(term.emu, ptmx) // ends when tty is closed and all is read
	}()
	evs, s := walk40()
	shift := time.Since(evs[0].Time)
	p := NewWalkPrinter(io.Discard, tty, WalkOptions{Format: FormatText})
	if _, ok := p.(*liveWalk); !ok {
		t.Fatalf("NewWalkPrinter on an 80×24 terminal = %T, want the live view", p)
	}
	for i, e := range evs {
		e.Time = e.Time.Add(shift)
		p.Event(e)
		if i%40 == 0 {
			time.Sleep(150 * time.Millisecond) // a frame tick or two
		}
	}
	p.Close(s)
	_ = tty.Close()
	<-read
	checkLiveScreen(t, term, persistentNotes(evs), summaryLine(s, NewStyles(nil, false)))
}
