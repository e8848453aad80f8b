package benchgraph_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kubestandup/standup/internal/benchgraph"
	"github.com/kubestandup/standup/pkg/render"
)

// The scale scenario's checkout, rendered offline as `standup resume
// --path` reads it, names exactly the nodes that apply a Delay as slow.
func TestCheckoutNamesTheSlowNodes(t *testing.T) {
	g := benchgraph.Scale(1)
	g.Namespace = "scale-0-standup"
	dir := t.TempDir()
	if err := g.WriteTree(dir); err != nil {
		t.Fatal(err)
	}
	if err := g.WriteCheckout(dir, "bench"); err != nil {
		t.Fatal(err)
	}
	res, err := render.Load(context.Background(), render.Options{Path: filepath.Join(dir, g.CheckoutPath()), RepoRoot: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Objects) != len(g.Nodes) || len(res.Failed) != 0 {
		t.Fatalf("rendered %d Kustomizations (%d failed), want %d", len(res.Objects), len(res.Failed), len(g.Nodes))
	}
	var got, want []string
	for id := range render.SlowReconciles(res) {
		got = append(got, id.Name)
	}
	for _, n := range g.Nodes {
		if n.Duration > 0 {
			want = append(want, n.Name)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) || len(want) != benchgraph.ScaleSlow {
		t.Fatalf("slow = %v, want the %d Delay nodes %v", got, benchgraph.ScaleSlow, want)
	}
}
