package printer

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubestandup/standup/pkg/flux"
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
// and when the walk began. Its lines are a function of it, the time and the
// terminal's size alone.
type liveView struct {
	start time.Time
	// nodes are sorted by tier then name, unless sorted is false: a node
	// came or changed tier since the last layout.
	nodes  []liveNode
	index  map[tiers.ID]int
	sorted bool
	// mixed is set once a node is not a Kustomization: rows then carry
	// their kind, as the plain lines do (Kind/namespace/name).
	mixed bool
}

type liveNode struct {
	id tiers.ID
	e  wait.Event
}

// update records a node's event.
func (v *liveView) update(e wait.Event) {
	if v.index == nil {
		v.index = map[tiers.ID]int{}
	}
	if i, ok := v.index[*e.Node]; ok {
		v.sorted = v.sorted && v.nodes[i].e.Tier == e.Tier
		v.nodes[i].e = e
		return
	}
	v.index[*e.Node] = len(v.nodes)
	v.nodes = append(v.nodes, liveNode{id: *e.Node, e: e})
	v.sorted = false
	v.mixed = v.mixed || e.Node.Kind != flux.KindKustomization
}

// name is how a row names its node.
func (v *liveView) name(id tiers.ID) string {
	if v.mixed {
		return id.String()
	}
	return id.NamespacedName()
}

func (v *liveView) sort() {
	if v.sorted {
		return
	}
	sort.Slice(v.nodes, func(i, j int) bool {
		a, b := v.nodes[i], v.nodes[j]
		if a.e.Tier != b.e.Tier {
			return a.e.Tier < b.e.Tier
		}
		return a.id.Less(b.id)
	})
	for i, n := range v.nodes {
		v.index[n.id] = i
	}
	v.sorted = true
}

// phaseCount counts a group's nodes by phase; running is every phase
// between pending and the end.
type phaseCount struct{ ready, running, failed, blocked, pending int }

func (c *phaseCount) add(ph wait.Phase) {
	switch ph {
	case wait.PhaseReady:
		c.ready++
	case wait.PhaseFailed:
		c.failed++
	case wait.PhaseBlocked:
		c.blocked++
	case wait.PhasePending:
		c.pending++
	default:
		c.running++
	}
}

func (c *phaseCount) plus(o phaseCount) {
	c.ready += o.ready
	c.running += o.running
	c.failed += o.failed
	c.blocked += o.blocked
	c.pending += o.pending
}

func (c phaseCount) total() int { return c.ready + c.running + c.failed + c.blocked + c.pending }

// finished: every node ended. idle: no node has started.
func (c phaseCount) finished() bool { return c.running+c.pending == 0 }
func (c phaseCount) idle() bool     { return c.pending == c.total() }

// String reads "3/8 ready, 2 running, 1 failed, 2 waiting", leaving out
// what is zero.
func (c phaseCount) String() string {
	parts := []string{fmt.Sprintf("%d/%d ready", c.ready, c.total())}
	for _, n := range []struct {
		n    int
		word string
	}{{c.running, "running"}, {c.failed, "failed"}, {c.blocked, "blocked"}, {c.pending, "waiting"}} {
		if n.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n.n, n.word))
		}
	}
	return strings.Join(parts, ", ")
}

// liveGroup is one line of tiers: one tier, or a run of finished or idle
// tiers merged when the terminal has too few rows for a line each, or the
// count of the tiers that found no row at all. Its nodes are
// liveView.nodes[from:to].
type liveGroup struct {
	first, last int
	from, to    int
	count       phaseCount
	hiddenTiers int
}

