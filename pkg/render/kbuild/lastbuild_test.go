package kbuild

import (
	"path/filepath"
	"testing"

	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
)

// The build of the path, repeated at once by the flux-system Kustomization
// that builds it, is reused, and each caller gets objects of its own
// (postBuild substitution replaces them); a spec that changes the
// kustomization file is built anew.
func TestLastBuildIsReusedAsACopy(t *testing.T) {
	root := t.TempDir()
	rendertest.WriteFiles(t, root, map[string]string{
		"standup.yaml": "",
		"c/cm.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: default}\ndata: {k: v}\n",
	})
	b, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "c")
	first, err := b.Build(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	first.objects[0].Object.Object["data"] = map[string]any{"k": "changed"}
	second, err := b.Build(map[string]any{"spec": map[string]any{"path": "./c"}}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := second.objects[0].Object.Object["data"].(map[string]any)["k"]; got != "v" {
		t.Errorf("the reused build shares objects with the first: data.k = %v", got)
	}
	third, err := b.Build(map[string]any{"spec": map[string]any{"targetNamespace": "other"}}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if ns := third.objects[0].Object.GetNamespace(); ns != "other" {
		t.Errorf("a spec that changes the kustomization file reused the last build: namespace %q", ns)
	}
}
