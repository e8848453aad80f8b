package benchgraph

import (
	"reflect"
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

func TestThroughputBound(t *testing.T) {
	g := graphOf("a", "b<-a", "c<-a", "d<-b,c")
	tests := []struct {
		name      string
		durations map[string]time.Duration
		workers   int
		want      time.Duration
	}{
		{name: "four workers share the work", durations: secs("a", 4, "b", 4, "c", 4, "d", 4), workers: 4, want: 4 * time.Second},
		{name: "one worker does it all", durations: secs("a", 1, "b", 2, "c", 3, "d", 4), workers: 1, want: 10 * time.Second},
		{name: "no workers counts as one", durations: secs("a", 1, "b", 1), workers: 0, want: 2 * time.Second},
		{name: "durations of nodes outside the graph are ignored", durations: secs("a", 2, "elsewhere", 50), workers: 2, want: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := g.ThroughputBound(tt.durations, tt.workers); got != tt.want {
				t.Fatalf("ThroughputBound = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestScaleHasTheIssuesShape checks the scale scenario's promise for many
// seeds: 15 tiers of 20 at fan-in 2, ten slow nodes of 5–15 s in ten
// tiers, a critical path through slow nodes of several tiers, and the
// worker pool as the limit at the nominal reconcile time.
func TestScaleHasTheIssuesShape(t *testing.T) {
	for seed := range int64(10) {
		g := Scale(seed)
		if len(g.Nodes) != ScaleDepth*ScaleWidth || len(g.Tiers()) != ScaleDepth {
			t.Fatalf("seed %d: %d nodes in %d tiers, want %d x %d", seed, len(g.Nodes), len(g.Tiers()), ScaleDepth, ScaleWidth)
		}
		slowTiers := map[int]bool{}
		for _, n := range g.Nodes {
			if n.Tier > 0 && len(n.DependsOn) != ScaleFanIn {
				t.Fatalf("seed %d: %s depends on %v, want %d nodes", seed, n.Name, n.DependsOn, ScaleFanIn)
			}
			if n.Duration == 0 {
				continue
			}
			if n.Duration < ScaleMinSeconds*time.Second || n.Duration > ScaleMaxSeconds*time.Second || slowTiers[n.Tier] {
				t.Fatalf("seed %d: slow node %s (%s) outside %d–%d s or a second one in tier %d", seed, n.Name, n.Duration, ScaleMinSeconds, ScaleMaxSeconds, n.Tier)
			}
			slowTiers[n.Tier] = true
		}
		if len(slowTiers) != ScaleSlow {
			t.Fatalf("seed %d: %d slow nodes, want %d", seed, len(slowTiers), ScaleSlow)
		}
		if !ScaleShaped(g) {
			t.Fatalf("seed %d: no candidate had the shape", seed)
		}
		d := NominalDurations(g, HealthCheckPoll, ScaleNominalReconcile)
		cp, path := g.CriticalPath(d)
		checkPath(t, g, d, path, cp)
		if !reflect.DeepEqual(Generate(g.Spec), g) {
			t.Fatalf("seed %d: Generate(g.Spec) is not g", seed)
		}
	}
}

// TestScaleShapedRejects shows each condition of ScaleShaped failing alone.
func TestScaleShapedRejects(t *testing.T) {
	chain := Generate(Spec{Depth: 6, Width: 1, FanIn: 1, Slow: 6, MinSeconds: 10, MaxSeconds: 10})
	if ScaleShaped(chain) {
		t.Fatal("a chain of slow nodes is bound by its path, not the pool, and a tier walk costs it nothing more")
	}
	wide := Generate(Spec{Depth: 2, Width: 40, FanIn: 1, Slow: 1, MinSeconds: 5, MaxSeconds: 5})
	if ScaleShaped(wide) {
		t.Fatal("one slow node cannot put two slow nodes on the critical path")
	}
}
