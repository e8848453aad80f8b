package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/ciskip"
	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
	"github.com/kubestandup/standup/pkg/tiers"
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
	rendertest.WriteFiles(b, dir, files)
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

// largeConfigMapRepo writes a repository whose one Kustomization, with
// postBuild substitution as most Flux repositories have, builds one
// ConfigMap of about size bytes, and returns its root. shape "dashboards"
// holds Grafana dashboards of 64 KiB each, of panels of about 800 bytes,
// each referencing its dashboard's own ${variables}, which no postBuild
// variable defines (so each is kept literally); shape "keys" holds many keys
// of 630 bytes each (25,000 at 15 MiB: kustomize's time grows with their
// square, see input.MaxKeyWork).
func largeConfigMapRepo(b *testing.B, shape string, size int) string {
	b.Helper()
	var cm strings.Builder
	cm.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big, namespace: monitoring}\ndata:\n")
	switch shape {
	case "dashboards":
		panelText := strings.Repeat("Requests per second by pod, over the rate interval. ", 13)
		for d := 0; cm.Len() < size; d++ {
			fmt.Fprintf(&cm, "  dashboard-%d.json: |\n    {\"title\": \"Dashboard %d\", \"panels\": [\n", d, d)
			for p, end := 0, cm.Len()+64<<10; cm.Len() < end; p++ {
				fmt.Fprintf(&cm, "      {\"id\": %d, \"type\": \"timeseries\", \"datasource\": {\"uid\": \"${DS_PROMETHEUS}\"}, \"description\": %q,\n", p, panelText)
				fmt.Fprintf(&cm, "       \"targets\": [{\"expr\": \"sum(rate(http_requests_total{namespace=\\\"${ns_%d}\\\", pod=~\\\"${pod_%d}\\\"}[$__rate_interval]))\"}]},\n", d, d)
			}
			cm.WriteString("      {}]}\n")
		}
	case "keys":
		value := strings.Repeat("x", 600)
		for i := 0; cm.Len() < size; i++ {
			fmt.Fprintf(&cm, "  key-%07d: %q\n", i, value)
		}
	}
	dir := b.TempDir()
	rendertest.WriteFiles(b, dir, map[string]string{
		"standup.yaml": "",
		"clusters/c/monitoring.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: monitoring, namespace: flux-system}
spec:
  interval: 10m
  path: ./monitoring
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild: {substitute: {CLUSTER: prod}}
`,
		"monitoring/dashboards.yaml": cm.String(),
	})
	return dir
}

// BenchmarkRenderLargeConfigMap renders one large ConfigMap. For dashboards
// the time per byte does not grow with the size (MB/s stays flat); for many
// keys it does, in kustomize itself (kyaml's DeAnchor is quadratic in a
// mapping's keys), up to the bound of input.MaxKeyWork.
func BenchmarkRenderLargeConfigMap(b *testing.B) {
	for _, shape := range []string{"dashboards", "keys"} {
		for _, mib := range []int{1, 4, 15} {
			b.Run(fmt.Sprintf("%s/%dMiB", shape, mib), func(b *testing.B) {
				size := mib << 20
				dir := largeConfigMapRepo(b, shape, size)
				b.SetBytes(int64(size))
				for b.Loop() {
					res, err := Load(context.Background(), Options{Path: filepath.Join(dir, "clusters", "c")})
					if err != nil {
						b.Fatal(err)
					}
					if len(res.Failed) != 0 || len(res.Rendered[tiers.ID{Kind: KindKustomization, Namespace: "flux-system", Name: "monitoring"}]) != 1 {
						b.Fatalf("failed %v; want the ConfigMap rendered", res.Failed)
					}
				}
			})
		}
	}
}

// BenchmarkLoadScale loads repositories of 500 to 4,000 Kustomizations of one
// ConfigMap each: the time per Kustomization should stay about flat.
func BenchmarkLoadScale(b *testing.B) {
	for _, n := range []int{500, 1000, 2000, 4000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := rendertest.ScaleRepo(b, n)
			b.ReportAllocs()
			for b.Loop() {
				res, err := Load(context.Background(), Options{Path: filepath.Join(dir, "clusters", "c")})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Objects) != n+1 || len(res.Rendered) != n+1 {
					b.Fatalf("%d objects, %d rendered, want %d", len(res.Objects), len(res.Rendered), n+1)
				}
			}
		})
	}
}

// BenchmarkLoadReplacements loads the home-ops shape of
// rendertest.ReplacementsFiles (scripts/bench-render.sh's
// gen-replacements-160): per-namespace kustomizations with shared
// components and replacements, an application's Kustomization each.
func BenchmarkLoadReplacements(b *testing.B) {
	const apps = 160
	dir := rendertest.ReplacementsRepo(b, apps)
	b.ReportAllocs()
	for b.Loop() {
		res, err := Load(context.Background(), Options{Path: filepath.Join(dir, "clusters", "c"), Kinds: []string{KindKustomization, KindHelmRelease}})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Failed) != 0 || len(res.Rendered) != apps+2 {
			b.Fatalf("failed %v, %d rendered, want %d", res.Failed, len(res.Rendered), apps+2)
		}
	}
}

// BenchmarkCorpus loads every repository of the shared corpus the way
// audit does (Kustomizations and HelmReleases). It is skipped where the
// corpus is absent; scripts/bench-render.sh times the binaries instead.
func BenchmarkCorpus(b *testing.B) {
	corpus := rendertest.Corpus()
	for _, c := range rendertest.CorpusCases {
		b.Run(c.Name, func(b *testing.B) {
			root := filepath.Join(corpus, c.Root)
			if _, err := os.Stat(root); err != nil {
				ciskip.Skipf(b, "corpus: %v", err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Load(context.Background(), Options{Path: filepath.Join(root, c.Path), RepoRoot: root, Kinds: []string{KindKustomization, KindHelmRelease}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
