package tiers

import (
	"errors"
	"fmt"
	"testing"
)

// fuzzNodes decodes bytes into a graph over a small name space, so that the
// fuzzer reaches duplicates, self-loops, cycles, missing dependencies and
// cross-namespace and cross-kind edges often. Each node takes a header byte
// (its ID and how many dependencies follow) and one byte per dependency.
func fuzzNodes(data []byte) []Node {
	id := func(b byte) ID {
		kind := "Kustomization"
		if b&0x40 != 0 {
			kind = "HelmRelease"
		}
		return ID{Kind: kind, Namespace: fmt.Sprintf("ns%d", (b>>4)&0x3), Name: fmt.Sprintf("n%d", b&0xf)}
	}
	var nodes []Node
	for len(data) > 0 {
		head := data[0]
		data = data[1:]
		n := Node{ID: id(head)}
		deps := int(head>>7)*2 + int(head&0x3)
		for ; deps > 0 && len(data) > 0; deps-- {
			d := Dependency{ID: id(data[0])}
			if data[0]&0x80 != 0 {
				d.ReadyExpr = "dep.status.ready"
			}
			n.DependsOn = append(n.DependsOn, d)
			data = data[1:]
		}
		nodes = append(nodes, n)
	}
	return nodes
}

// FuzzBuild checks Build's invariants on any graph: a built graph places
// every node once, each below its dependents; a cycle reported is a real
// closed path; a missing dependency reported really is absent; a duplicate
// reported really is one. It never panics.
func FuzzBuild(f *testing.F) {
	for _, seed := range [][]byte{
		{},
		{0x00},
		{0x01, 0x00},             // self-loop
		{0x01, 0x02, 0x01, 0x00}, // n0 -> n2 ... n1 -> n0
		{0x00, 0x00},             // duplicate
		{0x01, 0x35},             // missing, other namespace
		{0x81, 0x01, 0x02, 0x03, 0x01, 0x00, 0x02, 0x01, 0x00}, // diamond-ish
		{0xc3, 0x41, 0x42, 0x43, 0x44, 0x41, 0x03, 0x42, 0x43},
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, data []byte, allowMissing bool) {
		if len(data) > 1024 {
			return
		}
		nodes := fuzzNodes(data)
		present := map[ID]int{}
		for _, n := range nodes {
			present[n.ID]++
		}
		g, err := Build(nodes, Options{AllowMissing: allowMissing})
		if err != nil {
			checkBuildError(t, err, nodes, present)
			return
		}
		seen := map[ID]bool{}
		for _, tier := range g.Tiers() {
			for _, id := range tier {
				if seen[id] {
					t.Fatalf("%s placed twice", id)
				}
				seen[id] = true
			}
		}
		if len(seen) != len(present) {
			t.Fatalf("placed %d nodes, want %d", len(seen), len(present))
		}
		for _, n := range nodes {
			tn, _ := g.TierOf(n.ID)
			for _, d := range n.DependsOn {
				td, ok := g.TierOf(d.ID)
				if !ok {
					if present[d.ID] > 0 || !allowMissing {
						t.Fatalf("%s depends on %s, which is neither placed nor reported missing", n.ID, d.ID)
					}
					continue
				}
				if td >= tn {
					t.Fatalf("%s (tier %d) depends on %s (tier %d)", n.ID, tn, d.ID, td)
				}
			}
		}
	})
}

func checkBuildError(t *testing.T, err error, nodes []Node, present map[ID]int) {
	t.Helper()
	edges := map[[2]ID]bool{}
	for _, n := range nodes {
		for _, d := range n.DependsOn {
			edges[[2]ID{n.ID, d.ID}] = true
		}
	}
	var dup *DuplicateError
	var cycle *CycleError
	var missing *MissingError
	matched := false
	if errors.As(err, &dup) {
		matched = true
		for _, id := range dup.IDs {
			if present[id] < 2 {
				t.Fatalf("%s reported duplicate, appears %d times", id, present[id])
			}
		}
	}
	if errors.As(err, &cycle) {
		matched = true
		if len(cycle.Cycles) == 0 {
			t.Fatal("a cycle error with no cycle")
		}
		for _, c := range cycle.Cycles {
			if len(c) < 2 || c[0] != c[len(c)-1] {
				t.Fatalf("cycle %s is not closed", c)
			}
			for i := 0; i+1 < len(c); i++ {
				if !edges[[2]ID{c[i], c[i+1]}] {
					t.Fatalf("cycle %s: %s does not depend on %s", c, c[i], c[i+1])
				}
			}
		}
	}
	if errors.As(err, &missing) {
		matched = true
		for _, m := range missing.Missing {
			if present[m.Missing] > 0 {
				t.Fatalf("%s reported missing, but it is a node", m.Missing)
			}
			if !edges[[2]ID{m.Dependent, m.Missing}] {
				t.Fatalf("%s reported as depending on %s, which it does not", m.Dependent, m.Missing)
			}
		}
	}
	if !matched {
		t.Fatalf("Build failed with an error of no known type: %v", err)
	}
}
