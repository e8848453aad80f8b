package render

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The build of the path, repeated at once by the flux-system Kustomization
// that builds it, is reused, and each caller gets objects of its own
// (postBuild substitution replaces them); a spec that changes the
// kustomization file is built anew.
func TestLastBuildIsReusedAsACopy(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"standup.yaml": "",
		"c/cm.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: default}\ndata: {k: v}\n",
	})
	b, err := newBuilder(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "c")
	first, err := b.build(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	first.objects[0].Object.Object["data"] = map[string]any{"k": "changed"}
	second, err := b.build(map[string]any{"spec": map[string]any{"path": "./c"}}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := second.objects[0].Object.Object["data"].(map[string]any)["k"]; got != "v" {
		t.Errorf("the reused build shares objects with the first: data.k = %v", got)
	}
	third, err := b.build(map[string]any{"spec": map[string]any{"targetNamespace": "other"}}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if ns := third.objects[0].Object.GetNamespace(); ns != "other" {
		t.Errorf("a spec that changes the kustomization file reused the last build: namespace %q", ns)
	}
}

// Walking a directory checks only symlinks against the root (boundedFS.Walk):
// one that leads out of the repository still fails the generation, as the
// secure file system's walk does: the Kustomization fails alone.
func TestWalkRefusesASymlinkOutOfTheRoot(t *testing.T) {
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: outside, namespace: default}\n"})
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"standup.yaml": "",
		"c/ks.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: app, namespace: flux-system}\n" +
			"spec: {interval: 10m, path: ./app, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n",
		"app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: inside, namespace: default}\n",
	})
	if err := os.Symlink(filepath.Join(outside, "cm.yaml"), filepath.Join(root, "app", "link.yaml")); err != nil {
		t.Fatal(err)
	}
	res, err := Load(context.Background(), Options{Path: filepath.Join(root, "c")})
	if err != nil {
		t.Fatalf("Load = %v; want the Kustomization to fail alone", err)
	}
	if len(res.Failed) != 1 || !strings.Contains(res.Failed[0].Error(), "link.yaml") {
		t.Fatalf("Failed = %v, want one failure naming link.yaml", res.Failed)
	}
}
