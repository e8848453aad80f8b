package tiers

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// TestBreakCycles: the graph without the cycles' edges, each node at the
// tier its other edges give it, and the cycles left out; a graph without
// cycles is Build's; a missing dependency is still Build's error.
func TestBreakCycles(t *testing.T) {
	tests := []struct {
		name       string
		nodes      []Node
		opts       Options
		wantTiers  [][]string
		wantCycles []string
		wantErr    bool
	}{
		{
			name:      "no cycle",
			nodes:     []Node{ks("ns/a"), ks("ns/b", "a")},
			wantTiers: [][]string{{"ns/a"}, {"ns/b"}},
		},
		{
			name:       "a cycle with a dependent and a dependency",
			nodes:      []Node{ks("ns/base"), ks("ns/a", "b", "base"), ks("ns/b", "a"), ks("ns/top", "a")},
			wantTiers:  [][]string{{"ns/b", "ns/base"}, {"ns/a"}, {"ns/top"}},
			wantCycles: []string{"ns/a -> ns/b -> ns/a"},
		},
		{
			name:       "a self-dependency and two cycles sharing a node",
			nodes:      []Node{ks("ns/s", "s"), ks("ns/a", "b", "c"), ks("ns/b", "a"), ks("ns/c", "a")},
			wantTiers:  [][]string{{"ns/a", "ns/b", "ns/c", "ns/s"}},
			wantCycles: []string{"ns/a -> ns/b -> ns/a", "ns/a -> ns/c -> ns/a", "ns/s -> ns/s"},
		},
		{
			name:    "a missing dependency besides the cycle",
			nodes:   []Node{ks("ns/a", "b"), ks("ns/b", "a", "ghost")},
			wantErr: true,
		},
		{
			name:       "a missing dependency allowed",
			nodes:      []Node{ks("ns/a", "b"), ks("ns/b", "a", "ghost")},
			opts:       Options{AllowMissing: true},
			wantTiers:  [][]string{{"ns/a", "ns/b"}},
			wantCycles: []string{"ns/a -> ns/b -> ns/a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fmt.Sprint(tt.nodes)
			g, cycles, err := BreakCycles(tt.nodes, tt.opts)
			if fmt.Sprint(tt.nodes) != before {
				t.Errorf("BreakCycles changed its input")
			}
			if tt.wantErr {
				var missing *MissingError
				if !errors.As(err, &missing) || g != nil {
					t.Fatalf("BreakCycles() = %v, %v; want a nil graph and a *MissingError", g, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := tierStrings(g); !reflect.DeepEqual(got, tt.wantTiers) {
				t.Errorf("tiers = %v, want %v", got, tt.wantTiers)
			}
			var got []string
			for _, c := range cycles {
				got = append(got, c.String())
			}
			if !reflect.DeepEqual(got, tt.wantCycles) {
				t.Errorf("cycles = %q, want %q", got, tt.wantCycles)
			}
		})
	}
}

// TestBreakCyclesPastTheReportedBound: a graph with more cycles than a
// CycleError lists still comes out acyclic, every cycle broken.
func TestBreakCyclesPastTheReportedBound(t *testing.T) {
	// A complete graph on 7 nodes holds far more than MaxReportedCycles
	// elementary cycles.
	var nodes []Node
	names := []string{"a", "b", "c", "d", "e", "f", "g"}
	for _, n := range names {
		var deps []string
		for _, d := range names {
			if d != n {
				deps = append(deps, d)
			}
		}
		nodes = append(nodes, ks("ns/"+n, deps...))
	}
	g, cycles, err := BreakCycles(nodes, Options{})
	if err != nil || g == nil {
		t.Fatalf("BreakCycles() error = %v", err)
	}
	if len(cycles) <= MaxReportedCycles {
		t.Errorf("%d cycles broken, want more than one CycleError lists", len(cycles))
	}
	if g.Len() != len(names) {
		t.Errorf("graph has %d nodes, want %d", g.Len(), len(names))
	}
}
