package printer

import (
	"math"
	"slices"
	"unicode/utf8"

	"github.com/kubestandup/standup/pkg/flux"
)

// The pictures (dot, mermaid) draw a HelmRelease under the Kustomization
// that applies it, in that Kustomization's tier box: on a cold start the
// release exists only once its Kustomization has applied it, whatever the
// tier of its own dependsOn says. A tier box therefore holds units: a node,
// and the HelmReleases drawn under it.

// unit is a node of a tier box and the HelmReleases it applies.
type unit struct {
	head     TierNode
	releases []TierNode
}

// placedTier is a tier box of a picture: its number and its units, in the
// report's order. A tier whose nodes are all drawn under their appliers
// elsewhere holds none.
type placedTier struct {
	tier  int
	units []unit
}

// placement is where the pictures draw each node of a report.
type placement struct {
	tiers []placedTier
	// applier maps each HelmRelease drawn under its Kustomization to it.
	applier map[Ref]Ref
}

// place puts each HelmRelease whose appliedBy is a node of the report
// under that node, and every other node in its own tier.
func place(r TiersReport) placement {
	nodes := map[Ref]bool{}
	for _, t := range r.Tiers {
		for _, n := range t.Nodes {
			nodes[n.Ref] = true
		}
	}
	p := placement{applier: map[Ref]Ref{}}
	released := map[Ref][]TierNode{}
	for _, t := range r.Tiers {
		for _, n := range t.Nodes {
			if n.Kind == flux.KindHelmRelease && n.AppliedBy != nil && n.AppliedBy.Kind == flux.KindKustomization && nodes[*n.AppliedBy] {
				p.applier[n.Ref] = *n.AppliedBy
				released[*n.AppliedBy] = append(released[*n.AppliedBy], n)
			}
		}
	}
	for _, t := range r.Tiers {
		pt := placedTier{tier: t.Tier}
		for _, n := range t.Nodes {
			if _, under := p.applier[n.Ref]; under {
				continue
			}
			rels := released[n.Ref]
			slices.SortStableFunc(rels, func(a, b TierNode) int { return compareIDs(a.id(), b.id()) })
			pt.units = append(pt.units, unit{head: n, releases: rels})
		}
		p.tiers = append(p.tiers, pt)
	}
	return p
}

// Graphviz sizes in points, for estimating how wide a row of boxes is:
// Helvetica 14 averages about 7 points a character, a box adds its margins
// (0.11 in each side) and is at least 0.75 in wide, boxes stand nodesep
// (0.25 in) apart, and a row of boxes with the space below it takes about
// an inch.
const (
	dotCharWidth  = 7
	dotBoxMargin  = 16
	dotMinBox     = 54
	dotNodeSep    = 18
	dotLineHeight = 72
	// dotMinRow is the narrowest row a tier wraps at (about 17 in): a
	// tier of a handful of boxes stays on one row however small the graph.
	dotMinRow = 1200
	// dotAspect is the width-to-height ratio the rows aim at: a screen's.
	dotAspect = 2
)

// dotLine is the nodes drawn side by side at one rank of a tier box.
type dotLine []TierNode

// dotTier is a tier box of the dot picture as lines, top to bottom: each
// row of units is its heads, then their releases, wrapped.
type dotTier struct {
	tier  int
	lines []dotLine
}

// boxWidth estimates the width of a node's box with the given label.
func boxWidth(label string) int {
	return max(dotMinBox, utf8.RuneCountInString(label)*dotCharWidth+dotBoxMargin)
}

// wrap splits nodes into lines no wider than budget (a line holds at least
// one node), in order, and returns them with the widest line's width.
func wrap(nodes []TierNode, budget int, width func(TierNode) int) ([]dotLine, int) {
	var lines []dotLine
	widest, used := 0, 0
	for _, n := range nodes {
		w := width(n)
		if len(lines) == 0 || used+dotNodeSep+w > budget {
			lines = append(lines, nil)
			used = w
		} else {
			used += dotNodeSep + w
		}
		lines[len(lines)-1] = append(lines[len(lines)-1], n)
		widest = max(widest, used)
	}
	return lines, widest
}

// rowBudget is the width a row of a tier may take: enough that the whole
// picture comes out about dotAspect times as wide as it is high, and never
// less than dotMinRow.
func rowBudget(p placement, width func(TierNode) int) int {
	area := 0
	for _, t := range p.tiers {
		for _, u := range t.units {
			area += (width(u.head) + dotNodeSep) * dotLineHeight
			for _, rel := range u.releases {
				area += (width(rel) + dotNodeSep) * dotLineHeight
			}
		}
	}
	return max(dotMinRow, int(math.Sqrt(float64(dotAspect*area))))
}

// dotLayout lays the tier boxes out as lines: each tier's units are
// packed into rows no wider than the budget, and each row becomes a line
// of heads followed by the lines of the releases under them (a unit whose
// releases are wider than the budget wraps them).
func dotLayout(p placement, width func(TierNode) int) []dotTier {
	budget := rowBudget(p, width)
	out := make([]dotTier, 0, len(p.tiers))
	for _, t := range p.tiers {
		dt := dotTier{tier: t.tier}
		var row []unit
		used := 0
		flush := func() {
			if len(row) > 0 {
				dt.lines = append(dt.lines, rowLines(row, budget, width)...)
			}
			row, used = nil, 0
		}
		for _, u := range t.units {
			w := unitWidth(u, budget, width)
			if len(row) > 0 && used+dotNodeSep+w > budget {
				flush()
			}
			if len(row) > 0 {
				used += dotNodeSep
			}
			row, used = append(row, u), used+w
		}
		flush()
		out = append(out, dt)
	}
	return out
}

// unitWidth is the width a unit takes in a row: its head's, or its
// releases' lines', whichever is wider.
func unitWidth(u unit, budget int, width func(TierNode) int) int {
	_, widest := wrap(u.releases, budget, width)
	return max(width(u.head), widest)
}

// rowLines is a row of units as lines: the heads, then line i of every
// unit's releases, for as many lines as the unit with the most has.
func rowLines(row []unit, budget int, width func(TierNode) int) []dotLine {
	heads := dotLine{}
	var below []dotLine
	for _, u := range row {
		heads = append(heads, u.head)
		lines, _ := wrap(u.releases, budget, width)
		for i, l := range lines {
			if i == len(below) {
				below = append(below, nil)
			}
			below[i] = append(below[i], l...)
		}
	}
	return append([]dotLine{heads}, below...)
}
