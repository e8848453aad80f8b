package render

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
)

// Walking a directory checks only symlinks against the root (boundedFS.Walk):
// one that leads out of the repository still fails the generation, as the
// secure file system's walk does: the Kustomization fails alone.
func TestWalkRefusesASymlinkOutOfTheRoot(t *testing.T) {
	outside := t.TempDir()
	rendertest.WriteFiles(t, outside, map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: outside, namespace: default}\n"})
	root := t.TempDir()
	rendertest.WriteFiles(t, root, map[string]string{
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
