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
