package render

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

var update = flag.Bool("update", false, "rewrite golden files")

// ksID returns the ID of a Kustomization.
func ksID(namespace, name string) tiers.ID {
	return tiers.ID{Kind: KindKustomization, Namespace: namespace, Name: name}
}

// hrID returns the ID of a HelmRelease.
func hrID(namespace, name string) tiers.ID {
	return tiers.ID{Kind: KindHelmRelease, Namespace: namespace, Name: name}
}

// objectByID finds an object of a result, failing the test when absent.
func objectByID(t *testing.T, res *Result, id tiers.ID) flux.Object {
	t.Helper()
	for _, o := range res.Objects {
		if o.ID == id {
			return o
		}
	}
	t.Fatalf("object %s not found among %v", id, ids(res.Objects))
	return flux.Object{}
}

// ids lists the IDs of objects, in order.
func ids(objs []flux.Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.ID.String())
	}
	return out
}

// edges lists every dependsOn edge as "from -> to", sorted.
func edges(objs []flux.Object) []string {
	var out []string
	for _, o := range objs {
		for _, d := range o.DependsOn {
			out = append(out, o.ID.String()+" -> "+d.ID.String())
		}
	}
	sort.Strings(out)
	return out
}

// rendered lists a Kustomization's rendered objects as "Kind/ns/name file".
func rendered(res *Result, id tiers.ID) []string {
	var out []string
	for _, m := range res.Rendered[id] {
		out = append(out, describe(m.Object)+" "+m.File)
	}
	return out
}

// hasWarning reports whether some warning contains every part.
func hasWarning(res *Result, parts ...string) bool {
	for _, w := range res.Warnings {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(w, p)
		}
		if all {
			return true
		}
	}
	return false
}

// summarize renders a result as stable text for golden files: the objects
// with their edges, every rendered object in full, and the warnings.
func summarize(t *testing.T, res *Result) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "path: %s\nobjects:\n", res.Path)
	for _, o := range res.Objects {
		applied := "-"
		if o.AppliedBy != nil {
			applied = o.AppliedBy.String()
		}
		fmt.Fprintf(&b, "- %s\n  file: %s\n  appliedBy: %s\n  source: %s\n", o.ID, o.File, applied, o.SourceRef)
		for _, d := range o.DependsOn {
			fmt.Fprintf(&b, "  dependsOn: %s\n", d.ID)
		}
	}
	var keys []tiers.ID
	for id := range res.Rendered {
		keys = append(keys, id)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Less(keys[j]) })
	for _, id := range keys {
		fmt.Fprintf(&b, "rendered by %s:\n", id)
		for _, m := range res.Rendered[id] {
			data, err := sigsyaml.Marshal(m.Object.Object)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "# %s from %s\n%s---\n", describe(m.Object), m.File, data)
		}
	}
	b.WriteString("warnings:\n")
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "- %s\n", w)
	}
	return b.String()
}

// golden compares got with testdata/golden/name.golden, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (run with -update to accept):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff shows the first differing line of two texts.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  want: %q\n  got:  %q", i+1, wl, gl)
		}
	}
	return "(no line differs)"
}

// describe renders an object as Kind/namespace/name (Kind/name when
// cluster-scoped).
func describe(u *unstructured.Unstructured) string {
	if ns := u.GetNamespace(); ns != "" {
		return u.GetKind() + "/" + ns + "/" + u.GetName()
	}
	return u.GetKind() + "/" + u.GetName()
}
