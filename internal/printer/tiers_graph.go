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

func writeTiersDot(b *strings.Builder, r TiersReport) {
	mixed := r.mixedKinds()
	fmt.Fprintf(b, "// standup tiers from %s\n", oneLine(r.Source))
	b.WriteString("// Each edge points from a dependent to its dependency (\"depends on\").\n")
	b.WriteString("digraph tiers {\n")
	b.WriteString("  rankdir=BT;\n")
	b.WriteString("  graph [fontname=\"Helvetica\", labelloc=b, labeljust=l];\n")
	b.WriteString("  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n")
	b.WriteString("  edge [fontname=\"Helvetica\"];\n")
	for _, tier := range r.Tiers {
		fmt.Fprintf(b, "\n  subgraph cluster_%d {\n", tier.Tier)
		fmt.Fprintf(b, "    label=%s;\n", dotQuote(fmt.Sprintf("tier %d", tier.Tier)))
		for _, n := range tier.Nodes {
			fmt.Fprintf(b, "    %s [%s];\n", dotQuote(n.id().String()), dotNodeAttrs(r, n, mixed))
		}
		b.WriteString("  }\n")
	}
	if missing := missingNodes(r, mixed); len(missing) > 0 {
		b.WriteString("\n")
		for _, m := range missing {
			fmt.Fprintf(b, "  %s [label=%s, style=\"rounded,dashed\", color=\"#9e9e9e\", fontcolor=\"#616161\"];\n",
				dotQuote(m.ref.id().String()), dotQuote(m.label))
		}
	}
	if len(r.Outside) > 0 {
		b.WriteString("\n")
		for _, o := range r.Outside {
			fmt.Fprintf(b, "  %s [label=%s, style=\"rounded,dotted\", color=\"#616161\"];\n",
				dotQuote(o.id().String()), dotQuote(outsideLabel(r, o, mixed)))
		}
	}
	edges := false
	for _, tier := range r.Tiers {
		for _, n := range tier.Nodes {
			for _, d := range n.DependsOn {
				if !edges {
					b.WriteString("\n")
					edges = true
				}
				style := ""
				if d.Missing {
					style = " [style=dashed]"
				}
				fmt.Fprintf(b, "  %s -> %s%s;\n", dotQuote(n.id().String()), dotQuote(d.id().String()), style)
			}
		}
	}
	b.WriteString("}\n")
}

func dotNodeAttrs(r TiersReport, n TierNode, mixed bool) string {
	attrs := []string{"label=" + dotQuote(graphLabel(r, n, mixed))}
	style := "rounded"
	switch stateOf(r, n) {
	case stateReady:
		attrs = append(attrs, `color="#2e7d32"`)
	case stateFailed:
		attrs = append(attrs, `color="#c62828"`, "penwidth=2")
	case statePending:
		attrs = append(attrs, `color="#ef6c00"`)
	case stateExternal:
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
