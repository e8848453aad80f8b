package tiers

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestBuild(t *testing.T) {
	fan := []Node{ks("flux-system/root")}
	var fanTier []string
	for i := range 50 {
		name := fmt.Sprintf("flux-system/leaf-%02d", 49-i) // given in reverse order
		fan = append(fan, ks(name, "root"))
		fanTier = append([]string{name}, fanTier...)
	}

	tests := []struct {
		name        string
		nodes       []Node
		opts        Options
		want        [][]string
		wantMissing []string
		wantErr     string
	}{
		{name: "empty graph", nodes: nil, want: nil},
		{name: "one node", nodes: []Node{ks("flux-system/a")}, want: [][]string{{"flux-system/a"}}},
		{
			name:  "chain",
			nodes: []Node{ks("ns/c", "b"), ks("ns/a"), ks("ns/b", "a")},
			want:  [][]string{{"ns/a"}, {"ns/b"}, {"ns/c"}},
		},
		{
			name:  "diamond",
			nodes: []Node{ks("ns/d", "c", "b"), ks("ns/c", "a"), ks("ns/b", "a"), ks("ns/a")},
			want:  [][]string{{"ns/a"}, {"ns/b", "ns/c"}, {"ns/d"}},
		},
		{
			name:  "tier is one above the highest dependency",
			nodes: []Node{ks("ns/a"), ks("ns/b", "a"), ks("ns/c", "b"), ks("ns/z", "a", "c")},
			want:  [][]string{{"ns/a"}, {"ns/b"}, {"ns/c"}, {"ns/z"}},
		},
		{name: "wide fan-out", nodes: fan, want: [][]string{{"flux-system/root"}, fanTier}},
		{
			name: "cross-namespace edges sort by namespace then name",
			nodes: []Node{
				ks("flux-system/zz-root"), ks("infra/db"), ks("apps/web", "infra/cache", "infra/db"),
				ks("apps/api", "infra/db"), ks("infra/cache", "flux-system/zz-root"),
			},
			want: [][]string{{"flux-system/zz-root", "infra/db"}, {"apps/api", "infra/cache"}, {"apps/web"}},
		},
		{
			name:  "repeated dependency and readyExpr entries are single edges",
			nodes: []Node{ks("ns/a"), {ID: parseRef("ns/b", kindKS, ""), DependsOn: []Dependency{{ID: parseRef("ns/a", kindKS, ""), ReadyExpr: "dep.status.x == 1"}, {ID: parseRef("ns/a", kindKS, "")}}}},
			want:  [][]string{{"ns/a"}, {"ns/b"}},
		},
		{
			name:    "self-loop",
			nodes:   []Node{ks("flux-system/a", "a"), ks("flux-system/b")},
			wantErr: "circular dependency detected: flux-system/a -> flux-system/a",
		},
		{
			name: "two disjoint cycles, with a dependent of one",
			nodes: []Node{
				ks("ns/d", "e"), ks("ns/a", "b"), ks("ns/b", "a"), ks("ns/e", "c"), ks("ns/c", "d"),
				ks("ns/tail", "a"), ks("ns/ok"),
			},
			wantErr: "2 circular dependencies detected: ns/a -> ns/b -> ns/a; ns/c -> ns/d -> ns/e -> ns/c",
		},
		{
			name:    "two cycles through one node are both listed",
			nodes:   []Node{ks("ns/a", "b", "c"), ks("ns/b", "a"), ks("ns/c", "a")},
			wantErr: "2 circular dependencies detected: ns/a -> ns/b -> ns/a; ns/a -> ns/c -> ns/a",
		},
		{
			name:    "cross-namespace cycle",
			nodes:   []Node{ks("apps/web", "infra/db"), ks("infra/db", "apps/web")},
			wantErr: "circular dependency detected: apps/web -> infra/db -> apps/web",
		},
		{
			name:    "dangling dependency",
			nodes:   []Node{ks("flux-system/apps", "infra")},
			wantErr: "Kustomization/flux-system/apps depends on Kustomization/flux-system/infra, which does not exist",
		},
		{
			name:    "several dangling dependencies",
			nodes:   []Node{ks("flux-system/apps", "infra", "infra"), ks("flux-system/vms", "apps", "cdi")},
			wantErr: "2 missing dependencies: Kustomization/flux-system/apps depends on Kustomization/flux-system/infra, which does not exist; Kustomization/flux-system/vms depends on Kustomization/flux-system/cdi, which does not exist",
		},
		{
			name:        "dangling dependency allowed: treated as external and ready",
			nodes:       []Node{ks("flux-system/apps", "infra", "base"), ks("flux-system/base"), ks("flux-system/vms", "infra")},
			opts:        Options{AllowMissing: true},
			want:        [][]string{{"flux-system/base", "flux-system/vms"}, {"flux-system/apps"}},
			wantMissing: []string{"flux-system/apps -> flux-system/infra", "flux-system/vms -> flux-system/infra"},
		},
		{
			name:    "duplicate IDs",
			nodes:   []Node{ks("ns/a"), ks("ns/b"), ks("ns/a")},
			wantErr: "duplicate node Kustomization/ns/a",
		},
		{
			name: "mixed kinds: kind is part of the ID",
			nodes: []Node{
				ks("flux-system/cilium"), hr("kube-system/cilium"), hr("flux-system/cilium"),
				hr("monitoring/grafana", "kube-system/cilium"), ks("flux-system/apps", "cilium"),
			},
			want: [][]string{
				{"HelmRelease/flux-system/cilium", "flux-system/cilium", "HelmRelease/kube-system/cilium"},
				{"flux-system/apps", "HelmRelease/monitoring/grafana"},
			},
		},
		{
			name:    "mixed-kind cycle names the kinds",
			nodes:   []Node{ks("ns/a", "HelmRelease/ns/a"), hr("ns/a", "Kustomization/ns/a")},
			wantErr: "circular dependency detected: HelmRelease/ns/a -> Kustomization/ns/a -> HelmRelease/ns/a",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := Build(tt.nodes, tt.opts)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Build() error = %v, want %q", err, tt.wantErr)
				}
				if g != nil {
					t.Errorf("Build() returned a graph with an error")
				}
				return
			}
			if err != nil {
				t.Fatalf("Build() error = %v", err)
			}
			if got := tierStrings(g); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Tiers() = %q, want %q", got, tt.want)
			}
			var missing []string
			for _, m := range g.Missing() {
				missing = append(missing, short(m.Dependent)+" -> "+short(m.Missing))
			}
			if !reflect.DeepEqual(missing, tt.wantMissing) {
				t.Errorf("Missing() = %q, want %q", missing, tt.wantMissing)
			}
			checkTierInvariant(t, g)
		})
	}
}

