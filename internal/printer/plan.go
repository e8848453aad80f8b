package printer

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kubestandup/standup/pkg/wait"
)

// planPrinters are the formats of PrintPlan, as of the walk it stands for.
func planPrinters() []docPrinter[[]wait.PlanStep] {
	return []docPrinter[[]wait.PlanStep]{
		{FormatText, builder(writePlanText)},
		{FormatJSON, writer(writeJSONLines[wait.PlanStep])},
	}
}

// PrintPlan writes what `resume --dry-run` would do, one step per line:
// tab-separated tier, node and action (text), or one JSON object per step.
func PrintPlan(w io.Writer, format string, steps []wait.PlanStep) error {
	p, err := lookup(planPrinters(), format)
	if err != nil {
		return err
	}
	var buf strings.Builder
	if err := p.write(&buf, steps, renderContext{out: w}); err != nil {
		return err
	}
	_, err = io.WriteString(w, buf.String())
	return err
}

func writePlanText(b *strings.Builder, steps []wait.PlanStep) {
	for _, s := range steps {
		note := ""
		if s.Passive {
			note = " (not touched: outside the selection)"
		}
		fmt.Fprintf(b, "%d\t%s\t%s%s\n", s.Tier, s.Node, s.Action, note)
	}
}

// writeJSONLines writes one JSON object per item (NDJSON).
func writeJSONLines[T any](w io.Writer, items []T) error {
	enc := json.NewEncoder(w)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return err
		}
	}
	return nil
}
