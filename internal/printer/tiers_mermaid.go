package printer

import (
	"fmt"
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
}

func writeTiersMermaid(b *strings.Builder, r TiersReport) {
	mixed := r.mixedKinds()
	ids := mermaidIDs(r)
	classes := map[string][]string{}
	b.WriteString("flowchart BT\n")
	fmt.Fprintf(b, "  %%%% standup tiers from %s\n", oneLine(r.Source))
	b.WriteString("  %% Each edge points from a dependent to its dependency (\"depends on\").\n")
	for _, tier := range r.Tiers {
		fmt.Fprintf(b, "  subgraph tier_%d [\"tier %d\"]\n", tier.Tier, tier.Tier)
		for _, n := range tier.Nodes {
			id := ids[n.Ref]
			fmt.Fprintf(b, "    %s[\"%s\"]\n", id, mermaidText(graphLabel(r, n, mixed)))
			if c := mermaidClass(stateOf(r, n)); c != "" {
				classes[c] = append(classes[c], id)
			}
			if n.Suspended {
				classes["suspended"] = append(classes["suspended"], id)
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
	for _, tier := range r.Tiers {
		for _, n := range tier.Nodes {
			for _, d := range n.DependsOn {
				arrow := "-->"
				if d.Missing {
					arrow = "-.->"
				}
				fmt.Fprintf(b, "  %s %s %s\n", ids[n.Ref], arrow, ids[d.Ref])
			}
		}
	}
	for _, c := range mermaidClasses {
		if members := classes[c.name]; len(members) > 0 {
			fmt.Fprintf(b, "  classDef %s %s\n", c.name, c.def)
			fmt.Fprintf(b, "  class %s %s\n", strings.Join(members, ","), c.name)
		}
	}
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
