package audit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubestandup/standup/pkg/config"
	"github.com/kubestandup/standup/pkg/render"
)

// syntheticRepo writes a repository of n Kustomizations under dir. Every
// 50th is an operator tier (two CRDs, health-checked), the next one applies
// the operator's trigger with wait: true, and every other one applies a
// ConfigMap, a Deployment, a custom resource of the nearest operator and a
// runtime kind of the nearest trigger; each depends on the previous one and
// on the one at half its index. Every 25th declares no postBuild and holds a
// literal ${TOKEN}. standup.yaml declares each operator's runtime kind.
func syntheticRepo(tb testing.TB, dir string, n int) {
	tb.Helper()
	var list, cfg strings.Builder
	cfg.WriteString("apiVersion: standup.kubestandup.io/v1alpha1\nkind: Config\nruntimeCRDs:\n")
	files := map[string]string{}
	for i := range n {
		op := i / 50 * 50
		group := fmt.Sprintf("op%d.example.com", op)
		fmt.Fprintf(&list, "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: ks-%d, namespace: flux-system}\n"+
			"spec:\n  interval: 10m\n  path: ./ks/%d\n  sourceRef: {kind: GitRepository, name: flux-system}\n", i, i)
		if i > 0 {
			fmt.Fprintf(&list, "  dependsOn: [{name: ks-%d}, {name: ks-%d}]\n", i-1, i/2)
		}
		var body string
		switch i % 50 {
		case 0:
			fmt.Fprintf(&cfg, "  - trigger: {group: %s, kind: Engine}\n    kinds: [{group: %s, kind: Part}]\n", group, group)
			fmt.Fprintf(&list, "  healthChecks: [{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, name: engines.%s}]\n", group)
			body = crdYAML(group, "Engine") + "---\n" + crdYAML(group, "Widget")
		case 1:
			list.WriteString("  wait: true\n")
			body = fmt.Sprintf("apiVersion: %s/v1\nkind: Engine\nmetadata: {name: engine}\n", group)
		default:
			if i%25 != 0 {
				list.WriteString("  postBuild: {substitute: {TOKEN: x}}\n")
			}
			body = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d, namespace: apps}\ndata: {url: \"https://${TOKEN}/\"}\n---\n"+
				"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d%d, namespace: apps}\nspec:\n  selector: {matchLabels: {app: d}}\n"+
				"  template: {metadata: {labels: {app: d}}, spec: {containers: [{name: d, image: nginx}]}}\n---\n"+
				"apiVersion: %s/v1\nkind: Widget\nmetadata: {name: w%d, namespace: apps}\n---\n"+
				"apiVersion: %s/v1\nkind: Part\nmetadata: {name: p%d, namespace: apps}\n", i, i, group, i, group, i)
		}
		files[fmt.Sprintf("ks/%d/objects.yaml", i)] = body
	}
	files["standup.yaml"] = cfg.String()
	files["clusters/c/root.yaml"] = "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: flux-system, namespace: flux-system}\n" +
		"spec: {interval: 10m, path: ./clusters/c, sourceRef: {kind: GitRepository, name: flux-system}}\n"
	files["clusters/c/list.yaml"] = list.String()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

func crdYAML(group, kind string) string {
	return fmt.Sprintf("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: %ss.%s}\n"+
		"spec: {group: %s, names: {kind: %s, plural: %ss}, scope: Namespaced}\n", strings.ToLower(kind), group, group, kind, strings.ToLower(kind))
}

// loadAndAudit renders dir and audits it, checking the expected outcome:
// no error, one LITERAL_SUBSTITUTION_TOKEN per token-holding Kustomization.
func loadAndAudit(tb testing.TB, dir string, n int) *Report {
	tb.Helper()
	res, err := render.Load(context.Background(), render.Options{Path: filepath.Join(dir, "clusters", "c")})
	if err != nil {
		tb.Fatal(err)
	}
	cfg, err := config.Load(context.Background(), res.RepoRoot)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := Audit(res, cfg, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	checkSynthetic(tb, r, n)
	return r
}

func checkSynthetic(tb testing.TB, r *Report, n int) {
	tb.Helper()
	// One literal ${TOKEN} every 50 Kustomizations: n/50 places of one
	// finding (ConfigMaps with LITERAL_SUBSTITUTION_TOKEN).
	if r.Kustomizations != n+1 || r.Errors() != 0 || r.Warnings() != 1 || len(r.Hazards) != n/50 {
		tb.Fatalf("%d Kustomizations, %d errors, %d warnings, %d places; want %d, 0, 1, %d: %+v",
			r.Kustomizations, r.Errors(), r.Warnings(), len(r.Hazards), n+1, n/50, r.Hazards[:min(3, len(r.Hazards))])
	}
}

// BenchmarkAudit audits a pre-rendered repository of 500 Kustomizations.
func BenchmarkAudit(b *testing.B) {
	const n = 500
	dir := b.TempDir()
	syntheticRepo(b, dir, n)
	res, err := render.Load(context.Background(), render.Options{Path: filepath.Join(dir, "clusters", "c")})
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := config.Load(context.Background(), res.RepoRoot)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		r, err := Audit(res, cfg, Options{})
		if err != nil {
			b.Fatal(err)
		}
		checkSynthetic(b, r, n)
	}
}

// BenchmarkLoadAndAudit renders and audits the same repository from files,
// as `standup audit` does (run it with -benchtime=1x: one load takes seconds).
func BenchmarkLoadAndAudit(b *testing.B) {
	const n = 500
	dir := b.TempDir()
	syntheticRepo(b, dir, n)
	b.ReportAllocs()
	for b.Loop() {
		loadAndAudit(b, dir, n)
	}
}

// TestSyntheticRepo runs the benchmark's repository once at a small size,
// so that its expectations are checked by go test.
func TestSyntheticRepo(t *testing.T) {
	dir := t.TempDir()
	syntheticRepo(t, dir, 120)
	r := loadAndAudit(t, dir, 120)
	for _, h := range r.Hazards {
		if h.Code != CodeLiteralSubstitutionToken {
			t.Errorf("unexpected %s", brief(h))
		}
	}
}
