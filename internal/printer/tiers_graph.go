package printer

import (
	"fmt"
	"strings"
)

// Graph formats draw an edge from each dependent to its dependency, read
// "depends on", and lay tier 0 out at the top.

// graphNode is a node to draw: a tier's node or a missing dependency.
type graphNode struct {
	ref   Ref
	label string
	state nodeState
	node  *TierNode // nil for a missing dependency
}

// graphName names a node in a picture: namespace/name, prefixed with the
// kind when kinds mix, except for Kustomizations, the default kind.
func graphName(ref Ref, mixed bool) string {
	return label(ref, mixed && ref.Kind != kindKustomization)
}

// graphLabel is a node's label: its name, with its marks when live.
func graphLabel(r TiersReport, n TierNode, mixed bool) string {
	l := graphName(n.Ref, mixed)
	if m := stateOf(r, n).mark(); m != "" && r.Live {
		l = m + " " + l
	}
	if n.Suspended {
		l += " (suspended)"
	}
	return l
}

// targetLine is the second line of a picture's box for a node that
// applies to another cluster (spec.kubeConfig): the cluster, after an
// arrow; "" for the cluster it lives in, which needs no line.
func targetLine(n TierNode) string {
	if n.Target == "" {
		return ""
	}
	return "→ " + n.Target
}

// dotLabel is a node's label in dot: graphLabel, and its targetLine on
// a line below it (dotQuote writes the break as dot's \n).
func dotLabel(r TiersReport, n TierNode, mixed bool) string {
	if t := targetLine(n); t != "" {
		return graphLabel(r, n, mixed) + "\n" + t
	}
	return graphLabel(r, n, mixed)
}

// outsideLabel is an outside dependency's label: its name and marks, and
// where it lies.
func outsideLabel(r TiersReport, o OutsideNode, mixed bool) string {
	return graphLabel(r, o.TierNode, mixed) + fmt.Sprintf(" (outside %s, tier %d)", r.Namespace, o.Tier)
}

// missingNodes returns the distinct missing objects, in report order.
func missingNodes(r TiersReport, mixed bool) []graphNode {
	seen := map[Ref]bool{}
	var out []graphNode
	for _, m := range r.Missing {
		if !seen[m.Missing] {
			seen[m.Missing] = true
			out = append(out, graphNode{ref: m.Missing, label: graphName(m.Missing, mixed) + " (missing)"})
		}
	}
	return out
}

// Colours the pictures share: an applied-by edge's, and a cycle's.
const (
	appliedColor = "#1565c0"
	cycleColor   = "#c62828"
)

