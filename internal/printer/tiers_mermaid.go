package printer

import (
	"fmt"
	"strconv"
	"strings"
)

// mermaidClasses are the class definitions the mermaid output may use, in
// the order they are written.
var mermaidClasses = []struct{ name, def string }{
	{"ready", "stroke:#2e7d32,stroke-width:2px"},
	{"failed", "stroke:#c62828,stroke-width:3px"},
	{"pending", "stroke:#ef6c00,stroke-width:2px"},
	{"suspended", "stroke-dasharray:6 3"},
	{"external", "stroke:#9e9e9e,stroke-dasharray:2 2"},
	{"missing", "fill:#fafafa,stroke:#9e9e9e,stroke-dasharray:4 4,color:#616161"},
	{"outside", "fill:#f5f5f5,stroke:#616161,stroke-dasharray:1 3"},
	{"cycle", "stroke:" + cycleColor + ",stroke-width:3px,color:" + cycleColor},
}

func writeTiersMermaid(b *strings.Builder, r TiersReport) {
	mixed := r.mixedKinds()
	ids := mermaidIDs(r)
	p := place(r)
	classes := map[string][]string{}
	writeMermaidHeader(b, r, p)
	node := func(n TierNode, indent string) {
		id := ids[n.Ref]
		text := mermaidText(graphLabel(r, n, mixed))
		if t := targetLine(n); t != "" {
			text += "<br/>" + mermaidText(t)
		}
		fmt.Fprintf(b, "%s%s[\"%s\"]\n", indent, id, text)
		if c := mermaidClass(stateOf(r, n)); c != "" && !r.onCycle(n.Ref) {
			classes[c] = append(classes[c], id)
		}
		if n.Suspended {
			classes["suspended"] = append(classes["suspended"], id)
		}
		if r.onCycle(n.Ref) {
			classes["cycle"] = append(classes["cycle"], id)
		}
	}
	for _, tier := range p.tiers {
		if len(tier.units) == 0 {
			continue
		}
		fmt.Fprintf(b, "  subgraph tier_%d [\"tier %d\"]\n", tier.tier, tier.tier)
		for _, u := range tier.units {
			node(u.head, "    ")
			for _, rel := range u.releases {
				node(rel, "    ")
			}
		}
		b.WriteString("  end\n")
	}
	for _, m := range missingNodes(r, mixed) {
		fmt.Fprintf(b, "  %s[\"%s\"]\n", ids[m.ref], mermaidText(m.label))
		classes["missing"] = append(classes["missing"], ids[m.ref])
	}
	for _, o := range r.Outside {
		fmt.Fprintf(b, "  %s[\"%s\"]\n", ids[o.Ref], mermaidText(outsideLabel(r, o, mixed)))
		classes["outside"] = append(classes["outside"], ids[o.Ref])
	}
	links := writeMermaidEdges(b, r, p, ids)
	writeMermaidStyles(b, classes, links)
}

// writeMermaidHeader starts the flowchart with the comment that says how
// to read it.
func writeMermaidHeader(b *strings.Builder, r TiersReport, p placement) {
	b.WriteString("flowchart BT\n")
	fmt.Fprintf(b, "  %%%% standup tiers from %s\n", oneLine(r.Source))
	b.WriteString("  %% Tiers run top to bottom, tier 0 first.\n")
	b.WriteString("  %% Each edge points from a dependent to its dependency (\"depends on\").\n")
	if len(p.applier) > 0 {
		b.WriteString("  %% A HelmRelease is drawn under the Kustomization that applies it, in that Kustomization's tier,\n")
		b.WriteString("  %% joined to it by a dotted blue edge with a round head (\"applied by\").\n")
	}
	if r.hasTargets() {
		b.WriteString("  %% A box's second line, after an arrow, is the cluster the object applies to (spec.kubeConfig); a box without one applies to the cluster it lives in.\n")
	}
	if len(r.cycles) > 0 {
		b.WriteString("  %% Red: the dependency cycles (no tier order exists); their nodes are drawn where their other edges put them.\n")
	}
}

