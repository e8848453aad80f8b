package rendertest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// WriteFiles writes files (slash-separated paths relative to dir, and
// their content) under dir, creating directories as needed.
func WriteFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// ScaleRepo writes ScaleFiles(n) in a temporary directory and returns it.
func ScaleRepo(tb testing.TB, n int) string {
	tb.Helper()
	dir := tb.TempDir()
	WriteFiles(tb, dir, ScaleFiles(n))
	return dir
}

// ScaleFiles is a repository of n Kustomizations of one ConfigMap each,
// listed by the cluster directory clusters/c, each depending on up to two
// earlier ones: the shape of BenchmarkLoadScale and of
// scripts/bench-render.sh's gen-N cases. Its cluster path is clusters/c.
func ScaleFiles(n int) map[string]string {
	files := map[string]string{
		"standup.yaml": "apiVersion: standup.kubestandup.io/v1alpha1\nkind: Config\n",
		"clusters/c/flux-system.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 10m, path: ./clusters/c, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
`,
	}
	for i := range n {
		ks := fmt.Sprintf(`apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: k%d, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps/k%d
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
`, i, i)
		if i > 0 {
			ks += fmt.Sprintf("  dependsOn: [{name: k%d}, {name: k%d}]\n", i-1, i/2)
		}
		files[fmt.Sprintf("clusters/c/k%d.yaml", i)] = ks
		files[fmt.Sprintf("apps/k%d/cm.yaml", i)] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: k%d, namespace: apps}\ndata: {key: value-%d}\n", i, i)
	}
	return files
}