func writeTiersDot(b *strings.Builder, r TiersReport) {
	mixed := r.mixedKinds()
	p := place(r)
	layout := dotLayout(p, func(n TierNode) int { return max(boxWidth(graphLabel(r, n, mixed)), boxWidth(targetLine(n))) })
	writeDotHeader(b, r, p)
	// The lines of boxes, top to bottom, chained by invisible edges: every
	// other edge is drawn where the lines put its ends (constraint=false),
	// so a tier wraps into rows and HelmReleases sit under their appliers.
	var lines [][]string
	if top := dotTopLine(b, r, mixed); len(top) > 0 {
		lines = append(lines, top)
	}
	for _, t := range layout {
		if len(t.lines) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n  subgraph cluster_%d {\n", t.tier)
		fmt.Fprintf(b, "    label=%s;\n", dotQuote(fmt.Sprintf("tier %d", t.tier)))
		for _, l := range t.lines {
			ids := make([]string, len(l))
			for i, n := range l {
				ids[i] = dotQuote(n.id().String())
				fmt.Fprintf(b, "    %s [%s];\n", ids[i], dotNodeAttrs(r, n, mixed))
			}
			if len(ids) > 1 {
				fmt.Fprintf(b, "    { rank=same; %s [style=invis, constraint=true]; }\n", strings.Join(ids, " -> "))
			}
			lines = append(lines, ids)
		}
		b.WriteString("  }\n")
	}
	if len(lines) > 1 {
		b.WriteString("\n")
		for i := 1; i < len(lines); i++ {
			fmt.Fprintf(b, "  %s -> %s [style=invis, constraint=true];\n", lines[i-1][0], lines[i][0])
		}
	}
	writeDotEdges(b, r, p)
	b.WriteString("}\n")
}

// writeDotHeader writes the comment that says how to read the picture,
// and the graph's attributes.
func writeDotHeader(b *strings.Builder, r TiersReport, p placement) {
	fmt.Fprintf(b, "// standup tiers from %s\n", oneLine(r.Source))
	b.WriteString("// Tiers run top to bottom, tier 0 first; a tier too wide for one row wraps into several.\n")
	b.WriteString("// Each edge points from a dependent to its dependency (\"depends on\").\n")
	if len(p.applier) > 0 {
		b.WriteString("// A HelmRelease is drawn under the Kustomization that applies it, in that Kustomization's tier,\n")
		b.WriteString("// joined to it by a dotted blue edge with a round head (\"applied by\").\n")
	}
	if r.hasTargets() {
		b.WriteString("// A box's second line, after an arrow, is the cluster the object applies to (spec.kubeConfig); a box without one applies to the cluster it lives in.\n")
	}
	if len(r.cycles) > 0 {
		b.WriteString("// Red: the dependency cycles (no tier order exists); their nodes are drawn where their other edges put them.\n")
	}
	b.WriteString("digraph tiers {\n")
	b.WriteString("  rankdir=TB;\n")
	b.WriteString("  newrank=true;\n")
	b.WriteString("  graph [fontname=\"Helvetica\", labelloc=t, labeljust=l];\n")
	b.WriteString("  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n")
	b.WriteString("  edge [fontname=\"Helvetica\", constraint=false];\n")
}

// dotTopLine writes the missing and outside dependencies, drawn in a line
// of their own above tier 0, and returns their ids.
func dotTopLine(b *strings.Builder, r TiersReport, mixed bool) []string {
	var ids []string
	missing := missingNodes(r, mixed)
	if len(missing) > 0 || len(r.Outside) > 0 {
		b.WriteString("\n")
	}
	for _, m := range missing {
		id := dotQuote(m.ref.id().String())
		fmt.Fprintf(b, "  %s [label=%s, style=\"rounded,dashed\", color=\"#9e9e9e\", fontcolor=\"#616161\"];\n", id, dotQuote(m.label))
		ids = append(ids, id)
	}
	for _, o := range r.Outside {
		id := dotQuote(o.id().String())
		fmt.Fprintf(b, "  %s [label=%s, style=\"rounded,dotted\", color=\"#616161\"];\n", id, dotQuote(outsideLabel(r, o, mixed)))
		ids = append(ids, id)
	}
	if len(ids) > 1 {
		fmt.Fprintf(b, "  { rank=same; %s; }\n", strings.Join(ids, "; "))
	}
	return ids
}

// writeDotEdges writes the applied-by edges, the dependsOn edges, and the
// cycles' edges.
func writeDotEdges(b *strings.Builder, r TiersReport, p placement) {
	sep := func() func() {
		done := false
		return func() {
			if !done {
				b.WriteString("\n")
				done = true
			}
		}
	}
	first := sep()
	for _, t := range p.tiers {
		for _, u := range t.units {
			for _, rel := range u.releases {
				first()
				// Drawn from the Kustomization, its head at the tail, so that
				// the edge holds the release under it, and pulls them into line.
				fmt.Fprintf(b, "  %s -> %s [dir=back, arrowtail=odot, style=dotted, color=%q, constraint=true, weight=10];\n",
					dotQuote(u.head.id().String()), dotQuote(rel.id().String()), appliedColor)
			}
		}
	}
	first = sep()
	for _, tier := range r.Tiers {
		for _, n := range tier.Nodes {
			for _, d := range n.DependsOn {
				first()
				style := ""
				if d.Missing {
					style = " [style=dashed]"
				}
				fmt.Fprintf(b, "  %s -> %s%s;\n", dotQuote(n.id().String()), dotQuote(d.id().String()), style)
			}
		}
	}
	first = sep()
	drawn := drawnRefs(r)
	for _, e := range r.cycles {
		if drawn[e.from] && drawn[e.to] {
			first()
			fmt.Fprintf(b, "  %s -> %s [color=%q, penwidth=2];\n", dotQuote(e.from.id().String()), dotQuote(e.to.id().String()), cycleColor)
		}
	}
}

// drawnRefs are the objects a picture draws a box for: the nodes, the
// missing dependencies, and the outside ones.
func drawnRefs(r TiersReport) map[Ref]bool {
	out := map[Ref]bool{}
	for _, t := range r.Tiers {
		for _, n := range t.Nodes {
			out[n.Ref] = true
		}
	}
	for _, m := range r.Missing {
		out[m.Missing] = true
	}
	for _, o := range r.Outside {
		out[o.Ref] = true
	}
	return out
}

func dotNodeAttrs(r TiersReport, n TierNode, mixed bool) string {
	attrs := []string{"label=" + dotQuote(dotLabel(r, n, mixed))}
	style := "rounded"
	switch state := stateOf(r, n); {
	case r.onCycle(n.Ref):
		attrs = append(attrs, "color="+dotQuote(cycleColor), "fontcolor="+dotQuote(cycleColor), "penwidth=2")
	case state == stateReady:
		attrs = append(attrs, `color="#2e7d32"`)
	case state == stateFailed:
		attrs = append(attrs, `color="#c62828"`, "penwidth=2")
	case state == statePending:
		attrs = append(attrs, `color="#ef6c00"`)
	case state == stateExternal:
		style += ",dotted"
		attrs = append(attrs, `color="#9e9e9e"`)
	}
	if n.Suspended {
		style += ",dashed"
	}
	attrs = append(attrs, "style="+dotQuote(style))
	if n.Ready != nil && (n.Ready.Reason != "" || n.Ready.Message != "") {
		attrs = append(attrs, "tooltip="+dotQuote(oneLine(strings.Trim(n.Ready.Reason+": "+n.Ready.Message, ": "))))
	}
	return strings.Join(attrs, ", ")
}

// dotQuote renders s as a Graphviz double-quoted string.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
