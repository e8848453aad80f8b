package printer

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// cell is one styled table cell; its width is measured on the plain text.
type cell struct {
	text  string
	style *lipgloss.Style
}

// textTable lays out rows in aligned columns two spaces apart, without
// borders, so that output reads well in a terminal and in CI logs.
type textTable struct {
	rows [][]cell
	// hideHeader leaves out the first row, still counting its widths, so
	// that rows align the same with and without it.
	hideHeader bool
}

func (t *textTable) add(cells ...cell) { t.rows = append(t.rows, cells) }

// dropEmptyColumns removes the columns whose cells are all empty below the
// header row.
func (t *textTable) dropEmptyColumns() {
	if len(t.rows) < 2 {
		return
	}
	var keep []int
	for c := range t.rows[0] {
		for _, row := range t.rows[1:] {
			if c < len(row) && row[c].text != "" {
				keep = append(keep, c)
				break
			}
		}
	}
	for i, row := range t.rows {
		kept := make([]cell, 0, len(keep))
		for _, c := range keep {
			if c < len(row) {
				kept = append(kept, row[c])
			}
		}
		t.rows[i] = kept
	}
}

// fillEmpty writes c in every empty cell below the header row, so that no
// field of a row is missing.
func (t *textTable) fillEmpty(c cell) {
	if len(t.rows) == 0 {
		return
	}
	for _, row := range t.rows[1:] {
		for i := range row {
			if row[i].text == "" {
				row[i] = c
			}
		}
	}
}

func (t *textTable) render(b *strings.Builder) {
	var widths []int
	for _, row := range t.rows {
		for c, cl := range row {
			if c == len(widths) {
				widths = append(widths, 0)
			}
			widths[c] = max(widths[c], lipgloss.Width(cl.text))
		}
	}
	rows := t.rows
	if t.hideHeader && len(rows) > 0 {
		rows = rows[1:]
	}
	for _, row := range rows {
		last := len(row) - 1
		for last >= 0 && row[last].text == "" {
			last--
		}
		for c := 0; c <= last; c++ {
			cl := row[c]
			text := cl.text
			if cl.style != nil && text != "" {
				text = cl.style.Render(text)
			}
			b.WriteString(text)
			if c < last {
				b.WriteString(strings.Repeat(" ", widths[c]-lipgloss.Width(cl.text)+2))
			}
		}
		b.WriteString("\n")
	}
}
