package fix

import (
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// Diff is the unified diff of before and after, named name (slash
// separated, as `git apply` reads it from the root of the git repository:
// "--- a/name", "+++ b/name"), with three lines of context; "" when they
// are equal. A last line without its line ending is marked as diff marks
// it, so that the patch applies exactly.
func Diff(name string, before, after []byte) string {
	if string(before) == string(after) {
		return ""
	}
	a, b := diffLines(before), diffLines(after)
	// Without autojunk: a line repeated in a long file (namespace:
	// flux-system) must not be taken for noise and widen the hunks.
	m := difflib.NewMatcherWithJunk(a, b, false, nil)
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", name, name)
	for _, group := range m.GetGroupedOpCodes(3) {
		first, last := group[0], group[len(group)-1]
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(first.I1, last.I2), hunkRange(first.J1, last.J2))
		for _, op := range group {
			if op.Tag == 'e' {
				writeLines(&out, " ", a[op.I1:op.I2])
				continue
			}
			if op.Tag == 'r' || op.Tag == 'd' {
				writeLines(&out, "-", a[op.I1:op.I2])
			}
			if op.Tag == 'r' || op.Tag == 'i' {
				writeLines(&out, "+", b[op.J1:op.J2])
			}
		}
	}
	return out.String()
}

// splitLines splits data into lines without their "\n" (a "\r" stays, as
// diff keeps it), and says whether the last one ends with a line ending.
func splitLines(data []byte) ([]string, bool) {
	s := string(data)
	ends := strings.HasSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\n")
	if s == "" && !ends {
		return nil, true
	}
	return strings.Split(s, "\n"), ends
}

// noEOL marks a last line without its line ending, so that it differs
// from the same text with one: the diff removes it and adds it back.
const noEOL = "\x00no newline"

// diffLines are the lines of data to compare, the last one marked when it
// has no line ending.
func diffLines(data []byte) []string {
	lines, ends := splitLines(data)
	if !ends && len(lines) > 0 {
		lines[len(lines)-1] += noEOL
	}
	return lines
}

// writeLines writes lines, each after mark, and says after a line that had
// no line ending that it had none.
func writeLines(out *strings.Builder, mark string, lines []string) {
	for _, l := range lines {
		text, cut := strings.CutSuffix(l, noEOL)
		out.WriteString(mark + text + "\n")
		if cut {
			out.WriteString("\\ No newline at end of file\n")
		}
	}
}

// hunkRange is a hunk's range as unified diffs write it: "start,count",
// "start" alone for one line, and the line before for none.
func hunkRange(from, to int) string {
	start, count := from+1, to-from
	switch count {
	case 1:
		return fmt.Sprint(start)
	case 0:
		return fmt.Sprintf("%d,0", start-1)
	}
	return fmt.Sprintf("%d,%d", start, count)
}
