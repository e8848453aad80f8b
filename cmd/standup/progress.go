package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// progress prints walk events: NDJSON on stdout (-o json), a live view on a
// terminal, or plain timestamped lines (CI logs).
type progress interface {
	Event(wait.Event)
	Close(wait.Summary)
}

func newProgress(g globalOptions, streams Streams) progress {
	switch {
	case g.Output == "json":
		return &jsonProgress{enc: json.NewEncoder(streams.Out)}
	case g.Quiet:
		return &plainProgress{w: io.Discard, summary: streams.Err, styles: printer.NewStyles(streams.Err, false)}
	case isTerminal(streams.Err):
		return newLiveProgress(streams.Err, printer.NewStyles(streams.Err, !g.NoColor))
	default:
		return &plainProgress{w: streams.Err, summary: streams.Err, styles: printer.NewStyles(streams.Err, false)}
	}
}

func writeJSONLines[T any](w io.Writer, items []T) error {
	enc := json.NewEncoder(w)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return err
		}
	}
	return nil
}

type jsonProgress struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (p *jsonProgress) Event(e wait.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.enc.Encode(e)
}

func (p *jsonProgress) Close(s wait.Summary) {
	p.Event(wait.Event{Time: time.Now(), Type: wait.EventSummary, Summary: &s})
}

type plainProgress struct {
	w, summary io.Writer
	styles     printer.Styles
}

func (p *plainProgress) Event(e wait.Event) {
	fmt.Fprintf(p.w, "%s %s\n", e.Time.Format("15:04:05.000"), eventLine(e, p.styles))
}

func (p *plainProgress) Close(s wait.Summary) {
	fmt.Fprintln(p.summary, summaryLine(s, p.styles))
}

// eventLine renders one event as a line: mark, object, message.
func eventLine(e wait.Event, st printer.Styles) string {
	node := ""
	if e.Node != nil {
		node = e.Node.String() + " "
	}
	switch e.Type {
	case wait.EventAction:
		if e.Reason == "Failed" {
			return st.Fail.Render("✗") + " " + node + e.Action + " failed: " + e.Message
		}
		return st.Pending.Render("►") + " " + node + e.Action + ": " + e.Message
	case wait.EventDiagnosis:
		text := e.Message
		if e.Diagnosis != nil {
			text += "\n    " + strings.ReplaceAll(e.Diagnosis.String(), "\n", "\n    ")
		}
		return st.Warning.Render("!") + " " + node + text
	}
	switch e.Phase {
	case wait.PhaseReady:
		return st.OK.Render("✔") + " " + node + e.Message
	case wait.PhaseFailed:
		return st.Fail.Render("✗") + " " + node + e.Reason + ": " + firstLine(e.Message)
	case wait.PhaseBlocked:
		return st.Fail.Render("⊘") + " " + node + e.Message
	}
	return st.Dim.Render("…") + " " + node + string(e.Phase) + ": " + firstLine(e.Message)
}

func summaryLine(s wait.Summary, st printer.Styles) string {
	line := fmt.Sprintf("%d/%d ready, %d failed, %d blocked in %.1fs (%d mutations)",
		s.Ready, s.Total, s.Failed, s.Blocked, time.Duration(s.Elapsed).Seconds(), s.Mutations)
	if s.Pending > 0 {
		line += fmt.Sprintf(", %d unfinished", s.Pending)
	}
	if s.Interrupted {
		line += ", interrupted"
	}
	if s.Failed == 0 && s.Blocked == 0 && s.Pending == 0 {
		return st.OK.Render("✔") + " " + line
	}
	return st.Fail.Render("✗") + " " + line
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// liveProgress redraws one row per Kustomization on a terminal.
type liveProgress struct {
	w      io.Writer
	styles printer.Styles
	rows   map[tiers.ID]wait.Event
	notes  []string
	lines  int
}

func newLiveProgress(w io.Writer, st printer.Styles) *liveProgress {
	return &liveProgress{w: w, styles: st, rows: map[tiers.ID]wait.Event{}}
}

func (p *liveProgress) Event(e wait.Event) {
	switch {
	case e.Type == wait.EventDiagnosis || (e.Type == wait.EventAction && e.Action != string(wait.ActionReconcile)):
		p.notes = append(p.notes, eventLine(e, p.styles))
	case e.Type == wait.EventNode && e.Node != nil:
		p.rows[*e.Node] = e
	}
	p.redraw()
}

func (p *liveProgress) redraw() {
	var b strings.Builder
	if p.lines > 0 {
		fmt.Fprintf(&b, "\x1b[%dA\x1b[J", p.lines)
	}
	ids := make([]tiers.ID, 0, len(p.rows))
	for id := range p.rows {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, c := p.rows[ids[i]], p.rows[ids[j]]
		if a.Tier != c.Tier {
			return a.Tier < c.Tier
		}
		return ids[i].Less(ids[j])
	})
	lines := 0
	for _, n := range p.notes {
		b.WriteString(n + "\n")
		lines += strings.Count(n, "\n") + 1
	}
	for _, id := range ids {
		e := p.rows[id]
		fmt.Fprintf(&b, "%-3d %-40s %-12s %7.1fs  %s\n", e.Tier, id.NamespacedName(), p.phase(e.Phase),
			time.Duration(e.Elapsed).Seconds(), truncate(firstLine(e.Message), 70))
		lines++
	}
	p.lines = lines
	_, _ = io.WriteString(p.w, b.String())
}

func (p *liveProgress) phase(ph wait.Phase) string {
	s := fmt.Sprintf("%-12s", ph)
	switch ph {
	case wait.PhaseReady:
		return p.styles.OK.Render(s)
	case wait.PhaseFailed, wait.PhaseBlocked:
		return p.styles.Fail.Render(s)
	}
	return p.styles.Pending.Render(s)
}

func (p *liveProgress) Close(s wait.Summary) {
	fmt.Fprintln(p.w, summaryLine(s, p.styles))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
