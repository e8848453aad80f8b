package benchgraph

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/kubestandup/standup/internal/testenv"
)

func TestUniform(t *testing.T) {
	g := Uniform()
	tiersOf := g.Tiers()
	if len(g.Nodes) != 10 || len(tiersOf) != 5 {
		t.Fatalf("%d nodes in %d tiers, want 5 x 2", len(g.Nodes), len(tiersOf))
	}
	for _, n := range g.Nodes {
		if n.Duration != 0 {
			t.Fatalf("%s has duration %s, want none", n.Name, n.Duration)
		}
		if n.Tier > 0 && !slices.Equal(n.DependsOn, tiersOf[n.Tier-1]) {
			t.Fatalf("%s depends on %v, want both nodes of the tier above %v", n.Name, n.DependsOn, tiersOf[n.Tier-1])
		}
	}
}

// TestWriteTree builds every written directory with kustomize, as
// kustomize-controller would, and checks the object it yields.
func TestWriteTree(t *testing.T) {
	g := Generate(Spec{Depth: 3, Width: 2, FanIn: 1, Seed: 5, MinSeconds: 0, MaxSeconds: 2, Namespace: "bench"})
	dir := t.TempDir()
	if err := g.WriteTree(dir); err != nil {
		t.Fatal(err)
	}
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	kinds := map[string]int{}
	for _, n := range g.Nodes {
		res, err := k.Run(filesys.MakeFsOnDisk(), filepath.Join(dir, "ks", n.Name))
		if err != nil {
			t.Fatalf("kustomize build of %s: %v", n.Name, err)
		}
		objs := res.Resources()
		if len(objs) != 1 {
			t.Fatalf("%s: %d objects, want 1", n.Name, len(objs))
		}
		obj := objs[0]
		if obj.GetName() != n.Name || obj.GetNamespace() != "bench" {
			t.Fatalf("%s: object %s/%s", n.Name, obj.GetNamespace(), obj.GetName())
		}
		kinds[obj.GetKind()]++
		switch want := n.Duration > 0; {
		case want && (obj.GetKind() != DelayKind || obj.GetApiVersion() != DelayGroup+"/"+DelayVersion):
			t.Fatalf("%s has a duration but applies %s %s", n.Name, obj.GetApiVersion(), obj.GetKind())
		case want:
			m, err := obj.Map()
			if err != nil {
				t.Fatal(err)
			}
			secs := m["spec"].(map[string]any)["seconds"]
			if secs != int(n.Duration/time.Second) {
				t.Fatalf("%s: spec.seconds = %v (%T), want %d", n.Name, secs, secs, int(n.Duration/time.Second))
			}
		case obj.GetKind() != "ConfigMap":
			t.Fatalf("%s has no duration but applies %s", n.Name, obj.GetKind())
		}
	}
	if kinds[DelayKind] == 0 || kinds["ConfigMap"] == 0 {
		t.Fatalf("kinds %v: want both Delays and ConfigMaps for this seed", kinds)
	}
}

func TestWriteTreeIsByteIdentical(t *testing.T) {
	for _, g := range []Graph{Uniform(), Uneven(3)} {
		var tars [][]byte
		for range 2 {
			dir := t.TempDir()
			// Regenerate, so the check covers Generate and WriteTree together.
			if err := Generate(g.Spec).WriteTree(dir); err != nil {
				t.Fatal(err)
			}
			tar, err := testenv.Tarball(dir)
			if err != nil {
				t.Fatal(err)
			}
			tars = append(tars, tar)
		}
		if len(tars[0]) == 0 || !bytes.Equal(tars[0], tars[1]) {
			t.Fatalf("%s: two writes of the same spec differ", g.Spec.Prefix)
		}
	}
}

func TestWriteTreeReportsErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Uniform().WriteTree(file); err == nil {
		t.Fatal("writing under a file must fail")
	}
}

func TestKustomizations(t *testing.T) {
	g := Uniform()
	for _, suspend := range []bool{false, true} {
		kss := g.Kustomizations("bench-src", suspend)
		if len(kss) != len(g.Nodes) {
			t.Fatalf("%d specs for %d nodes", len(kss), len(g.Nodes))
		}
		for i, k := range kss {
			n := g.Nodes[i]
			want := testenv.KS{Namespace: DefaultNamespace, Name: n.Name, Path: "./ks/" + n.Name, Source: "bench-src", Wait: true, Suspend: suspend}
			for _, d := range n.DependsOn {
				want.DependsOn = append(want.DependsOn, testenv.Dep("", d))
			}
			if !reflect.DeepEqual(k, want) {
				t.Fatalf("spec %+v, want %+v", k, want)
			}
			obj := k.Kustomization()
			if !obj.Spec.Wait || obj.Spec.Suspend != suspend || len(obj.Spec.DependsOn) != len(n.DependsOn) {
				t.Fatalf("%s: typed object wait=%v suspend=%v deps=%d", n.Name, obj.Spec.Wait, obj.Spec.Suspend, len(obj.Spec.DependsOn))
			}
		}
	}
}
