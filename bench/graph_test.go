package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubestandup/standup/internal/benchgraph"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const deadlockRepo = "../examples/homelab-deadlock"

func ks(ns, name string) tiers.ID {
	return tiers.ID{Kind: flux.KindKustomization, Namespace: ns, Name: name}
}

func obj(id tiers.ID, appliedBy *tiers.ID, deps ...tiers.ID) flux.Object {
	o := flux.Object{Node: tiers.Node{ID: id}, AppliedBy: appliedBy}
	for _, d := range deps {
		o.DependsOn = append(o.DependsOn, tiers.Dependency{ID: d})
	}
	return o
}

func render1(g interface{ Tiers() [][]string }) string { return fmt.Sprint(g.Tiers()) }

func TestGraphOf(t *testing.T) {
	root, a, b, c := ks("ns", "root"), ks("ns", "a"), ks("other", "b"), ks("ns", "c")
	helm := tiers.ID{Kind: "HelmRelease", Namespace: "ns", Name: "h"}
	tests := []struct {
		name    string
		objs    []flux.Object
		tiers   string
		deps    map[string][]string
		wantErr string
	}{
		{
			name: "the applier becomes an edge; a self-applying root does not",
			objs: []flux.Object{obj(root, &root), obj(a, &root), obj(b, &root, a), obj(c, nil, b)},
			// c is applied by nobody here, but depends on b across namespaces.
			tiers: "[[ns/root] [ns/a] [other/b] [ns/c]]",
			deps:  map[string][]string{"ns/root": nil, "ns/a": {"ns/root"}, "other/b": {"ns/a", "ns/root"}, "ns/c": {"other/b"}},
		},
		{
			name:  "an applier already in dependsOn is not doubled; outside dependencies and other kinds drop",
			objs:  []flux.Object{obj(root, nil), obj(a, &root, root, ks("ns", "gone")), obj(helm, &root, a)},
			tiers: "[[ns/root] [ns/a]]",
			deps:  map[string][]string{"ns/root": nil, "ns/a": {"ns/root"}},
		},
		{name: "a cycle is an error", objs: []flux.Object{obj(a, nil, c), obj(c, nil, a)}, wantErr: "ns/a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := GraphOf(tt.objs)
			if !wantErr(t, err, tt.wantErr) {
				return
			}
			if got := render1(g); got != tt.tiers {
				t.Fatalf("tiers = %s, want %s", got, tt.tiers)
			}
			for _, n := range g.Nodes {
				if !slices.Equal(n.DependsOn, tt.deps[n.Name]) {
					t.Errorf("%s dependsOn %v, want %v", n.Name, n.DependsOn, tt.deps[n.Name])
				}
			}
		})
	}
}

// deadlockGraph renders the deadlock repository and returns its graph.
func deadlockGraph(t *testing.T) (*render.Result, benchgraph.Graph) {
	t.Helper()
	res, err := render.Load(context.Background(), render.Options{Path: deadlockRepo + "/clusters/prod"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := GraphOf(res.Objects)
	if err != nil {
		t.Fatal(err)
	}
	return res, g
}

// TestGraphOfDeadlockRepo pins the deadlock scenario's graph: the seed's
// seven Kustomizations under the root, with the CDI chain as critical path
// when every node weighs the same.
func TestGraphOfDeadlockRepo(t *testing.T) {
	_, g := deadlockGraph(t)
	if len(g.Nodes) != 7 {
		t.Fatalf("%d nodes, want 7: %s", len(g.Nodes), render1(g))
	}
	d := map[string]time.Duration{}
	for _, n := range g.Nodes {
		d[n.Name] = time.Second
	}
	cp, path := g.CriticalPath(d)
	want := []string{"flux-system/flux-system", "flux-system/platform", "flux-system/platform-operators", "flux-system/platform-config", "flux-system/apps-vms"}
	if cp != 5*time.Second || !slices.Equal(path, want) {
		t.Fatalf("critical path %s %v, want 5s %v", cp, path, want)
	}
}

// TestRuntimeOriginOnDeadlockRepo: in the seed, platform-config applies the
// CDI CR (and the StorageProfile, the deadlock itself) and apps-vms a
// DataVolume, whose CRD only the operator creates once the CDI CR exists:
// the operator's latency lies between the two on the critical path.
func TestRuntimeOriginOnDeadlockRepo(t *testing.T) {
	res, g := deadlockGraph(t)
	cdi := func(kind string) schema.GroupKind { return schema.GroupKind{Group: "cdi.kubevirt.io", Kind: kind} }
	o, err := RuntimeOriginOf(res, "cdi-operator", cdi("CDI"), []schema.GroupKind{cdi("StorageProfile"), cdi("DataVolume")})
	if err != nil {
		t.Fatal(err)
	}
	if o.Trigger != "flux-system/platform-config" || !slices.Equal(o.Waiting, []string{"flux-system/apps-vms"}) {
		t.Fatalf("origin %+v, want trigger flux-system/platform-config, waiting [flux-system/apps-vms]", o)
	}
	with, err := o.On(g)
	if err != nil {
		t.Fatal(err)
	}
	d := map[string]time.Duration{"cdi-operator": 2 * time.Second}
	for _, n := range g.Nodes {
		d[n.Name] = time.Second
	}
	cp, path := with.CriticalPath(d)
	want := []string{"flux-system/flux-system", "flux-system/platform", "flux-system/platform-operators", "flux-system/platform-config", "cdi-operator", "flux-system/apps-vms"}
	if cp != 7*time.Second || !slices.Equal(path, want) {
		t.Fatalf("critical path %s %v, want 7s %v", cp, path, want)
	}
	if len(g.Nodes) != 7 {
		t.Fatalf("On changed the graph it was given: %d nodes", len(g.Nodes))
	}
	if _, err := RuntimeOriginOf(res, "x", cdi("Nothing"), nil); err == nil || !strings.Contains(err.Error(), "no Kustomization applies") {
		t.Fatalf("an absent trigger: err %v", err)
	}
	for _, bad := range []RuntimeOrigin{
		{Name: "x", Trigger: "flux-system/gone"},
		{Name: "x", Trigger: "flux-system/platform-config", Waiting: []string{"flux-system/platform"}},
		{Name: "x", Trigger: "flux-system/platform-config", Waiting: []string{"flux-system/gone"}},
	} {
		if _, err := bad.On(g); err == nil {
			t.Errorf("%+v.On: no error", bad)
		}
	}
}
