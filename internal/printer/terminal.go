package printer

import (
	"io"
	"os"

	"golang.org/x/term"
)

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// UseColor decides colour for w: only on a terminal, and neither
// --no-color (noColor) nor the NO_COLOR environment variable (no-color.org)
// is set.
func UseColor(w io.Writer, noColor bool) bool {
	return !noColor && os.Getenv("NO_COLOR") == "" && IsTerminal(w)
}

// terminalSize returns the size of the terminal f in cells, as the terminal
// reports it now; ok is false when f is no terminal or tells no size.
func terminalSize(f *os.File) (width, height int, ok bool) {
	width, height, err := term.GetSize(int(f.Fd()))
	return width, height, err == nil && width > 0 && height > 0
}

// TerminalWidth returns the width in cells of the terminal w is; ok is
// false when w is no terminal or tells no width.
func TerminalWidth(w io.Writer) (width int, ok bool) {
	f, isFile := w.(*os.File)
	if !isFile || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	width, _, ok = terminalSize(f)
	return width, ok
}
