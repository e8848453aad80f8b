package printer

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// Below these sizes the live view cannot show a tier and its rows, so
// NewWalkPrinter prints plain lines instead.
const (
	liveMinWidth  = 40
	liveMinHeight = 8
)

// liveFits reports whether a terminal of width×height cells is large
// enough for the live view.
func liveFits(width, height int) bool {
	return width >= liveMinWidth && height >= liveMinHeight
}

// liveView is what the live view knows of a walk: every node's last event,
// and when the walk began. Its lines are a pure function of it, the time
// and the terminal's size.
type liveView struct {
	nodes map[tiers.ID]wait.Event
	start time.Time
}

// liveGroup is one line of tiers: one tier, or a run of finished or idle
// tiers merged when the terminal has too few rows for a line each, or the
// count of the tiers that found no row at all.
type liveGroup struct {
	first, last int
	nodes       []tiers.ID
	count       map[wait.Phase]int
	hiddenTiers int
}

// finished: every node ended. idle: no node has started.
func (g liveGroup) finished() bool {
	return g.count[wait.PhaseReady]+g.count[wait.PhaseFailed]+g.count[wait.PhaseBlocked] == len(g.nodes)
}

func (g liveGroup) idle() bool { return g.count[wait.PhasePending] == len(g.nodes) }

// lines lays the view out for a terminal width cells wide in at most
// maxLines lines, none reaching the last column, so that the terminal never
// wraps one. A header (when withHeader) comes first, then a line per tier;
// the rows of the nodes that matter most fill what is left: running ones
// first, then failed, waiting, blocked and ready. A finished tier folds
// into its line, but for its failed nodes.
func (v liveView) lines(now time.Time, width, maxLines int, withHeader bool, st Styles) []string {
	if maxLines <= 0 {
		return nil
	}
	groups := v.groups()
	var out []string
	if withHeader {
		out = append(out, fit(st.Header.Render(v.header(now)), width))
		maxLines--
	}
	// Finished tiers, then idle ones, share a line when a line each would
	// leave too few rows for the nodes that run or failed.
	wanted := 0
	for _, id := range v.candidates(groups) {
		if rowRank(v.nodes[id].Phase) < rowRank(wait.PhasePending) {
			wanted++
		}
	}
	if len(groups)+wanted > maxLines {
		groups = mergeGroups(groups, func(g liveGroup) bool { return g.finished() })
	}
	if len(groups)+wanted > maxLines {
		groups = mergeGroups(groups, func(g liveGroup) bool { return g.idle() })
	}
	if len(groups) > maxLines {
		if maxLines == 0 {
			return out
		}
		hidden := 0
		for _, g := range groups[maxLines-1:] {
			hidden += g.last - g.first + 1
		}
		groups = append(groups[:maxLines-1], liveGroup{hiddenTiers: hidden})
	}
	shown := v.chooseRows(groups, maxLines-len(groups))
	cols := v.columns(shown, width)
	for _, g := range groups {
		out = append(out, fit(v.groupLine(g, st), width))
		for _, id := range g.nodes {
			if shown[id] {
				out = append(out, fit(v.row(id, now, cols, st), width))
			}
		}
	}
	return out
}

// groups returns a group per tier, in tier order, its nodes sorted.
func (v liveView) groups() []liveGroup {
	byTier := map[int]*liveGroup{}
	for id, e := range v.nodes {
		g := byTier[e.Tier]
		if g == nil {
			g = &liveGroup{first: e.Tier, last: e.Tier, count: map[wait.Phase]int{}}
			byTier[e.Tier] = g
		}
		g.nodes = append(g.nodes, id)
		g.count[e.Phase]++
	}
	groups := make([]liveGroup, 0, len(byTier))
	for _, g := range byTier {
		sort.Slice(g.nodes, func(i, j int) bool { return g.nodes[i].Less(g.nodes[j]) })
		groups = append(groups, *g)
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].first < groups[j].first })
	return groups
}

// mergeGroups merges each run of adjacent groups for which same is true.
func mergeGroups(groups []liveGroup, same func(liveGroup) bool) []liveGroup {
	var out []liveGroup
	for _, g := range groups {
		if n := len(out); n > 0 && same(g) && same(out[n-1]) {
			prev := &out[n-1]
			prev.last = g.last
			prev.nodes = append(prev.nodes, g.nodes...)
			count := map[wait.Phase]int{}
			for ph, c := range prev.count {
				count[ph] += c
			}
			for ph, c := range g.count {
				count[ph] += c
			}
			prev.count = count
			continue
		}
		out = append(out, g)
	}
	return out
}

// rowRank orders rows by what a user watches for: what runs now, what
// failed, what waits, what was blocked, what is done.
func rowRank(ph wait.Phase) int {
	switch ph {
	case wait.PhaseFailed:
		return 1
	case wait.PhasePending:
		return 2
	case wait.PhaseBlocked:
		return 3
	case wait.PhaseReady:
		return 4
	}
	return 0
}

