package render

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// syntheticRepo writes a repository whose root Kustomization applies n
// Kustomizations, each building its own directory (a ConfigMap and a
// Deployment, with a substituted variable) and depending on up to two
// earlier ones.
func syntheticRepo(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	var tiers strings.Builder
	files := map[string]string{
		"standup.yaml": "apiVersion: standup.kubestandup.io/v1alpha1\nkind: Config\n",
		"clusters/c/root.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 10m, path: ./clusters/c, sourceRef: {kind: GitRepository, name: flux-system}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: vars, namespace: flux-system}
data: {DOMAIN: example.org}
`,
	}
	for i := range n {
		fmt.Fprintf(&tiers, `---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: app-%d, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps/app-%d
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild: {substituteFrom: [{kind: ConfigMap, name: vars}]}
`, i, i)
		if i > 0 {
			fmt.Fprintf(&tiers, "  dependsOn: [{name: app-%d}, {name: app-%d}]\n", i-1, i/2)
		}
		files[fmt.Sprintf("apps/app-%d/app.yaml", i)] = fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata: {name: app-%d, namespace: apps}
data: {url: "https://app-%d.${DOMAIN}"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app-%d, namespace: apps}
spec:
  selector: {matchLabels: {app: app-%d}}
  template:
    metadata: {labels: {app: app-%d}}
    spec: {containers: [{name: app, image: "nginx:1.27"}]}
`, i, i, i, i, i)
	}
	files["clusters/c/tiers.yaml"] = tiers.String()
	writeFiles(b, dir, files)
	return dir
}

// BenchmarkLoad loads a synthetic repository of 500 Kustomizations.
func BenchmarkLoad(b *testing.B) {
	const n = 500
	dir := syntheticRepo(b, n)
	b.ReportAllocs()
	for b.Loop() {
		res, err := Load(context.Background(), Options{Path: filepath.Join(dir, "clusters", "c")})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Objects) != n+1 {
			b.Fatalf("%d objects, want %d", len(res.Objects), n+1)
		}
	}
}