// lines lays the view out for a terminal width cells wide in at most
// maxLines lines, none reaching the last column, so that the terminal never
// wraps one. A header (when withHeader) comes first, then a line per tier;
// the rows of the nodes that matter most fill what is left: running ones
// first, then failed, waiting, blocked and ready. A finished tier folds
// into its line, but for its failed and blocked nodes. It lays out the
// nodes in O(n), since it runs at every redraw.
func (v *liveView) lines(now time.Time, width, maxLines int, withHeader bool, st Styles) []string {
	if maxLines <= 0 || len(v.nodes) == 0 {
		return nil
	}
	v.sort()
	groups := v.groups()
	var out []string
	if withHeader {
		var all phaseCount
		for _, g := range groups {
			all.plus(g.count)
		}
		what := "Kustomizations"
		if v.mixed {
			what = "Kustomizations and HelmReleases"
		}
		header := fmt.Sprintf("%s · %s · %s", what, formatElapsed(now.Sub(v.start)), all)
		out = append(out, fit(st.Header.Render(header), width))
		maxLines--
	}
	// Finished tiers, then idle ones, share a line when a line each would
	// leave too few rows for the nodes that run or failed.
	byRank := v.candidates(groups)
	wanted := len(byRank[0]) + len(byRank[1])
	if len(groups)+wanted > maxLines {
		groups = mergeGroups(groups, phaseCount.finished)
	}
	if len(groups)+wanted > maxLines {
		groups = mergeGroups(groups, phaseCount.idle)
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
	shown := chooseRows(v.candidates(groups), len(v.nodes), maxLines-len(groups))
	cols := v.columns(shown, width)
	for _, g := range groups {
		out = append(out, fit(groupLine(g, st), width))
		for i := g.from; i < g.to; i++ {
			if shown[i] {
				out = append(out, fit(v.row(v.nodes[i], now, cols, st), width))
			}
		}
	}
	return out
}

// groups returns a group per tier, in tier order.
func (v *liveView) groups() []liveGroup {
	var groups []liveGroup
	for i, n := range v.nodes {
		if len(groups) == 0 || groups[len(groups)-1].first != n.e.Tier {
			groups = append(groups, liveGroup{first: n.e.Tier, last: n.e.Tier, from: i})
		}
		g := &groups[len(groups)-1]
		g.to = i + 1
		g.count.add(n.e.Phase)
	}
	return groups
}

// mergeGroups merges each run of adjacent groups for which same is true.
func mergeGroups(groups []liveGroup, same func(phaseCount) bool) []liveGroup {
	var out []liveGroup
	for _, g := range groups {
		if n := len(out); n > 0 && same(g.count) && same(out[n-1].count) {
			prev := &out[n-1]
			prev.last, prev.to = g.last, g.to
			prev.count.plus(g.count)
			continue
		}
		out = append(out, g)
	}
	return out
}

// rowRank orders rows by what a user watches for: what runs now (0), what
// failed (1), what waits (2), what was blocked (3), what is done (4).
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

// candidates returns the nodes worth a row, as indexes into v.nodes by
// rank, each rank in tier then name order: the nodes of the tiers under
// way, and the failed and blocked nodes of finished tiers.
func (v *liveView) candidates(groups []liveGroup) [5][]int {
	var byRank [5][]int
	for _, g := range groups {
		active := !g.count.finished() && !g.count.idle()
		for i := g.from; i < g.to; i++ {
			ph := v.nodes[i].e.Phase
			if active || ph == wait.PhaseFailed || ph == wait.PhaseBlocked {
				r := rowRank(ph)
				byRank[r] = append(byRank[r], i)
			}
		}
	}
	return byRank
}

// chooseRows marks at most n of the candidates, the best ranked first.
func chooseRows(byRank [5][]int, nodes, n int) []bool {
	shown := make([]bool, nodes)
	for _, rank := range byRank {
		for _, i := range rank {
			if n <= 0 {
				return shown
			}
			shown[i] = true
			n--
		}
	}
	return shown
}

func groupLine(g liveGroup, st Styles) string {
	switch {
	case g.hiddenTiers > 0:
		return st.Dim.Render(fmt.Sprintf("… %d more tiers", g.hiddenTiers))
	case g.first == g.last:
		return st.TierHeader.Render(fmt.Sprintf("tier %d", g.first)) + "  " + g.count.String()
	}
	return st.TierHeader.Render(fmt.Sprintf("tiers %d–%d", g.first, g.last)) + "  " + g.count.String()
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
func (v *liveView) columns(shown []bool, width int) liveColumns {
	longest := 0
	for i, ok := range shown {
		if ok {
			longest = max(longest, len(v.name(v.nodes[i].id)))
		}
	}
	room := max(0, width-1-rowFixed)
	name := min(longest, max(room-24, room*2/3))
	if room-name < minMessage {
		return liveColumns{name: min(longest, room)}
	}
	return liveColumns{name: name, message: room - name}
}

func (v *liveView) row(n liveNode, now time.Time, cols liveColumns, st Styles) string {
	e := n.e
	elapsed := time.Duration(e.Elapsed)
	if !e.Phase.Terminal() && now.After(e.Time) {
		elapsed += now.Sub(e.Time)
	}
	name := cutMiddle(v.name(n.id), cols.name)
	line := fmt.Sprintf("  %-*s %s %*s", cols.name, name, phaseCell(e.Phase, st), elapsedWidth, formatElapsed(elapsed))
	if cols.message > 0 {
		msg := firstLine(e.Message)
		if e.Reason != "" && !e.Phase.Terminal() {
			msg = e.Reason + ": " + msg // the controller's reason while it waits
		}
		line += "  " + ansi.Truncate(printable(msg), cols.message, "…")
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
