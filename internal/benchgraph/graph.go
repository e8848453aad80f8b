package benchgraph

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// DefaultNamespace is the namespace used when Spec.Namespace is empty.
const DefaultNamespace = "flux-system"

// DefaultPrefix starts every node name when Spec.Prefix is empty.
const DefaultPrefix = "bench"

// Spec describes a layered graph: Depth tiers of Width Kustomizations each.
type Spec struct {
	// Depth is the number of tiers; Width the number of nodes in each.
	Depth, Width int
	// FanIn is how many nodes of the tier above each node depends on,
	// clamped to [1, Width]; Width means "all of them".
	FanIn int
	// SkipEdges is how many extra dependsOn edges reach from a node to a
	// node two or more tiers above it. They never change a node's tier.
	SkipEdges int
	// Seed drives every random choice: the FanIn parents when FanIn <
	// Width, the skip edges and the durations.
	Seed int64
	// MinSeconds and MaxSeconds bound each node's duration, drawn uniformly
	// in whole seconds. MaxSeconds = 0 gives every node no duration.
	MinSeconds, MaxSeconds int
	// Slow, when positive, gives a duration to that many nodes only, each
	// in a tier of its own (the tiers and the node in each drawn from
	// Seed); every other node gets none. It is at most Depth.
	Slow int
	// Namespace holds the Kustomizations and the objects they apply;
	// empty means DefaultNamespace.
	Namespace string
	// Prefix starts every node name; empty means DefaultPrefix.
	Prefix string
}

// Node is one Kustomization of a generated graph.
type Node struct {
	Name string `json:"name"`
	Tier int    `json:"tier"`
	// DependsOn names nodes of the same namespace, sorted.
	DependsOn []string `json:"dependsOn,omitempty"`
	// Duration is how long its Delay holds it un-Ready (zero: a ConfigMap).
	Duration time.Duration `json:"duration"`
}

// Graph is a generated graph: its nodes in tier order, each tier sorted by name.
type Graph struct {
	// Spec is the input that generates exactly this graph.
	Spec      Spec   `json:"spec"`
	Namespace string `json:"namespace"`
	Nodes     []Node `json:"nodes"`
}

// Generate builds the graph spec describes. It is deterministic: the same
// spec always yields the same graph.
func Generate(spec Spec) Graph {
	spec.Depth, spec.Width = max(spec.Depth, 0), max(spec.Width, 0)
	spec.FanIn = min(max(spec.FanIn, 1), max(spec.Width, 1))
	g := Graph{Spec: spec, Namespace: orDefault(spec.Namespace, DefaultNamespace)}
	rng := rand.New(rand.NewPCG(uint64(spec.Seed), 0x5eed))
	name := nameFunc(spec)
	for t := range spec.Depth {
		for i := range spec.Width {
			n := Node{Name: name(t, i), Tier: t}
			if t > 0 {
				for _, p := range parents(rng, spec.Width, spec.FanIn) {
					n.DependsOn = append(n.DependsOn, name(t-1, p))
				}
			}
			g.Nodes = append(g.Nodes, n)
		}
	}
	g.addSkipEdges(rng, spec.SkipEdges)
	slow := g.slowNodes(rng, spec.Slow)
	for i := range g.Nodes {
		if spec.MaxSeconds > 0 && (slow == nil || slow[i]) {
			lo := min(max(spec.MinSeconds, 0), spec.MaxSeconds)
			g.Nodes[i].Duration = time.Duration(lo+rng.IntN(spec.MaxSeconds-lo+1)) * time.Second
		}
		slices.Sort(g.Nodes[i].DependsOn)
	}
	return g
}

// slowNodes picks n nodes (by index), one in each of n distinct tiers, or
// returns nil when n is not positive: every node then gets a duration.
func (g *Graph) slowNodes(rng *rand.Rand, n int) map[int]bool {
	depth, w := g.Spec.Depth, g.Spec.Width
	if n <= 0 || w == 0 {
		return nil
	}
	out := map[int]bool{}
	for _, tier := range rng.Perm(depth)[:min(n, depth)] {
		out[tier*w+rng.IntN(w)] = true
	}
	return out
}

// parents picks fanIn distinct indexes of a tier of width nodes, sorted.
func parents(rng *rand.Rand, width, fanIn int) []int {
	if fanIn >= width {
		out := make([]int, width)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := rng.Perm(width)[:fanIn]
	slices.Sort(out)
	return out
}

// addSkipEdges adds n edges from a random node of tier t >= 2 to a random
// node of a tier below t-1, skipping duplicates (with a bounded number of
// attempts, so a small graph cannot loop forever).
func (g *Graph) addSkipEdges(rng *rand.Rand, n int) {
	w := g.Spec.Width
	if g.Spec.Depth < 3 || w == 0 {
		return
	}
	first := 2 * w // index of the first node of tier 2
	for added, tries := 0, 0; added < n && tries < 100*n; tries++ {
		from := &g.Nodes[first+rng.IntN(len(g.Nodes)-first)]
		to := g.Nodes[rng.IntN((from.Tier-1)*w)].Name
		if slices.Contains(from.DependsOn, to) {
			continue
		}
		from.DependsOn = append(from.DependsOn, to)
		added++
	}
}

func nameFunc(spec Spec) func(tier, index int) string {
	prefix := orDefault(spec.Prefix, DefaultPrefix)
	td, wd := digits(spec.Depth-1), digits(spec.Width-1)
	return func(tier, index int) string {
		return fmt.Sprintf("%s-t%0*d-%0*d", prefix, td, tier, wd, index)
	}
}

// digits is the number of decimal digits of n, at least 2.
func digits(n int) int {
	d := 2
	for n >= 100 {
		n /= 10
		d++
	}
	return d
}

// Tiers returns the node names grouped by tier.
func (g Graph) Tiers() [][]string {
	var out [][]string
	for _, n := range g.Nodes {
		for len(out) <= n.Tier {
			out = append(out, nil)
		}
		out[n.Tier] = append(out[n.Tier], n.Name)
	}
	return out
}

// Durations returns each node's duration as kustomize-controller will hold
// it: rounded up to a multiple of poll (its health-check interval), or as
// generated when poll is zero. Nodes without a duration map to zero.
func (g Graph) Durations(poll time.Duration) map[string]time.Duration {
	out := make(map[string]time.Duration, len(g.Nodes))
	for _, n := range g.Nodes {
		d := n.Duration
		if poll > 0 && d%poll != 0 {
			d += poll - d%poll
		}
		out[n.Name] = d
	}
	return out
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