// checkTierInvariant verifies every node sits one above its highest dependency.
func checkTierInvariant(t *testing.T, g *Graph) {
	t.Helper()
	for _, n := range g.Nodes() {
		want := 0
		for _, d := range g.Dependencies(n.ID) {
			dt, _ := g.TierOf(d)
			want = max(want, dt+1)
		}
		if got, ok := g.TierOf(n.ID); !ok || got != want {
			t.Errorf("TierOf(%s) = %d, %v; want %d", n.ID, got, ok, want)
		}
	}
}

func TestBuildErrorTypes(t *testing.T) {
	t.Run("cycle", func(t *testing.T) {
		_, err := Build([]Node{ks("ns/b", "a"), ks("ns/a", "b")}, Options{})
		var ce *CycleError
		if !errors.As(err, &ce) {
			t.Fatalf("error %v is not a *CycleError", err)
		}
		want := []Cycle{{parseRef("ns/a", kindKS, ""), parseRef("ns/b", kindKS, ""), parseRef("ns/a", kindKS, "")}}
		if !reflect.DeepEqual(ce.Cycles, want) || ce.Truncated {
			t.Errorf("Cycles = %v (truncated %v), want %v", ce.Cycles, ce.Truncated, want)
		}
	})
	t.Run("missing", func(t *testing.T) {
		_, err := Build([]Node{ks("ns/b", "a", "x"), ks("ns/c", "x")}, Options{})
		var me *MissingError
		if !errors.As(err, &me) {
			t.Fatalf("error %v is not a *MissingError", err)
		}
		if got, want := shorts(me.Absent()), []string{"ns/a", "ns/x"}; !reflect.DeepEqual(got, want) {
			t.Errorf("Absent() = %q, want %q", got, want)
		}
		if len(me.Missing) != 3 || me.Missing[2].Dependent.Name != "c" {
			t.Errorf("Missing = %v, want three edges ending with ns/c", me.Missing)
		}
	})
	t.Run("cycle and missing: both typed, cycle first", func(t *testing.T) {
		_, err := Build([]Node{ks("ns/a", "b"), ks("ns/b", "a", "gone")}, Options{})
		var ce *CycleError
		var me *MissingError
		if !errors.As(err, &ce) || !errors.As(err, &me) {
			t.Fatalf("error %v: want both *CycleError and *MissingError", err)
		}
		lines := strings.Split(err.Error(), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "circular dependency detected") {
			t.Errorf("error lines = %q, want the cycle first, then the missing edge", lines)
		}
	})
	t.Run("cycle with missing allowed reports only the cycle", func(t *testing.T) {
		_, err := Build([]Node{ks("ns/a", "b"), ks("ns/b", "a", "gone")}, Options{AllowMissing: true})
		var me *MissingError
		if errors.As(err, &me) || !strings.HasPrefix(err.Error(), "circular") {
			t.Errorf("error = %v, want only the cycle", err)
		}
	})
	t.Run("duplicates", func(t *testing.T) {
		_, err := Build([]Node{ks("ns/a"), ks("ns/b"), ks("ns/b"), ks("ns/a"), ks("ns/a")}, Options{})
		var de *DuplicateError
		if !errors.As(err, &de) {
			t.Fatalf("error %v is not a *DuplicateError", err)
		}
		if got, want := shorts(de.IDs), []string{"ns/a", "ns/b"}; !reflect.DeepEqual(got, want) {
			t.Errorf("IDs = %q, want %q", got, want)
		}
		if want := "duplicate nodes Kustomization/ns/a, Kustomization/ns/b"; err.Error() != want {
			t.Errorf("Error() = %q, want %q", err, want)
		}
	})
}

func TestBuildDoesNotKeepCallerSlice(t *testing.T) {
	nodes := []Node{ks("ns/a"), ks("ns/b", "a")}
	g, err := Build(nodes, Options{})
	if err != nil {
		t.Fatal(err)
	}
	nodes[0] = ks("ns/z")
	if _, ok := g.Node(parseRef("ns/a", kindKS, "")); !ok {
		t.Errorf("graph lost ns/a after the caller changed its slice")
	}
}
