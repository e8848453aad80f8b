package tiers

import (
	"reflect"
	"testing"
)

// homelab is the seed's graph plus a cross-namespace edge.
func homelab(t *testing.T) *Graph {
	t.Helper()
	g, err := Build([]Node{
		ks("flux-system/flux-system"),
		ks("flux-system/platform", "flux-system"),
		ks("flux-system/platform-config", "platform"),
		ks("flux-system/platform-config-cdi", "platform-config"),
		ks("flux-system/apps-vms", "platform-config", "platform-config-cdi"),
		ks("monitoring/dashboards", "flux-system/platform"),
		ks("flux-system/unrelated"),
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestQueries(t *testing.T) {
	g := homelab(t)
	id := func(ref string) ID { return parseRef(ref, kindKS, "") }
	tests := []struct {
		name string
		got  []ID
		want []string
	}{
		{"Dependencies", g.Dependencies(id("flux-system/apps-vms")), []string{"flux-system/platform-config", "flux-system/platform-config-cdi"}},
		{"Dependencies of a root", g.Dependencies(id("flux-system/flux-system")), []string{}},
		{"Dependencies of an unknown ID", g.Dependencies(id("x/y")), nil},
		{"Dependents", g.Dependents(id("flux-system/platform")), []string{"flux-system/platform-config", "monitoring/dashboards"}},
		{"Ancestors", g.Ancestors(id("flux-system/apps-vms")), []string{"flux-system/flux-system", "flux-system/platform", "flux-system/platform-config", "flux-system/platform-config-cdi"}},
		{"Ancestors of two, one above the other", g.Ancestors(id("flux-system/platform-config-cdi"), id("flux-system/platform")), []string{"flux-system/flux-system", "flux-system/platform", "flux-system/platform-config"}},
		{"Descendants", g.Descendants(id("flux-system/platform")), []string{"flux-system/platform-config", "monitoring/dashboards", "flux-system/platform-config-cdi", "flux-system/apps-vms"}},
		{"Descendants of a leaf", g.Descendants(id("flux-system/apps-vms")), []string{}},
		{"Descendants ignore unknown IDs", g.Descendants(id("nope/nope")), []string{}},
		{"Order", g.Order(), []string{"flux-system/flux-system", "flux-system/unrelated", "flux-system/platform", "flux-system/platform-config", "monitoring/dashboards", "flux-system/platform-config-cdi", "flux-system/apps-vms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == nil {
				if tt.got != nil {
					t.Errorf("got %v, want nil", tt.got)
				}
				return
			}
			if got := shorts(tt.got); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if tier, ok := g.TierOf(id("flux-system/apps-vms")); !ok || tier != 4 {
		t.Errorf("TierOf(apps-vms) = %d, %v; want 4, true", tier, ok)
	}
	if _, ok := g.TierOf(id("flux-system/absent")); ok {
		t.Errorf("TierOf(absent) reported a tier")
	}
	if g.Len() != 7 || len(g.Nodes()) != 7 {
		t.Errorf("Len() = %d, len(Nodes()) = %d, want 7", g.Len(), len(g.Nodes()))
	}
}

func TestAbsent(t *testing.T) {
	g, err := Build([]Node{ks("ns/a", "z", "y"), ks("ns/b", "z")}, Options{AllowMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := shorts(g.Absent()), []string{"ns/y", "ns/z"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Absent() = %q, want %q", got, want)
	}
}