// writeMermaidStyles writes the classes of the nodes and the colours of
// the applied-by and cycle links.
func writeMermaidStyles(b *strings.Builder, classes map[string][]string, links mermaidLinks) {
	for _, c := range mermaidClasses {
		if members := classes[c.name]; len(members) > 0 {
			fmt.Fprintf(b, "  classDef %s %s\n", c.name, c.def)
			fmt.Fprintf(b, "  class %s %s\n", strings.Join(members, ","), c.name)
		}
	}
	for _, l := range []struct {
		indices []string
		style   string
	}{{links.applied, "stroke:" + appliedColor}, {links.cycle, "stroke:" + cycleColor + ",stroke-width:3px"}} {
		if len(l.indices) > 0 {
			fmt.Fprintf(b, "  linkStyle %s %s\n", strings.Join(l.indices, ","), l.style)
		}
	}
}

// mermaidLinks are the indices of the links linkStyle colours.
type mermaidLinks struct{ applied, cycle []string }

// writeMermaidEdges writes the applied-by links, the dependsOn links and
// the cycles' links, and returns the indices (mermaid counts links in the
// order written) of the ones it colours.
func writeMermaidEdges(b *strings.Builder, r TiersReport, p placement, ids map[Ref]string) mermaidLinks {
	var out mermaidLinks
	n := 0
	for _, t := range p.tiers {
		for _, u := range t.units {
			for _, rel := range u.releases {
				fmt.Fprintf(b, "  %s -.-o %s\n", ids[rel.Ref], ids[u.head.Ref])
				out.applied = append(out.applied, strconv.Itoa(n))
				n++
			}
		}
	}
	for _, tier := range r.Tiers {
		for _, node := range tier.Nodes {
			for _, d := range node.DependsOn {
				arrow := "-->"
				if d.Missing {
					arrow = "-.->"
				}
				fmt.Fprintf(b, "  %s %s %s\n", ids[node.Ref], arrow, ids[d.Ref])
				n++
			}
		}
	}
	drawn := drawnRefs(r)
	for _, e := range r.cycles {
		if drawn[e.from] && drawn[e.to] {
			fmt.Fprintf(b, "  %s --> %s\n", ids[e.from], ids[e.to])
			out.cycle = append(out.cycle, strconv.Itoa(n))
			n++
		}
	}
	return out
}

func mermaidClass(s nodeState) string {
	switch s {
	case stateReady:
		return "ready"
	case stateFailed:
		return "failed"
	case statePending:
		return "pending"
	case stateExternal:
		return "external"
	default:
		return ""
	}
}

// mermaidIDs gives every node and missing object a mermaid node id made of
// letters, digits and underscores only (kind prefix, namespace, name),
// unique even when sanitizing maps two names to one.
func mermaidIDs(r TiersReport) map[Ref]string {
	ids := map[Ref]string{}
	used := map[string]bool{}
	assign := func(ref Ref) {
		if _, ok := ids[ref]; ok {
			return
		}
		base := mermaidKindPrefix(ref.Kind) + "_" + sanitizeID(ref.Namespace) + "__" + sanitizeID(ref.Name)
		id := base
		for i := 2; used[id]; i++ {
			id = fmt.Sprintf("%s_%d", base, i)
		}
		used[id] = true
		ids[ref] = id
	}
	for _, tier := range r.Tiers {
		for _, n := range tier.Nodes {
			assign(n.Ref)
		}
	}
	for _, tier := range r.Tiers {
		for _, n := range tier.Nodes {
			for _, d := range n.DependsOn {
				assign(d.Ref)
			}
		}
	}
	for _, m := range r.Missing {
		assign(m.Missing)
	}
	return ids
}

func mermaidKindPrefix(kind string) string {
	switch kind {
	case kindKustomization:
		return "ks"
	case "HelmRelease":
		return "hr"
	default:
		return strings.ToLower(sanitizeID(kind))
	}
}

// sanitizeID replaces every character but ASCII letters and digits with _.
func sanitizeID(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

// mermaidText escapes a label for a double-quoted mermaid node text.
func mermaidText(s string) string {
	return strings.NewReplacer(`"`, "#quot;", "\n", " ").Replace(s)
}
