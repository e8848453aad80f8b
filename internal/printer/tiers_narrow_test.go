package printer

import (
	"slices"
	"strconv"
	"testing"

	"github.com/kubestandup/standup/pkg/flux"
)

// TestNarrowed: -n shows the namespace's nodes at their tiers in the whole
// graph, marks and lists each outside dependency once, keeps the missing
// dependencies of the shown nodes only, and drops empty tiers.
func TestNarrowed(t *testing.T) {
	objs := []flux.Object{
		ksObj("flux-system", "crds", "./crds"),
		ksObj("flux-system", "platform", "./platform", ksID("flux-system", "crds"), ksID("flux-system", "ghost")),
		ksObj("monitoring", "prom", "./prom", ksID("flux-system", "platform")),
		ksObj("monitoring", "grafana", "./grafana", ksID("monitoring", "prom"), ksID("flux-system", "platform"), ksID("monitoring", "absent")),
	}
	r := report(t, "checkout", objs, objs, nil)
	tests := []struct {
		namespace string
		nodes     []string // tier:namespace/name
		outside   []string
		missing   []string
	}{
		{namespace: "", nodes: []string{"0:flux-system/crds", "1:flux-system/platform", "2:monitoring/prom", "3:monitoring/grafana"},
			missing: []string{"flux-system/ghost", "monitoring/absent"}},
		{namespace: "monitoring", nodes: []string{"2:monitoring/prom", "3:monitoring/grafana"},
			outside: []string{"1:flux-system/platform"}, missing: []string{"monitoring/absent"}},
		{namespace: "nowhere"},
	}
	for _, tt := range tests {
		t.Run(tt.namespace, func(t *testing.T) {
			got := r.Narrowed(tt.namespace)
			var nodes, outside, missing []string
			for _, tier := range got.Tiers {
				for _, n := range tier.Nodes {
					nodes = append(nodes, strconv.Itoa(tier.Tier)+":"+n.namespacedName())
					for _, d := range n.DependsOn {
						if d.Outside != (tt.namespace != "" && d.Namespace != tt.namespace && !d.Missing) {
							t.Errorf("%s -> %s: outside = %v", n.namespacedName(), d.namespacedName(), d.Outside)
						}
					}
				}
			}
			for _, o := range got.Outside {
				outside = append(outside, strconv.Itoa(o.Tier)+":"+o.namespacedName())
			}
			for _, m := range got.Missing {
				missing = append(missing, m.Missing.namespacedName())
			}
			if !slices.Equal(nodes, tt.nodes) || !slices.Equal(outside, tt.outside) || !slices.Equal(missing, tt.missing) {
				t.Errorf("nodes %v, outside %v, missing %v; want %v, %v, %v", nodes, outside, missing, tt.nodes, tt.outside, tt.missing)
			}
			if got.Namespace != tt.namespace {
				t.Errorf("namespace %q, want %q", got.Namespace, tt.namespace)
			}
		})
	}
}
