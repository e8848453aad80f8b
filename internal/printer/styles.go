package printer

import (
	"io"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Colours are taken from the 16-colour ANSI palette, so that output is the
// same on every colour terminal and follows the user's theme.
const (
	colorRed     = lipgloss.Color("1")
	colorGreen   = lipgloss.Color("2")
	colorYellow  = lipgloss.Color("3")
	colorBlue    = lipgloss.Color("4")
	colorMagenta = lipgloss.Color("5")
	colorGray    = lipgloss.Color("8")
)

// Styles holds every lipgloss style standup prints with, by name. Add new
// styles here rather than building them where they are used.
type Styles struct {
	// OK marks success: a Ready=True object, a finished step.
	OK lipgloss.Style
	// Fail marks failure: a Ready=False object, a failed step.
	Fail lipgloss.Style
	// Pending marks something not decided yet: Ready=Unknown, in progress.
	Pending lipgloss.Style
	// Suspended marks a suspended Flux object.
	Suspended lipgloss.Style
	// Warning marks a warning line, such as a dependency treated as external.
	Warning lipgloss.Style
	// TierHeader marks the first row of each tier group.
	TierHeader lipgloss.Style
	// Header marks a table's column headings.
	Header lipgloss.Style
	// Dim marks secondary detail: paths, revisions, legends.
	Dim lipgloss.Style
	// Added and Removed mark a diff's added and removed lines.
	Added, Removed lipgloss.Style
}

// NewStyles returns the styles rendered for w. With color false every style
// renders plain text; with color true, colours are forced on even when w is
// not a terminal, since the caller has already decided.
func NewStyles(w io.Writer, color bool) Styles {
	r := lipgloss.NewRenderer(w)
	switch {
	case !color:
		r.SetColorProfile(termenv.Ascii)
	case r.ColorProfile() == termenv.Ascii:
		r.SetColorProfile(termenv.ANSI)
	}
	return Styles{
		OK:         r.NewStyle().Foreground(colorGreen),
		Fail:       r.NewStyle().Foreground(colorRed).Bold(true),
		Pending:    r.NewStyle().Foreground(colorYellow),
		Suspended:  r.NewStyle().Foreground(colorMagenta),
		Warning:    r.NewStyle().Foreground(colorYellow),
		TierHeader: r.NewStyle().Foreground(colorBlue).Bold(true),
		Header:     r.NewStyle().Bold(true),
		Dim:        r.NewStyle().Foreground(colorGray),
		Added:      r.NewStyle().Foreground(colorGreen),
		Removed:    r.NewStyle().Foreground(colorRed),
	}
}
