package timeline

import (
	"fmt"
	"io"
	"strings"
)

// mermaidTag is how Mermaid's gantt shows a state: done is grey, active
// blue, crit red; a plain task is the theme's default.
var mermaidTag = map[State]string{
	Waiting:     "done, ",
	Queued:      "done, ",
	Reconciling: "active, ",
	CRDs:        "active, ",
	Stuck:       "crit, ",
	Remediating: "crit, active, ",
	RetryWait:   "crit, done, ",
}

// Mermaid writes the timeline as a Mermaid gantt chart: a section per
// tier, a task per span named after its node and state, on an axis of
// minutes and seconds from the start (dateFormat x: milliseconds).
func (t *Timeline) Mermaid(w io.Writer) error {
	var b strings.Builder
	b.WriteString("gantt\n")
	if t.Title != "" {
		fmt.Fprintf(&b, "    title %s\n", mermaidText(t.Title))
	}
	b.WriteString("    dateFormat x\n    axisFormat %M:%S\n")
	tier := -1
	for i, bar := range t.Bars {
		if bar.Tier != tier {
			tier = bar.Tier
			fmt.Fprintf(&b, "    section tier %d\n", tier)
		}
		name := mermaidText(bar.Node.Namespace + "/" + bar.Node.Name)
		if bar.Node.Kind != "Kustomization" {
			name = mermaidText(bar.Node.Kind + " " + bar.Node.Namespace + "/" + bar.Node.Name)
		}
		for j, sp := range bar.Spans {
			if sp.To <= sp.From {
				continue
			}
			fmt.Fprintf(&b, "    %s %s :%sb%d_%d, %d, %d\n", name, sp.State, mermaidTag[sp.State], i, j, sp.From.Milliseconds(), sp.To.Milliseconds())
		}
		if bar.Outcome != Ready {
			fmt.Fprintf(&b, "    %s %s :milestone, crit, b%d_end, %d, 0ms\n", name, bar.Outcome, i, bar.End.Milliseconds())
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mermaidText keeps a name from breaking a gantt line: Mermaid ends a task
// name at ':' and a line at '#' or ';'.
func mermaidText(s string) string {
	return strings.NewReplacer(":", "-", "#", "-", ";", "-", "\n", " ").Replace(s)
}
