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
		{FormatJSON, writer(writePlanJSON)},
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

// planRecord is one NDJSON line of resume --dry-run -o json: the step,
// after the schema version that every line of resume -o json carries.
type planRecord struct {
	SchemaVersion int `json:"schemaVersion"`
	wait.PlanStep
}

// writePlanJSON writes one JSON object per step (NDJSON).
func writePlanJSON(w io.Writer, steps []wait.PlanStep) error {
	enc := json.NewEncoder(w)
	for _, s := range steps {
		if err := enc.Encode(planRecord{SchemaVersion: WalkSchemaVersion, PlanStep: s}); err != nil {
			return err
		}
	}
	return nil
}
