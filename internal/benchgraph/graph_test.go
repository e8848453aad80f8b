package benchgraph

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// realTiers computes each node's tier with pkg/tiers from the dependsOn edges alone.
func realTiers(t *testing.T, g Graph) map[string]int {
	t.Helper()
	var nodes []tiers.Node
	for _, n := range g.Nodes {
		tn := tiers.Node{ID: tiers.ID{Kind: "Kustomization", Namespace: g.Namespace, Name: n.Name}}
		for _, d := range n.DependsOn {
			tn.DependsOn = append(tn.DependsOn, tiers.Dependency{ID: tiers.ID{Kind: "Kustomization", Namespace: g.Namespace, Name: d}})
		}
		nodes = append(nodes, tn)
	}
	tg, err := tiers.Build(nodes, tiers.Options{})
	if err != nil {
		t.Fatalf("generated graph is invalid: %v", err)
	}
	out := map[string]int{}
	for i, tier := range tg.Tiers() {
		for _, id := range tier {
			out[id.Name] = i
		}
	}
	return out
}

func TestGenerate(t *testing.T) {
	tests := []struct {
		name      string
		spec      Spec
		nodes     int
		fanIn     int // edges into the tier right above, per non-root node
		skips     int // edges reaching further up, in total
		minD      time.Duration
		maxD      time.Duration
		namespace string
	}{
		{name: "uniform lattice", spec: Spec{Depth: 5, Width: 2, FanIn: 2}, nodes: 10, fanIn: 2, namespace: DefaultNamespace},
		{name: "fan-in clamped to width", spec: Spec{Depth: 3, Width: 2, FanIn: 7}, nodes: 6, fanIn: 2, namespace: DefaultNamespace},
		{name: "fan-in zero means one", spec: Spec{Depth: 4, Width: 3, Seed: 9}, nodes: 12, fanIn: 1, namespace: DefaultNamespace},
		{name: "skip edges and durations", spec: Spec{Depth: 8, Width: 4, FanIn: 2, SkipEdges: 6, Seed: 3, MinSeconds: 2, MaxSeconds: 4, Namespace: "bench"},
			nodes: 32, fanIn: 2, skips: 6, minD: 2 * time.Second, maxD: 4 * time.Second, namespace: "bench"},
		{name: "no room for skip edges", spec: Spec{Depth: 2, Width: 3, FanIn: 1, SkipEdges: 5}, nodes: 6, fanIn: 1, namespace: DefaultNamespace},
		{name: "large", spec: Spec{Depth: 50, Width: 100, FanIn: 2, SkipEdges: 200, Seed: 1}, nodes: 5000, fanIn: 2, skips: 200, namespace: DefaultNamespace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := Generate(tt.spec)
			if len(g.Nodes) != tt.nodes || g.Namespace != tt.namespace {
				t.Fatalf("got %d nodes in %q, want %d in %q", len(g.Nodes), g.Namespace, tt.nodes, tt.namespace)
			}
			tierOf := realTiers(t, g)
			skips := 0
			for _, n := range g.Nodes {
				if tierOf[n.Name] != n.Tier {
					t.Fatalf("%s: Tier = %d, but its edges put it in tier %d", n.Name, n.Tier, tierOf[n.Name])
				}
				above := 0
				for _, d := range n.DependsOn {
					if tierOf[d] == n.Tier-1 {
						above++
					} else {
						skips++
					}
				}
				if n.Tier > 0 && above != tt.fanIn {
					t.Fatalf("%s depends on %d nodes of the tier above, want %d", n.Name, above, tt.fanIn)
				}
				if !slices.IsSorted(n.DependsOn) {
					t.Fatalf("%s dependsOn not sorted: %v", n.Name, n.DependsOn)
				}
				if n.Duration < tt.minD || n.Duration > tt.maxD {
					t.Fatalf("%s duration %s outside [%s, %s]", n.Name, n.Duration, tt.minD, tt.maxD)
				}
			}
			if skips != tt.skips {
				t.Fatalf("%d skip edges, want %d", skips, tt.skips)
			}
		})
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	spec := Spec{Depth: 6, Width: 5, FanIn: 2, SkipEdges: 4, Seed: 42, MinSeconds: 1, MaxSeconds: 10}
	a, b := Generate(spec), Generate(spec)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same spec generated two different graphs")
	}
	spec.Seed++
	if c := Generate(spec); reflect.DeepEqual(a.Nodes, c.Nodes) {
		t.Fatal("another seed generated the same graph: the seed is ignored")
	}
	if !reflect.DeepEqual(Uneven(7), Uneven(7)) {
		t.Fatal("Uneven(7) is not deterministic")
	}
	if reflect.DeepEqual(Uneven(7).Nodes, Uneven(8).Nodes) {
		t.Fatal("Uneven ignores its seed")
	}
}

// TestGoldenGraphs pins the generated graphs across processes and Go
// versions: math/rand/v2's PCG is specified, so the same seed must keep
// generating the same graph.
func TestGoldenGraphs(t *testing.T) {
	tests := []struct {
		name string
		g    Graph
	}{
		{name: "uniform", g: Uniform()},
		{name: "uneven-1", g: Uneven(1)},
		{name: "spec-4x4-fanin2-skip3", g: Generate(Spec{Depth: 4, Width: 4, FanIn: 2, SkipEdges: 3, Seed: 11, MinSeconds: 0, MaxSeconds: 3})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render(tt.g)
			path := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Fatalf("graph differs from %s (run with -update if intended):\n%s", path, got)
			}
		})
	}
}

func render(g Graph) string {
	var b strings.Builder
	fmt.Fprintf(&b, "spec: %+v\n", g.Spec)
	for _, n := range g.Nodes {
		fmt.Fprintf(&b, "%s tier=%d duration=%s dependsOn=%v\n", n.Name, n.Tier, n.Duration, n.DependsOn)
	}
	for _, poll := range []time.Duration{0, HealthCheckPoll} {
		d := g.Durations(poll)
		cp, path := g.CriticalPath(d)
		fmt.Fprintf(&b, "poll=%s criticalPath=%s tierBound=%s path=%v\n", poll, cp, g.TierBound(d), path)
	}
	return b.String()
}
