package tiers

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func chainNodes(n int, closed bool) []Node {
	nodes := make([]Node, n)
	for i := range n {
		nodes[i] = ks(fmt.Sprintf("ns/n%05d", i))
		if i > 0 {
			nodes[i].DependsOn = []Dependency{{ID: nodes[i-1].ID}}
		}
	}
	if closed {
		nodes[0].DependsOn = []Dependency{{ID: nodes[n-1].ID}}
	}
	return nodes
}

func TestLongChain(t *testing.T) {
	const n = 10_000
	g, err := Build(chainNodes(n, false), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tiers := g.Tiers()
	if len(tiers) != n {
		t.Fatalf("len(Tiers()) = %d, want %d", len(tiers), n)
	}
	for i, tier := range tiers {
		if len(tier) != 1 || tier[0].Name != fmt.Sprintf("n%05d", i) {
			t.Fatalf("tier %d = %v", i, tier)
		}
	}
	if got := len(g.Ancestors(tiers[n-1][0])); got != n-1 {
		t.Errorf("len(Ancestors(last)) = %d, want %d", got, n-1)
	}
	if got := len(g.Descendants(tiers[0][0])); got != n-1 {
		t.Errorf("len(Descendants(first)) = %d, want %d", got, n-1)
	}
}

func TestLongRing(t *testing.T) {
	const n = 10_000
	_, err := Build(chainNodes(n, true), Options{})
	var ce *CycleError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a *CycleError", err)
	}
	if len(ce.Cycles) != 1 || len(ce.Cycles[0]) != n+1 {
		t.Fatalf("got %d cycles, first of length %d; want one of length %d", len(ce.Cycles), len(ce.Cycles[0]), n+1)
	}
	// n00000 depends on n09999, which depends on n09998, and so on.
	if c := ce.Cycles[0]; c[0].Name != "n00000" || c[1].Name != "n09999" || c[n].Name != "n00000" {
		t.Errorf("cycle starts %v -> %v, ends %v", c[0], c[1], c[n])
	}
}

func TestCycleTruncation(t *testing.T) {
	// A complete digraph on 8 nodes has thousands of elementary cycles; a
	// separate two-node cycle must still be reported after truncation.
	var nodes []Node
	for i := range 8 {
		n := ks(fmt.Sprintf("a/k%d", i))
		for j := range 8 {
			if j != i {
				n.DependsOn = append(n.DependsOn, Dependency{ID: parseRef(fmt.Sprintf("a/k%d", j), kindKS, "")})
			}
		}
		nodes = append(nodes, n)
	}
	nodes = append(nodes, ks("z/x", "y"), ks("z/y", "x"))
	_, err := Build(nodes, Options{})
	var ce *CycleError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a *CycleError", err)
	}
	if !ce.Truncated || len(ce.Cycles) != MaxReportedCycles+1 {
		t.Fatalf("Truncated = %v with %d cycles, want true with %d", ce.Truncated, len(ce.Cycles), MaxReportedCycles+1)
	}
	if last := ce.Cycles[len(ce.Cycles)-1].String(); last != "z/x -> z/y -> z/x" {
		t.Errorf("last cycle = %q, want z/x -> z/y -> z/x", last)
	}
	if !strings.HasSuffix(err.Error(), "more cycles exist and are not listed") {
		t.Errorf("Error() = %q does not say the list is truncated", err)
	}
}

// TestCyclesMatchBruteForce checks Johnson's enumeration against a plain
// search over simple paths on small random graphs.
func TestCyclesMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for round := range 200 {
		n := 1 + rng.IntN(7)
		var nodes []Node
		for i := range n {
			node := ks(fmt.Sprintf("ns/v%d", i))
			for j := range n {
				if rng.IntN(4) == 0 {
					node.DependsOn = append(node.DependsOn, Dependency{ID: parseRef(fmt.Sprintf("ns/v%d", j), kindKS, "")})
				}
			}
			nodes = append(nodes, node)
		}
		want := bruteForceCycles(nodes)
		_, err := Build(nodes, Options{})
		var got []string
		var ce *CycleError
		if errors.As(err, &ce) {
			for _, c := range ce.Cycles {
				got = append(got, c.String())
			}
		} else if err != nil {
			t.Fatalf("round %d: unexpected error %v", round, err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: cycles = %q, want %q", round, got, want)
		}
	}
}

// bruteForceCycles lists each elementary cycle once, starting at its least
// node, sorted the way CycleError sorts them.
func bruteForceCycles(nodes []Node) []string {
	byName := map[string]Node{}
	for _, n := range nodes {
		byName[n.ID.Name] = n
	}
	var out [][]string
	var walk func(start string, path []string)
	walk = func(start string, path []string) {
		for _, d := range byName[path[len(path)-1]].DependsOn {
			switch {
			case d.ID.Name == start:
				out = append(out, append(slices.Clone(path), start))
			case d.ID.Name > start && !slices.Contains(path, d.ID.Name):
				walk(start, append(path, d.ID.Name))
			}
		}
	}
	for _, n := range nodes {
		walk(n.ID.Name, []string{n.ID.Name})
	}
	slices.SortFunc(out, slices.Compare)
	out = slices.CompactFunc(out, slices.Equal)
	var s []string
	for _, c := range out {
		s = append(s, "ns/"+strings.Join(c, " -> ns/"))
	}
	return s
}
