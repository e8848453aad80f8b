package bench

import (
	"fmt"
	"slices"

	"github.com/kubestandup/standup/internal/benchgraph"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
	"k8s.io/apimachinery/pkg/runtime/schema"
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

// RuntimeOrigin is an operator that creates CRDs at runtime, in graph terms:
// Trigger is the Kustomization that applies the object it reconciles, and
// Waiting the other Kustomizations that apply objects of its kinds. Those
// cannot succeed before the operator has created the CRDs, and a walk may
// not create them for it (an operator about to create a CRD is never
// pre-empted), so the operator's latency lies on their path like a node's
// reconcile. The trigger's own Kustomization does not wait: its runtime
// kinds are the deadlock itself, which the walk breaks by pre-applying.
type RuntimeOrigin struct {
	Name    string
	Trigger string
	Waiting []string
}

// RuntimeOriginOf finds the Kustomizations of res that apply an object of
// trigger and those that apply objects of kinds. Exactly one Kustomization
// may apply the trigger.
func RuntimeOriginOf(res *render.Result, name string, trigger schema.GroupKind, kinds []schema.GroupKind) (RuntimeOrigin, error) {
	o := RuntimeOrigin{Name: name}
	applies := func(id tiers.ID, gks []schema.GroupKind) bool {
		return slices.ContainsFunc(res.Rendered[id], func(m render.Manifest) bool {
			return slices.Contains(gks, m.Object.GroupVersionKind().GroupKind())
		})
	}
	var waiting []string
	for _, obj := range res.Objects {
		id := obj.ID
		if id.Kind != flux.KindKustomization {
			continue
		}
		switch {
		case applies(id, []schema.GroupKind{trigger}):
			if o.Trigger != "" {
				return RuntimeOrigin{}, fmt.Errorf("%s: both %s and %s apply a %s", name, o.Trigger, id.NamespacedName(), trigger)
			}
			o.Trigger = id.NamespacedName()
		case applies(id, kinds):
			waiting = append(waiting, id.NamespacedName())
		}
	}
	if o.Trigger == "" {
		return RuntimeOrigin{}, fmt.Errorf("%s: no Kustomization applies a %s", name, trigger)
	}
	slices.Sort(waiting)
	o.Waiting = waiting
	return o, nil
}

// On returns g with the operator as a node of its own, right after its
// trigger's Kustomization and a dependency of each waiting one, for
// Graph.CriticalPath (weighed by the operator's latency under o.Name). A
// waiting node ordered before the trigger cannot be placed after the
// operator, and is an error.
func (o RuntimeOrigin) On(g benchgraph.Graph) (benchgraph.Graph, error) {
	at := slices.IndexFunc(g.Nodes, func(n benchgraph.Node) bool { return n.Name == o.Trigger })
	if at < 0 {
		return benchgraph.Graph{}, fmt.Errorf("%s: trigger %s is not in the graph", o.Name, o.Trigger)
	}
	out := g
	out.Nodes = slices.Clone(g.Nodes)
	out.Nodes = slices.Insert(out.Nodes, at+1, benchgraph.Node{Name: o.Name, Tier: g.Nodes[at].Tier, DependsOn: []string{o.Trigger}})
	for _, w := range o.Waiting {
		i := slices.IndexFunc(out.Nodes, func(n benchgraph.Node) bool { return n.Name == w })
		if i < 0 {
			return benchgraph.Graph{}, fmt.Errorf("%s: %s waits on it but is not in the graph", o.Name, w)
		}
		if i < at+1 {
			return benchgraph.Graph{}, fmt.Errorf("%s: %s waits on it but is not after its trigger %s in tier order", o.Name, w, o.Trigger)
		}
		n := out.Nodes[i]
		n.DependsOn = append(slices.Clone(n.DependsOn), o.Name)
		slices.Sort(n.DependsOn)
		out.Nodes[i] = n
	}
	return out, nil
}
