package printer

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubestandup/standup/pkg/check"
)

// PrintCheck writes the checklist of `standup check` for people: one line
// per check, the objects it looked at under it, wrapped at 100 columns.
func PrintCheck(w io.Writer, r check.Report, st Styles) {
	for _, c := range r.Checks {
		mark := st.OK.Render("✔")
		switch c.Status {
		case check.Fail:
			mark = st.Fail.Render("✗")
		case check.Skip:
			mark = st.Dim.Render("-")
		}
		fmt.Fprintf(w, "%s %s\n", mark, c.Summary)
		for _, it := range c.Items {
			itemMark := st.Fail.Render("✗")
			if it.OK {
				itemMark = st.OK.Render("✔")
			}
			head := ""
			if it.Object != nil && it.Diagnosis == nil { // a diagnosis names its Kustomization itself
				head = it.Object.String() + ": "
			}
			fmt.Fprintf(w, "  %s %s\n", itemMark, wrapText(head+it.Message, "    ", 100))
		}
	}
	if r.OK {
		fmt.Fprintln(w, st.OK.Render("all checks passed"))
	}
}

// wrapText breaks s into lines of at most width columns at spaces; lines after
// the first are indented. Words longer than width stay whole.
func wrapText(s, indent string, width int) string {
	var b strings.Builder
	col := 0
	for i, word := range strings.Fields(s) {
		switch {
		case i == 0:
		case col+1+len(word) > width:
			b.WriteString("\n" + indent)
			col = len(indent)
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += len(word)
	}
	return b.String()
}
