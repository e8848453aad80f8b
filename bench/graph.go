package bench

import (
	"fmt"
	"slices"

	"github.com/kubestandup/standup/internal/benchgraph"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// GraphOf turns the Kustomizations of a rendered repository into a
// benchgraph.Graph whose node names are "namespace/name", so that
// Graph.CriticalPath can weigh it. A node depends on its dependsOn entries
// and also on the Kustomization that applies it (AppliedBy): on a cold
// cluster a child cannot start before its parent has created it.
// Dependencies outside objs are dropped.
func GraphOf(objs []flux.Object) (benchgraph.Graph, error) {
	var nodes []tiers.Node
	in := map[tiers.ID]bool{}
	for _, o := range objs {
		if o.ID.Kind == flux.KindKustomization {
			in[o.ID] = true
		}
	}
	for _, o := range objs {
		if !in[o.ID] {
			continue
		}
		n := tiers.Node{ID: o.ID}
		for _, d := range o.DependsOn {
			if in[d.ID] {
				n.DependsOn = append(n.DependsOn, d)
			}
		}
		if a := o.AppliedBy; a != nil && *a != o.ID && in[*a] && !slices.ContainsFunc(n.DependsOn, func(d tiers.Dependency) bool { return d.ID == *a }) {
			n.DependsOn = append(n.DependsOn, tiers.Dependency{ID: *a})
		}
		nodes = append(nodes, n)
	}
	tg, err := tiers.Build(nodes, tiers.Options{})
	if err != nil {
		return benchgraph.Graph{}, fmt.Errorf("graph of %d Kustomizations: %w", len(nodes), err)
	}
	var g benchgraph.Graph
	for t, tier := range tg.Tiers() {
		for _, id := range tier {
			n, _ := tg.Node(id)
			bn := benchgraph.Node{Name: id.NamespacedName(), Tier: t}
			for _, d := range n.DependsOn {
				bn.DependsOn = append(bn.DependsOn, d.ID.NamespacedName())
			}
			slices.Sort(bn.DependsOn)
			g.Nodes = append(g.Nodes, bn)
		}
	}
	return g, nil
}
