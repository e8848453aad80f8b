package printer

import "slices"

// OutsideNode is a dependency in another namespace of a narrowed report's
// nodes, with its tier in the whole graph and what is known of it.
type OutsideNode struct {
	TierNode `yaml:",inline"`
	// Tier is the node's tier in the whole graph.
	Tier int `json:"tier" yaml:"tier"`
}

// Narrowed returns the report of namespace's nodes alone (-n NS). Each
// keeps its tier in the whole graph (r must hold the nodes' ancestors, as
// tiers.Scope keeps them); tiers left without a node are dropped; a
// dependency in another namespace is marked Outside on its dependent and
// listed once in Outside. An empty namespace returns r as it is.
func (r TiersReport) Narrowed(namespace string) TiersReport {
	if namespace == "" {
		return r
	}
	everywhere := map[Ref]OutsideNode{}
	for _, t := range r.Tiers {
		for _, n := range t.Nodes {
			everywhere[n.Ref] = OutsideNode{TierNode: n, Tier: t.Tier}
		}
	}
	out := r
	out.Namespace, out.Tiers, out.Outside, out.Missing = namespace, []Tier{}, nil, []MissingDependency{}
	listed := map[Ref]bool{}
	for _, t := range r.Tiers {
		var nodes []TierNode
		for _, n := range t.Nodes {
			if n.Namespace != namespace {
				continue
			}
			n.DependsOn = slices.Clone(n.DependsOn)
			for i, d := range n.DependsOn {
				if d.Namespace == namespace || d.Missing {
					continue
				}
				n.DependsOn[i].Outside = true
				if dep, ok := everywhere[d.Ref]; ok && !listed[d.Ref] {
					listed[d.Ref] = true
					out.Outside = append(out.Outside, dep)
				}
			}
			nodes = append(nodes, n)
		}
		if len(nodes) > 0 {
			out.Tiers = append(out.Tiers, Tier{Tier: t.Tier, Nodes: nodes})
		}
	}
	slices.SortFunc(out.Outside, func(a, b OutsideNode) int {
		if a.Tier != b.Tier {
			return a.Tier - b.Tier
		}
		return compareIDs(a.id(), b.id())
	})
	for _, m := range r.Missing {
		if m.Dependent.Namespace == namespace {
			out.Missing = append(out.Missing, m)
		}
	}
	return out
}
