package tiers

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// syntheticNodes builds a layered graph of n nodes over 10 namespaces: each
// node beyond the first layer depends on 1 to 4 random nodes of earlier
// layers, some in other namespaces. The seed is fixed, so runs compare.
func syntheticNodes(n, layers int) []Node {
	rng := rand.New(rand.NewPCG(42, 1))
	perLayer := n / layers
	nodes := make([]Node, 0, n)
	for i := range n {
		layer := min(i/perLayer, layers-1)
		id := ID{Kind: kindKS, Namespace: fmt.Sprintf("ns-%02d", rng.IntN(10)), Name: fmt.Sprintf("ks-%05d", i)}
		node := Node{ID: id}
		if layer > 0 {
			for range 1 + rng.IntN(4) {
				dep := nodes[rng.IntN(layer*perLayer)].ID
				node.DependsOn = append(node.DependsOn, Dependency{ID: dep})
			}
		}
		nodes = append(nodes, node)
	}
	// Shuffle so Build cannot rely on input order.
	rng.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
	return nodes
}

func BenchmarkTiers(b *testing.B) {
	nodes := syntheticNodes(10_000, 50)
	b.ReportAllocs()
	for b.Loop() {
		g, err := Build(nodes, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(g.Tiers()) == 0 {
			b.Fatal("no tiers")
		}
	}
}

func TestSyntheticGraphIsValid(t *testing.T) {
	g, err := Build(syntheticNodes(10_000, 50), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() != 10_000 || len(g.Tiers()) < 2 {
		t.Fatalf("Len() = %d, %d tiers", g.Len(), len(g.Tiers()))
	}
	checkTierInvariant(t, g)
}
