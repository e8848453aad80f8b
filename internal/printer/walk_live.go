package printer

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// liveWalk redraws one row per Kustomization on a terminal, below the notes
// (diagnoses, actions other than a reconcile) printed so far.
type liveWalk struct {
	w      io.Writer
	styles Styles
	rows   map[tiers.ID]wait.Event
	notes  []string
	lines  int
}

func newLiveWalk(w io.Writer, st Styles) *liveWalk {
	return &liveWalk{w: w, styles: st, rows: map[tiers.ID]wait.Event{}}
}

func (p *liveWalk) Event(e wait.Event) {
	switch {
	case e.Type == wait.EventDiagnosis || (e.Type == wait.EventAction && e.Action != string(wait.ActionReconcile)):
		p.notes = append(p.notes, eventLine(e, p.styles))
	case e.Type == wait.EventNode && e.Node != nil:
		p.rows[*e.Node] = e
	}
	p.redraw()
}

func (p *liveWalk) redraw() {
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

func (p *liveWalk) phase(ph wait.Phase) string {
	s := fmt.Sprintf("%-12s", ph)
	switch ph {
	case wait.PhaseReady:
		return p.styles.OK.Render(s)
	case wait.PhaseFailed, wait.PhaseBlocked:
		return p.styles.Fail.Render(s)
	}
	return p.styles.Pending.Render(s)
}

func (p *liveWalk) Close(s wait.Summary) {
	fmt.Fprintln(p.w, summaryLine(s, p.styles))
}
