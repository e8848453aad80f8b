package printer

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kubestandup/standup/pkg/check"
)

// checkPrinters are the formats of PrintCheck, default first: the
// checklist for people, and the report as one indented JSON document
// (docs/check.md).
func checkPrinters() []DocPrinter[check.Report] {
	return []DocPrinter[check.Report]{
		{FormatText, func(b *strings.Builder, r check.Report, rc RenderContext) error {
			writeCheckText(b, r, rc.Styles())
			return nil
		}},
		{FormatJSON, FromWriter(writeCheckJSON)},
	}
}

// CheckFormats returns the formats PrintCheck accepts, default first.
func CheckFormats() []string { return FormatNames(checkPrinters()) }

// PrintCheck writes the report of `standup check` to w in the given format,
// one of CheckFormats. The output is rendered completely before anything
// is written, so a failure leaves w untouched.
func PrintCheck(w io.Writer, format string, r check.Report, opts Options) error {
	return Print(w, checkPrinters(), format, r, RenderContext{Color: opts.Color}, "check")
}

// writeCheckJSON writes r as one JSON document indented by two spaces, the
// schema of docs/check.md.
func writeCheckJSON(w io.Writer, r check.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// writeCheckText writes the checklist for people: one line per check, the
// objects it looked at under it, wrapped at 100 columns.
func writeCheckText(w io.Writer, r check.Report, st Styles) {
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
