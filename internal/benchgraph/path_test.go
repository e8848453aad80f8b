package benchgraph

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// graphOf builds a graph from "name<-dep,dep" entries, given in tier order.
func graphOf(entries ...string) Graph {
	g := Graph{Namespace: DefaultNamespace}
	tier := map[string]int{}
	for _, e := range entries {
		name, deps, _ := strings.Cut(e, "<-")
		n := Node{Name: name}
		if deps != "" {
			n.DependsOn = strings.Split(deps, ",")
			for _, d := range n.DependsOn {
				n.Tier = max(n.Tier, tier[d]+1)
			}
		}
		tier[name] = n.Tier
		g.Nodes = append(g.Nodes, n)
	}
	return g
}

func secs(pairs ...any) map[string]time.Duration {
	out := map[string]time.Duration{}
	for i := 0; i < len(pairs); i += 2 {
		out[pairs[i].(string)] = time.Duration(pairs[i+1].(int)) * time.Second
	}
	return out
}

func TestCriticalPath(t *testing.T) {
	tests := []struct {
		name      string
		g         Graph
		durations map[string]time.Duration
		want      time.Duration
		path      []string
		tierBound time.Duration
	}{
		{name: "empty", g: Graph{}, want: 0, path: nil},
		{name: "chain", g: graphOf("a", "b<-a", "c<-b"), durations: secs("a", 1, "b", 2, "c", 3),
			want: 6 * time.Second, path: []string{"a", "b", "c"}, tierBound: 6 * time.Second},
		{name: "diamond takes the slow branch", g: graphOf("a", "b<-a", "c<-a", "d<-b,c"), durations: secs("a", 1, "b", 2, "c", 5, "d", 1),
			want: 7 * time.Second, path: []string{"a", "c", "d"}, tierBound: 7 * time.Second},
		{name: "slow nodes on separate branches", g: graphOf("a", "x", "b<-a", "y<-x"), durations: secs("a", 9, "x", 1, "b", 1, "y", 9),
			want: 10 * time.Second, path: []string{"a", "b"}, tierBound: 18 * time.Second},
		{name: "a skip edge carries the slow root", g: graphOf("slow", "fast", "m<-fast", "end<-m,slow"), durations: secs("slow", 10, "fast", 1, "m", 1, "end", 1),
			want: 11 * time.Second, path: []string{"slow", "end"}, tierBound: 12 * time.Second},
		{name: "missing durations weigh zero", g: graphOf("a", "b<-a"), durations: secs("b", 4),
			want: 4 * time.Second, path: []string{"a", "b"}, tierBound: 4 * time.Second},
		{name: "ties go to the first node", g: graphOf("a", "b", "c<-a,b"), durations: secs("a", 2, "b", 2, "c", 1),
			want: 3 * time.Second, path: []string{"a", "c"}, tierBound: 3 * time.Second},
		{name: "dependencies outside the graph are ignored", g: graphOf("a<-elsewhere"), durations: secs("a", 2, "elsewhere", 50),
			want: 2 * time.Second, path: []string{"a"}, tierBound: 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, path := tt.g.CriticalPath(tt.durations)
			if got != tt.want || !slices.Equal(path, tt.path) {
				t.Fatalf("CriticalPath = %s %v, want %s %v", got, path, tt.want, tt.path)
			}
			if tb := tt.g.TierBound(tt.durations); tb != tt.tierBound {
				t.Fatalf("TierBound = %s, want %s", tb, tt.tierBound)
			}
		})
	}
}

func TestDurationsRoundUpToThePoll(t *testing.T) {
	g := graphOf("a", "b", "c", "d")
	g.Nodes[0].Duration, g.Nodes[1].Duration, g.Nodes[2].Duration = time.Second, 5*time.Second, 6*time.Second
	tests := []struct {
		poll time.Duration
		want map[string]time.Duration
	}{
		{poll: 0, want: secs("a", 1, "b", 5, "c", 6, "d", 0)},
		{poll: HealthCheckPoll, want: secs("a", 5, "b", 5, "c", 10, "d", 0)},
	}
	for _, tt := range tests {
		got := g.Durations(tt.poll)
		for name, want := range tt.want {
			if got[name] != want {
				t.Fatalf("poll %s: %s = %s, want %s", tt.poll, name, got[name], want)
			}
		}
	}
}

// TestUnevenCrossesTiers checks the uneven scenario's promise for many
// seeds: its shape, and a critical path well below the tier-by-tier cost,
// with the generated durations and with kustomize-controller's 5 s poll.
func TestUnevenCrossesTiers(t *testing.T) {
	for seed := range int64(25) {
		g := Uneven(seed)
		if len(g.Nodes) != 18 || len(g.Tiers()) != 6 {
			t.Fatalf("seed %d: %d nodes in %d tiers, want 6 x 3", seed, len(g.Nodes), len(g.Tiers()))
		}
		for _, n := range g.Nodes {
			if n.Duration < time.Second || n.Duration > 10*time.Second {
				t.Fatalf("seed %d: %s duration %s outside 1-10 s", seed, n.Name, n.Duration)
			}
		}
		for _, poll := range []time.Duration{0, HealthCheckPoll} {
			d := g.Durations(poll)
			cp, path := g.CriticalPath(d)
			tb := g.TierBound(d)
			if float64(tb) < UnevenMinRatio*float64(cp) {
				t.Fatalf("seed %d poll %s: tier bound %s < %.1f x critical path %s", seed, poll, tb, UnevenMinRatio, cp)
			}
			checkPath(t, g, d, path, cp)
		}
	}
	if CrossesTiers(Uniform(), 0, 1.0) {
		t.Fatal("Uniform has no durations: nothing crosses tiers")
	}
}

// checkPath asserts path is a dependsOn chain whose durations sum to cp.
func checkPath(t *testing.T, g Graph, d map[string]time.Duration, path []string, cp time.Duration) {
	t.Helper()
	deps := map[string][]string{}
	for _, n := range g.Nodes {
		deps[n.Name] = n.DependsOn
	}
	var sum time.Duration
	for i, name := range path {
		sum += d[name]
		if i > 0 && !slices.Contains(deps[name], path[i-1]) {
			t.Fatalf("path %v: %s does not depend on %s", path, name, path[i-1])
		}
	}
	if sum != cp {
		t.Fatalf("path %v sums to %s, want %s", path, sum, cp)
	}
}
