package coldstart

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/rehearse"
)

// Rehearsal is what `standup rehearse` prints: the repository, the model,
// and each contender's predicted bring-up.
type Rehearsal struct {
	Path           string         `json:"path"`
	Kustomizations int            `json:"kustomizations"`
	HelmReleases   int            `json:"helmReleases"`
	Model          rehearse.Model `json:"model"`
	// Durations says where each node's reconcile duration comes from.
	Durations Durations          `json:"durations"`
	Results   []*rehearse.Result `json:"results"`
	// Picture is the contender whose Gantt chart -o mermaid draws.
	Picture int `json:"-"`
}

// Durations says where a rehearsal took each node's reconcile duration
// from: measured (an incident record, a cluster's status.history) or the
// cost model.
type Durations struct {
	// Source is where the measured ones come from (record or cluster);
	// empty when every node has the model's.
	Source rehearse.Source `json:"source,omitempty"`
	// From names it: the record file, or the API server.
	From string `json:"from,omitempty"`
	// Measured counts the nodes given a measured duration.
	Measured int `json:"measured"`
	// Nodes are every node's duration and its source, in the scenario's
	// order.
	Nodes []rehearse.NodeDuration `json:"nodes"`
}

// RehearseSchemaVersion is the version of `standup rehearse -o json`.
const RehearseSchemaVersion = 1

func rehearsePrinters() []printer.DocPrinter[Rehearsal] {
	return []printer.DocPrinter[Rehearsal]{
		{Format: printer.FormatText, Write: printer.FromBuilder(writeRehearsal)},
		{Format: printer.FormatJSON, Write: printer.FromWriter(func(w io.Writer, r Rehearsal) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(struct {
				SchemaVersion int `json:"schemaVersion"`
				Rehearsal
			}{RehearseSchemaVersion, r})
		})},
		{Format: printer.FormatMermaid, Write: printer.FromWriter(func(w io.Writer, r Rehearsal) error { return r.Results[r.Picture].Timeline.Mermaid(w) })},
	}
}

// RehearseFormats are the formats of `standup rehearse`.
func RehearseFormats() []string { return printer.FormatNames(rehearsePrinters()) }

// PrintRehearsal writes r to w in format, rendered whole first.
func PrintRehearsal(w io.Writer, format string, r Rehearsal) error {
	return printer.Print(w, rehearsePrinters(), format, r, printer.RenderContext{}, "rehearse")
}

func dsecs(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

func allReady(r *rehearse.Result) string {
	if !r.Converged {
		return "never"
	}
	return dsecs(r.AllReady)
}

// minStall is the shortest stall the text lists (-o json has them all).
const minStall = 100 * time.Millisecond

// stallsOf are res's stalls of nodes that end Ready, of at least minStall:
// a node that never converges stalls for ever, and says why instead.
func stallsOf(res *rehearse.Result) []rehearse.Stall {
	never := map[string]bool{}
	for _, n := range res.Never {
		never[n.Node.String()] = true
	}
	var out []rehearse.Stall
	for _, s := range res.Stalls {
		if !never[s.Node.String()] && s.Cost() >= minStall {
			out = append(out, s)
		}
	}
	return out
}

func writeRehearsal(b *strings.Builder, r Rehearsal) {
	m := r.Model
	fmt.Fprintf(b, "rehearsal of %s: %d Kustomizations, %d HelmReleases\n(a prediction from the model of docs/rehearse.md: %d workers, a reconcile %s + %s per object, health checks %s, an operator %s)\n",
		r.Path, r.Kustomizations, r.HelmReleases, m.Workers, m.PerBuild, m.PerObject, m.Health, m.OperatorDelay)
	if d := r.Durations; d.Source != "" {
		if rest := len(d.Nodes) - d.Measured; rest > 0 {
			fmt.Fprintf(b, "(reconcile durations: %d of %d nodes measured, from the %s %s; the other %d from the model)\n", d.Measured, len(d.Nodes), d.Source, d.From, rest)
		} else {
			fmt.Fprintf(b, "(reconcile durations: all %d nodes measured, from the %s %s)\n", d.Measured, d.Source, d.From)
		}
	}
	b.WriteString("\n")
	rows := [][]string{{"CONTENDER", "ALL READY", "STALLED", "CRITICAL PATH"}}
	for _, res := range r.Results {
		var stalled time.Duration
		for _, s := range stallsOf(res) {
			stalled += s.Cost()
		}
		path := fmt.Sprintf("%d nodes", len(res.CriticalPath))
		if !res.Converged {
			path = fmt.Sprintf("%d never Ready", len(res.Never))
		}
		rows = append(rows, []string{res.Contender, allReady(res), dsecs(stalled), path})
	}
	printer.WriteRows(b, rows, false)
	for _, res := range r.Results {
		if res.Converged {
			fmt.Fprintf(b, "\ncritical path under %s: %s\n", res.Contender, printer.JoinIDs(res.CriticalPath, " → "))
			break
		}
	}
	for _, res := range r.Results {
		if len(res.Never) > 0 {
			fmt.Fprintf(b, "\nnever Ready under %s:\n", res.Contender)
			for _, n := range res.Never {
				fmt.Fprintf(b, "  %s: %s\n", printer.NodeName(n.Node), n.Why)
			}
		}
	}
	if len(r.Results) > 0 {
		first := r.Results[0]
		if stalls := stallsOf(first); len(stalls) > 0 {
			fmt.Fprintf(b, "\nstalls under %s, the costliest first:\n", first.Contender)
			for i, s := range stalls {
				if i == 10 {
					fmt.Fprintf(b, "  … and %d more (-o json lists them)\n", len(stalls)-10)
					break
				}
				detail := ""
				if s.Detail != "" {
					detail = ": " + s.Detail
				}
				fmt.Fprintf(b, "  %7s  %-7s %s%s\n", dsecs(s.Cost()), s.Cause, printer.NodeName(s.Node), detail)
			}
		}
	}
	for _, res := range r.Results {
		for _, rep := range res.Repaired {
			fmt.Fprintf(b, "\n%s repairs %s\n", res.Contender, rep)
		}
	}
	if len(r.Results) == 3 && r.Results[2].Converged {
		st := r.Results[2].AllReady
		var parts []string
		for _, res := range r.Results[:2] {
			if !res.Converged {
				parts = append(parts, res.Contender+" never converges")
			} else if st > 0 {
				parts = append(parts, fmt.Sprintf("%s takes %.2f× as long", res.Contender, res.AllReady.Seconds()/st.Seconds()))
			}
		}
		fmt.Fprintf(b, "\nagainst standup: %s\n", strings.Join(parts, ", "))
	}
}
