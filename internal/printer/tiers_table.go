package printer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/kubestandup/standup/pkg/flux"
)

// writeTiersTable writes one row per node, grouped by tier, for people and
// for awk alike: every row is complete (its tier repeated, an empty value
// written noValue) and no cell holds a space, so fields line up. Live
// reports show Ready marks, reasons and revisions; offline reports show
// paths. The notes and the summary are the footer (writeTiersFooter),
// which goes to stderr.
func writeTiersTable(b *strings.Builder, r TiersReport, st Styles, noHeaders bool) {
	if r.nodeCount() == 0 {
		return
	}
	mixed := r.mixedKinds()
	t := &textTable{}
	t.add(tableHeader(r.Live, mixed, st)...)
	targets := r.hasTargets()
	for _, tier := range r.Tiers {
		for _, n := range tier.Nodes {
			tierCell := cell{text: strconv.Itoa(tier.Tier), style: &st.TierHeader}
			t.add(append([]cell{tierCell}, nodeCells(r, n, mixed, targets, st)...)...)
		}
	}
	t.dropEmptyColumns()
	t.fillEmpty(cell{text: noValue, style: &st.Dim})
	t.hideHeader = noHeaders
	t.render(b)
}

// noValue stands in a table for a value the node does not have, as
// kubectl writes it.
const noValue = "<none>"

func tableHeader(live, mixed bool, st Styles) []cell {
	names := []string{"TIER", "NAME", "KIND", "STATE", "REASON", "REVISION", "PATH", "TARGET", "DEPENDS ON"}
	if live {
		names[3] = "READY"
	}
	if !mixed {
		names[2] = ""
	}
	cells := make([]cell, len(names))
	for i, n := range names {
		cells[i] = cell{text: n, style: &st.Header}
	}
	return cells
}

// nodeCells returns the cells after TIER, matching tableHeader. TARGET is
// empty, and its column dropped, unless some node applies to another
// cluster (targets): then a node without one is written localTarget.
func nodeCells(r TiersReport, n TierNode, mixed, targets bool, st Styles) []cell {
	state := stateOf(r, n)
	kind, mark, reason, revision, path := "", cell{}, cell{}, "", cell{}
	if mixed {
		kind = n.Kind
	}
	switch state {
	case stateExternal:
		mark = cell{text: state.mark(), style: &st.Warning}
		reason = cell{text: "<external>", style: &st.Dim}
	case stateOffline:
		path = cell{text: pathText(n), style: &st.Dim}
	default:
		mark = cell{text: state.mark(), style: stateStyle(state, st)}
		if n.Ready != nil {
			reason = cell{text: n.Ready.Reason}
		}
		revision = shortRevision(n.Revision)
	}
	if n.Suspended {
		mark.text += suspendedMark
		mark.style = &st.Suspended
	}
	target := cell{text: n.Target}
	if targets && n.Target == "" {
		target = cell{text: localTarget, style: &st.Dim}
	}
	return []cell{
		{text: n.namespacedName()},
		{text: kind, style: &st.Dim},
		mark,
		reason,
		{text: revision, style: &st.Dim},
		path,
		target,
		{text: dependsOnText(n, mixed)},
	}
}

// pathText is the PATH of an offline node: spec.path, or "./" for a
// Kustomization without one (Flux's default, the root of the source), or,
// for a HelmRelease, which has no path, the Kustomization that applies it
// in parentheses.
func pathText(n TierNode) string {
	switch {
	case n.Path != "":
		return n.Path
	case n.Kind == flux.KindKustomization:
		return "./"
	case n.AppliedBy != nil:
		return "(" + n.AppliedBy.Namespace + "/" + n.AppliedBy.Name + ")"
	}
	return ""
}

func stateStyle(s nodeState, st Styles) *lipgloss.Style {
	switch s {
	case stateReady:
		return &st.OK
	case stateFailed:
		return &st.Fail
	default:
		return &st.Pending
	}
}

// dependsOnText lists dependencies, comma-separated without spaces as
// kubectl lists, by name alone when they share the node's namespace and
// kind, and qualifies them otherwise.
func dependsOnText(n TierNode, mixed bool) string {
	parts := make([]string, len(n.DependsOn))
	for i, d := range n.DependsOn {
		switch {
		case mixed && d.Kind != n.Kind:
			parts[i] = d.Kind + "/" + d.namespacedName()
		case d.Namespace != n.Namespace:
			parts[i] = d.namespacedName()
		default:
			parts[i] = d.Name
		}
		if d.Missing {
			parts[i] += "(missing)"
		}
		if d.Outside {
			parts[i] += "(outside)"
		}
	}
	return strings.Join(parts, ",")
}

// shortRevision cuts a long digest in a Flux revision (main@sha1:0123…) to
// 12 characters; other revisions are returned unchanged.
func shortRevision(rev string) string {
	i := strings.LastIndex(rev, ":")
	if i < 0 || len(rev)-i-1 <= 12 {
		return rev
	}
	for _, c := range rev[i+1:] {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return rev
		}
	}
	return rev[:i+13]
}

// writeTiersFooter writes what follows the table for people: the legend of
// the marks (live), what a narrowed view waits on outside its namespace,
// and a summary line.
func writeTiersFooter(b *strings.Builder, r TiersReport, st Styles) {
	if len(r.Outside) > 0 {
		b.WriteString(outsideNote(r) + "\n")
	}
	if r.Live && r.nodeCount() > 0 {
		legend := fmt.Sprintf("%s ready  %s not ready  %s pending  %s suspended  %s external",
			stateReady.mark(), stateFailed.mark(), statePending.mark(), suspendedMark, stateExternal.mark())
		b.WriteString(st.Dim.Render(legend) + "\n")
	}
	summary := fmt.Sprintf("%s in %s", Plural(r.nodeCount(), "node"), Plural(len(r.Tiers), "tier"))
	if r.Source != "" {
		summary += " from " + oneLine(r.Source)
	}
	if r.Namespace != "" {
		summary += " (namespace " + r.Namespace + ")"
	}
	b.WriteString(st.Dim.Render(summary) + "\n")
}

// outsideNote names, on one line, the dependencies of a narrowed report's
// nodes in other namespaces, with their tiers (and Ready marks when live).
func outsideNote(r TiersReport) string {
	parts := make([]string, len(r.Outside))
	for i, o := range r.Outside {
		parts[i] = fmt.Sprintf("%s (tier %d)", label(o.Ref, r.mixedKinds()), o.Tier)
		if m := stateOf(r, o.TierNode).mark(); m != "" && r.Live {
			parts[i] = m + " " + parts[i]
		}
		if o.Suspended {
			parts[i] += " " + suspendedMark
		}
	}
	return "outside " + r.Namespace + ", waited on, not walked: " + strings.Join(parts, ", ")
}

// Plural counts n of noun: "1 tier", "2 tiers".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
