package tiers

import (
	"errors"
	"slices"
	"testing"
)

// selectionGraph: flux-system/crds <- flux-system/platform <- monitoring/prom
// <- monitoring/grafana, apps/web <- flux-system/platform; flux-system/other
// depends on nothing and nothing in monitoring depends on it.
func selectionGraph(t *testing.T) []Node {
	t.Helper()
	return []Node{
		ks("flux-system/crds"),
		ks("flux-system/platform", "crds"),
		ks("flux-system/other"),
		ks("monitoring/prom", "flux-system/platform"),
		ks("monitoring/grafana", "prom"),
		ks("apps/web", "flux-system/platform"),
	}
}

func TestSelectionResolve(t *testing.T) {
	g, err := Build(selectionGraph(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		sel     Selection
		active  []string
		passive []string // needed, not active
	}{
		{name: "everything", sel: Selection{},
			active: []string{"apps/web", "flux-system/crds", "flux-system/other", "flux-system/platform", "monitoring/grafana", "monitoring/prom"}},
		{name: "namespace walks its nodes and waits on their ancestors elsewhere", sel: Selection{Namespace: "monitoring"},
			active: []string{"monitoring/grafana", "monitoring/prom"}, passive: []string{"flux-system/crds", "flux-system/platform"}},
		{name: "a bare name is looked for in the namespace", sel: Selection{Namespace: "monitoring", Only: []string{"prom"}},
			active: []string{"monitoring/prom"}, passive: []string{"flux-system/crds", "flux-system/platform"}},
		{name: "from an outside node walks its descendants in the namespace", sel: Selection{Namespace: "monitoring", From: []string{"flux-system/platform"}},
			active: []string{"monitoring/grafana", "monitoring/prom"}, passive: []string{"flux-system/crds", "flux-system/platform"}},
		{name: "exclude in the namespace", sel: Selection{Namespace: "monitoring", Exclude: []string{"grafana"}},
			active: []string{"monitoring/prom"}, passive: []string{"flux-system/crds", "flux-system/platform"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel := tt.sel.Resolve(g)
			var active, passive []string
			for _, id := range g.Order() {
				switch {
				case sel.Active(id):
					active = append(active, short(id))
				case sel.Needed(g, id):
					passive = append(passive, short(id))
				}
			}
			slices.Sort(active)
			slices.Sort(passive)
			if !slices.Equal(active, tt.active) || !slices.Equal(passive, tt.passive) {
				t.Errorf("active %v, passive %v; want %v, %v", active, passive, tt.active, tt.passive)
			}
		})
	}
}

func TestSelectionCheck(t *testing.T) {
	tests := []struct {
		name string
		sel  Selection
		want []string
	}{
		{name: "all match", sel: Selection{Only: []string{"prom", "flux-system/platform"}, Exclude: []string{"web"}}},
		{name: "a typo", sel: Selection{Only: []string{"prometheus"}}, want: []string{"prometheus"}},
		{name: "a bare name from another namespace", sel: Selection{Namespace: "monitoring", Only: []string{"web"}}, want: []string{"web"}},
		{name: "only an outside node walks nothing", sel: Selection{Namespace: "monitoring", Only: []string{"flux-system/platform"}}, want: []string{"flux-system/platform"}},
		{name: "from and exclude may name outside nodes", sel: Selection{Namespace: "monitoring", From: []string{"flux-system/platform"}, Exclude: []string{"apps/web"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.sel.Check(selectionGraph(t))
			var unmatched *UnmatchedError
			switch {
			case tt.want == nil && err != nil:
				t.Fatalf("Check = %v, want nil", err)
			case tt.want != nil && (!errors.As(err, &unmatched) || !slices.Equal(unmatched.Names, tt.want)):
				t.Fatalf("Check = %v, want unmatched %v", err, tt.want)
			}
		})
	}
}

func TestScope(t *testing.T) {
	tests := []struct {
		namespace string
		want      []string
	}{
		{"", []string{"apps/web", "flux-system/crds", "flux-system/other", "flux-system/platform", "monitoring/grafana", "monitoring/prom"}},
		{"monitoring", []string{"flux-system/crds", "flux-system/platform", "monitoring/grafana", "monitoring/prom"}},
		{"apps", []string{"apps/web", "flux-system/crds", "flux-system/platform"}},
		{"nowhere", nil},
	}
	for _, tt := range tests {
		t.Run(tt.namespace, func(t *testing.T) {
			var got []string
			for _, n := range Scope(selectionGraph(t), tt.namespace) {
				got = append(got, short(n.ID))
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Scope(%q) = %v, want %v", tt.namespace, got, tt.want)
			}
		})
	}
	// Tiers in the scope are those of the whole graph.
	whole, err := Build(selectionGraph(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	scoped, err := Build(Scope(selectionGraph(t), "monitoring"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range scoped.Order() {
		if a, _ := whole.TierOf(id); a != must(scoped.TierOf(id)) {
			t.Errorf("%s: tier %d in the scope, %d in the whole graph", id, must(scoped.TierOf(id)), a)
		}
	}
}

func must(t int, _ bool) int { return t }

// TestUnmatchedErrorSaysWhatWasTyped: the refusal names the kinds the
// names were looked for among and the names as given, quoted, never as a
// Go slice.
func TestUnmatchedErrorSaysWhatWasTyped(t *testing.T) {
	tests := []struct {
		err  UnmatchedError
		want string
	}{
		{UnmatchedError{Names: []string{"podinfo"}, Kinds: []string{"HelmRelease"}}, `no HelmRelease named "podinfo"`},
		{UnmatchedError{Names: []string{"a", "apps/b"}, Kinds: []string{"Kustomization", "HelmRelease"}}, `no Kustomization or HelmRelease named "a", "apps/b"`},
		{UnmatchedError{Names: []string{"web"}, Namespace: "monitoring"}, `no Kustomization named "web" in namespace monitoring`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}
