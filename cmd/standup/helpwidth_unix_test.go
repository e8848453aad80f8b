//go:build unix

package main

import (
	"bytes"
	"io"
	"testing"

	"github.com/creack/pty"

	"github.com/kubestandup/standup/internal/ciskip"
	"github.com/kubestandup/standup/internal/cliargs"
)

// TestHelpWidthIsTheTerminals: help is wrapped to the width of the
// terminal stdout is (a pseudo-terminal here), to 80 columns where stdout
// is no terminal.
func TestHelpWidthIsTheTerminals(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		ciskip.Skipf(t, "no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { _ = tty.Close(); _ = ptmx.Close() })
	go func() { _, _ = io.Copy(io.Discard, ptmx) }()
	for _, cols := range []uint16{60, 140} {
		if err := pty.Setsize(ptmx, &pty.Winsize{Cols: cols, Rows: 30}); err != nil {
			t.Fatal(err)
		}
		if got := helpWidth(tty); got != int(cols) {
			t.Errorf("helpWidth of a %d-column terminal = %d", cols, got)
		}
	}
	if got := helpWidth(&bytes.Buffer{}); got != cliargs.DefaultWidth {
		t.Errorf("helpWidth of a buffer = %d, want %d", got, cliargs.DefaultWidth)
	}
}
