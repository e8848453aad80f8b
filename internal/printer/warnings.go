package printer

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubestandup/standup/pkg/render"
)

// maxWarningPlaces is how many subjects a grouped warning names before
// "and N more".
const maxWarningPlaces = 3

// PrintRenderWarnings writes the warnings of an offline render
// (render.Result.Warnings) to w, stderr, as audit groups its findings: a
// line for each kind of warning (render.GroupWarnings), with its count, its
// shape and its first subjects, a warning alone of its kind as it is. With
// verbose, every warning has its own line. The counts of the lines add up
// to len(warnings), which audit's summary states.
func PrintRenderWarnings(w io.Writer, warnings []string, verbose bool) error {
	var b strings.Builder
	if verbose {
		for _, warning := range warnings {
			fmt.Fprintf(&b, "warning: %s\n", warning)
		}
	} else {
		for _, g := range render.GroupWarnings(warnings) {
			writeWarningGroup(&b, g)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeWarningGroup writes one kind of warning: "warning: 97
// Kustomizations: substituteFrom Secret/… is SOPS-encrypted; … (a, b, c,
// and 94 more; -v lists all)", and "98 warnings in 40 Kustomizations: …"
// where a subject has several.
func writeWarningGroup(b *strings.Builder, g render.WarningGroup) {
	if len(g.Warnings) == 1 || len(g.Subjects) == 0 {
		for _, warning := range g.Warnings {
			fmt.Fprintf(b, "warning: %s\n", warning)
		}
		return
	}
	count := Plural(len(g.Subjects), g.Noun)
	if len(g.Warnings) > len(g.Subjects) {
		count = fmt.Sprintf("%d warnings in %s", len(g.Warnings), count)
	}
	places := strings.Join(g.Subjects[:min(len(g.Subjects), maxWarningPlaces)], ", ")
	if more := len(g.Subjects) - maxWarningPlaces; more > 0 {
		places += fmt.Sprintf(", and %d more", more)
	}
	fmt.Fprintf(b, "warning: %s: %s (%s; -v lists all)\n", count, g.Shape, places)
}
