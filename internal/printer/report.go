package printer

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kubestandup/standup/pkg/record"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// FormatMarkdown is markdown, for an incident ticket.
const FormatMarkdown = "markdown"

// ReportSchemaVersion is the version of `standup report -o json`.
const ReportSchemaVersion = 1

func reportPrinters() []DocPrinter[*record.Report] {
	return []DocPrinter[*record.Report]{
		{FormatText, FromBuilder(func(b *strings.Builder, r *record.Report) { writeReport(b, r, false) })},
		{FormatMarkdown, FromBuilder(func(b *strings.Builder, r *record.Report) { writeReport(b, r, true) })},
		{FormatJSON, FromWriter(func(w io.Writer, r *record.Report) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(struct {
				SchemaVersion int `json:"schemaVersion"`
				*record.Report
			}{ReportSchemaVersion, r})
		})},
		{FormatMermaid, FromWriter(func(w io.Writer, r *record.Report) error { return r.Timeline.Mermaid(w) })},
	}
}

// ReportFormats are the formats of `standup report`.
func ReportFormats() []string { return FormatNames(reportPrinters()) }

// PrintReport writes r to w in format, rendered whole before anything is
// written.
func PrintReport(w io.Writer, format string, r *record.Report) error {
	return Print(w, reportPrinters(), format, r, RenderContext{}, "report")
}

func secs(d wait.Duration) string { return fmt.Sprintf("%.1fs", time.Duration(d).Seconds()) }

// writeReport writes the post-mortem for people (md: as markdown, which
// adds headings, tables and the Gantt chart in a mermaid block).
func writeReport(b *strings.Builder, r *record.Report, md bool) {
	h := r.Header
	heading := func(s string) {
		if md {
			fmt.Fprintf(b, "\n## %s\n\n", s)
		} else {
			fmt.Fprintf(b, "\n%s\n", strings.ToUpper(s))
		}
	}
	if md {
		b.WriteString("# standup incident report\n\n")
	}
	fmt.Fprintf(b, "command:    %s\n", strings.Join(h.Command, " "))
	fmt.Fprintf(b, "started:    %s, ran %s\n", h.Started.UTC().Format(time.RFC3339), secs(r.Elapsed))
	fmt.Fprintf(b, "standup:    %s\n", h.Standup)
	if h.Server != "" {
		fmt.Fprintf(b, "API server: %s\n", h.Server)
	}
	controller := h.Controller
	if controller == "" {
		controller = "not visible (standup may not list Flux's Deployments)"
	}
	fmt.Fprintf(b, "kustomize-controller: %s\n", controller)
	switch s := r.Summary; {
	case s == nil:
		fmt.Fprintf(b, "outcome:    unknown: the record ends before the walk did (the run was killed or is still going)\n")
	default:
		fmt.Fprintf(b, "outcome:    %d/%d ready, %d failed, %d blocked in %s, %d mutations", s.Ready, s.Total, s.Failed, s.Blocked, secs(s.Elapsed), s.Mutations)
		if s.Error != "" {
			fmt.Fprintf(b, "; stopped: %s", s.Error)
		}
		b.WriteString("\n")
	}
	if r.Truncated {
		b.WriteString("note:       the record's last line was cut short (the run was killed while it wrote): left out\n")
	}
	if d := r.Dropped; d != nil {
		fmt.Fprintf(b, "note:       the record reached its size limit: %s left out (%d bytes)\n", droppedText(d), d.Bytes)
	}
	if md {
		b.WriteString("\n")
	}

	heading("Critical path")
	if len(r.CriticalPath) == 0 {
		b.WriteString("none: no node was walked\n")
	} else {
		b.WriteString(JoinIDs(r.CriticalPath, " → ") + "\n")
	}
	if s := r.Summary; s != nil && s.Limit != nil {
		b.WriteString(limitLine(s.Limit) + "\n")
	}

	heading("Timeline")
	rows := [][]string{{"TIER", "NODE", "WAITED", "ON", "RECONCILED", "STUCK", "END", "OUTCOME"}}
	for _, n := range r.Nodes {
		on := "-"
		if n.WaitedOn != nil {
			on = n.WaitedOn.NamespacedName()
		}
		stuck := "-"
		if n.Stuck > 0 {
			stuck = secs(n.Stuck)
		}
		rows = append(rows, []string{fmt.Sprint(n.Tier), NodeName(n.Node), secs(n.Waited), on, secs(n.Reconciled), stuck, secs(n.End), string(n.Outcome)})
	}
	WriteRows(b, rows, md)

	heading("What standup changed")
	if len(r.Changes) == 0 {
		b.WriteString("nothing\n")
	}
	for _, c := range r.Changes {
		node := ""
		if c.Node != nil {
			node = NodeName(*c.Node) + " "
		}
		item := fmt.Sprintf("%s %s%s: %s", c.Time.UTC().Format("15:04:05.000"), node, c.Action, c.Message)
		if md {
			item = "- " + item
		}
		b.WriteString(item + "\n")
	}
	if len(r.Writes) > 0 {
		keys := slices.Sorted(maps.Keys(r.Writes))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s=%d", k, r.Writes[k])
		}
		fmt.Fprintf(b, "\nAPI writes: %s (of %d requests; %d answered with an error status or not at all, as the json lists)\n", strings.Join(parts, ", "), r.Requests, r.Failed)
	}

	if len(r.Decisions) > 0 {
		heading("Decisions")
		for _, d := range r.Decisions {
			node := ""
			if d.Node != nil {
				node = NodeName(*d.Node) + " "
			}
			proof := ""
			if d.Proof != nil {
				proof = fmt.Sprintf(" [proof: %s]", d.Proof.Kind)
			}
			item := fmt.Sprintf("%s %s%s%s", d.Time.UTC().Format("15:04:05.000"), node, d.Message, proof)
			if md {
				item = "- " + item
			}
			b.WriteString(item + "\n")
		}
	}
	if md {
		heading("Gantt")
		b.WriteString("```mermaid\n")
		_ = r.Timeline.Mermaid(b)
		b.WriteString("```\n")
	}
}

func droppedText(d *record.Dropped) string {
	keys := slices.Sorted(maps.Keys(d.Lines))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s lines", d.Lines[k], k)
	}
	return strings.Join(parts, ", ")
}

// NodeName names a node as the reports write it: a Kustomization by its
// namespace and name, any other kind with its kind first.
func NodeName(id tiers.ID) string {
	if id.Kind == "Kustomization" {
		return id.NamespacedName()
	}
	return id.Kind + "/" + id.NamespacedName()
}

// JoinIDs names each of ids as NodeName does, joined by sep.
func JoinIDs(ids []tiers.ID, sep string) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = NodeName(id)
	}
	return strings.Join(parts, sep)
}

// WriteRows writes a table, its first row the header: aligned columns, or
// a markdown table.
func WriteRows(b *strings.Builder, rows [][]string, md bool) {
	if md {
		for i, r := range rows {
			b.WriteString("| " + strings.Join(r, " | ") + " |\n")
			if i == 0 {
				b.WriteString("|" + strings.Repeat("---|", len(r)) + "\n")
			}
		}
		return
	}
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(c + strings.Repeat(" ", width[i]-len([]rune(c))+2))
		}
		b.WriteString("\n")
	}
}