// candidates are the nodes worth a row: those of the tiers under way, and
// the failed and blocked nodes of finished tiers.
func (v liveView) candidates(groups []liveGroup) []tiers.ID {
	var ids []tiers.ID
	for _, g := range groups {
		for _, id := range g.nodes {
			if ph := v.nodes[id].Phase; !g.finished() && !g.idle() || ph == wait.PhaseFailed || ph == wait.PhaseBlocked {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// chooseRows picks at most n of the candidates, by rank then tier then name.
func (v liveView) chooseRows(groups []liveGroup, n int) map[tiers.ID]bool {
	candidates := v.candidates(groups)
	sort.SliceStable(candidates, func(i, j int) bool {
		a, b := v.nodes[candidates[i]], v.nodes[candidates[j]]
		if ra, rb := rowRank(a.Phase), rowRank(b.Phase); ra != rb {
			return ra < rb
		}
		return a.Tier < b.Tier
	})
	shown := map[tiers.ID]bool{}
	for _, id := range candidates[:max(0, min(n, len(candidates)))] {
		shown[id] = true
	}
	return shown
}

// header sums the walk up: how many nodes stand where, and for how long.
func (v liveView) header(now time.Time) string {
	count := map[wait.Phase]int{}
	for _, e := range v.nodes {
		count[e.Phase]++
	}
	return fmt.Sprintf("Kustomizations · %s · %s", formatElapsed(now.Sub(v.start)), phaseCounts(count, len(v.nodes)))
}

// phaseCounts reads "3/8 ready, 2 running, 1 failed, 2 waiting", leaving
// out what is zero.
func phaseCounts(count map[wait.Phase]int, total int) string {
	running := total - count[wait.PhaseReady] - count[wait.PhaseFailed] - count[wait.PhaseBlocked] - count[wait.PhasePending]
	parts := []string{fmt.Sprintf("%d/%d ready", count[wait.PhaseReady], total)}
	for _, c := range []struct {
		n    int
		word string
	}{{running, "running"}, {count[wait.PhaseFailed], "failed"}, {count[wait.PhaseBlocked], "blocked"}, {count[wait.PhasePending], "waiting"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.word))
		}
	}
	return strings.Join(parts, ", ")
}

func (v liveView) groupLine(g liveGroup, st Styles) string {
	switch {
	case g.hiddenTiers > 0:
		return st.Dim.Render(fmt.Sprintf("… %d more tiers", g.hiddenTiers))
	case g.first == g.last:
		return st.TierHeader.Render(fmt.Sprintf("tier %d", g.first)) + "  " + phaseCounts(g.count, len(g.nodes))
	}
	return st.TierHeader.Render(fmt.Sprintf("tiers %d–%d", g.first, g.last)) + "  " + phaseCounts(g.count, len(g.nodes))
}

// liveColumns are the widths of a row's name and message, in cells; a
// message of width 0 is left out.
type liveColumns struct{ name, message int }

// A row is "  NAME PHASE ELAPSED  MESSAGE": phases are at most 11 cells
// ("remediating"), elapsed times 6 ("12m05s").
const (
	phaseWidth   = 11
	elapsedWidth = 6
	rowFixed     = 2 + 1 + phaseWidth + 1 + elapsedWidth + 2
	minMessage   = 8
)

// columns shares what a row leaves of width between the name and the
// message. Names come first, since a cut name may name another node; the
// message keeps at least a third, else it is left out.
func (v liveView) columns(shown map[tiers.ID]bool, width int) liveColumns {
	longest := 0
	for id := range shown {
		longest = max(longest, len(id.NamespacedName()))
	}
	room := max(0, width-1-rowFixed)
	name := min(longest, max(room-24, room*2/3))
	if room-name < minMessage {
		return liveColumns{name: min(longest, room)}
	}
	return liveColumns{name: name, message: room - name}
}

func (v liveView) row(id tiers.ID, now time.Time, cols liveColumns, st Styles) string {
	e := v.nodes[id]
	elapsed := time.Duration(e.Elapsed)
	if !e.Phase.Terminal() && now.After(e.Time) {
		elapsed += now.Sub(e.Time)
	}
	name := cutMiddle(id.NamespacedName(), cols.name)
	line := fmt.Sprintf("  %-*s %s %*s", cols.name, name, phaseCell(e.Phase, st), elapsedWidth, formatElapsed(elapsed))
	if cols.message > 0 {
		line += "  " + ansi.Truncate(printable(firstLine(e.Message)), cols.message, "…")
	}
	return line
}

func phaseCell(ph wait.Phase, st Styles) string {
	s := fmt.Sprintf("%-*s", phaseWidth, ph)
	switch ph {
	case wait.PhaseReady:
		return st.OK.Render(s)
	case wait.PhaseFailed, wait.PhaseBlocked:
		return st.Fail.Render(s)
	}
	return st.Pending.Render(s)
}

// formatElapsed reads 0.7s, 12.3s, 1m04s, 12m05s, 1h02m: at most 6 cells.
func formatElapsed(d time.Duration) string {
	switch {
	case d < 0:
		return "0.0s"
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// fit cuts a line, escape sequences and all, to width-1 cells: a line that
// fills the last column leaves some terminals waiting to wrap.
func fit(line string, width int) string {
	return ansi.Truncate(line, max(1, width-1), "…")
}

// cutMiddle cuts s to n cells by its middle, where the names of sibling
// Kustomizations are alike: "flux-system/infra-co…ollers-01".
func cutMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 1 {
		return string(r[:max(0, n)])
	}
	head := (n - 1) / 2
	tail := n - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// printable drops the control characters of text that comes from the
// cluster (a carriage return or an escape sequence would move the cursor
// the view counts on) and keeps newlines; a tab becomes a space.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\t':
			return ' '
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
}

// wrapLines breaks text into lines of fewer than width cells, at spaces when
// it can, each continuation indented as the line it continues (by two
// cells more when that line starts at the margin, after its mark).
func wrapLines(text string, width int) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		body := strings.TrimLeft(line, " ")
		indent := line[:len(line)-len(body)]
		next := indent
		if next == "" {
			next = "  "
		}
		limit := max(10, width-1-len(next))
		for i, l := range strings.Split(ansi.Wrap(body, limit, ""), "\n") {
			if i == 0 {
				out = append(out, indent+l)
				continue
			}
			out = append(out, next+l)
		}
	}
	return out
}
