package audit

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubestandup/standup/pkg/render"
)

// auditDir renders and audits a repository on disk, bootstrap included, as
// `standup audit` does, with no standup.yaml.
func auditDir(t *testing.T, root, path string) *Report {
	t.Helper()
	ctx := context.Background()
	res, err := render.Load(ctx, render.Options{Path: filepath.Join(root, path), RepoRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	boot, err := DetectBootstrap(ctx, res.RepoRoot, res.Path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Audit(res, nil, Options{Bootstrap: boot})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestOnedr0pCertManager is the true positive the corpus keeps:
// onedr0p/home-ops's cert-manager Kustomization applies the ClusterIssuer
// in the same pass as the cert-manager HelmRelease. Without the
// repository's bootstrap that deadlocks a cold start, and the catalog knows
// the chart; with it, cert-manager is installed before Flux and all is well.
func TestOnedr0pCertManager(t *testing.T) {
	const repo, path = "testdata/onedr0p-cert-manager", "kubernetes/flux/cluster"
	r := auditDir(t, repo, path)
	if len(r.Findings) != 1 || r.Errors() != 1 {
		t.Fatalf("findings %+v, want the one deadlock", r.Findings)
	}
	f := r.Findings[0]
	h := f.Places[0]
	if f.Code != CodeSecondOrderSamePass || f.Kind != (GroupKind{Group: "cert-manager.io", Kind: "ClusterIssuer"}) || len(f.Places) != 1 ||
		h.Kustomization.String() != "Kustomization/cert-manager/cert-manager" || h.Object.String() != "ClusterIssuer/letsencrypt-production" ||
		h.File != "kubernetes/apps/cert-manager/cert-manager/app/clusterissuer.yaml" || h.Evidence != "catalog: cert-manager" {
		t.Fatalf("finding %+v", f)
	}
	for _, s := range []string{"chart of HelmRelease cert-manager/cert-manager", "chart cert-manager, catalog: cert-manager", "never converges"} {
		if !strings.Contains(h.Message, s) {
			t.Errorf("message %q does not say %q", h.Message, s)
		}
	}

	dir := t.TempDir()
	copyTree(t, repo, dir)
	copyTree(t, "testdata/onedr0p-bootstrap", filepath.Join(dir, "bootstrap"))
	r = auditDir(t, dir, path)
	if len(r.Findings) != 0 || len(r.Bootstrap) != 1 || r.Bootstrap[0].Catalog != "cert-manager" {
		t.Fatalf("with the bootstrap: findings %+v, bootstrap %+v; want none and the cert-manager release", r.Findings, r.Bootstrap)
	}
	for _, u := range r.Kinds {
		if u.Kind == "ClusterIssuer" && (u.Origin != OriginBootstrap || !strings.HasPrefix(u.Evidence, "bootstrap/helmfile/apps.yaml: helmfile release cert-manager/cert-manager")) {
			t.Errorf("ClusterIssuer: %+v", u)
		}
	}
}

// copyTree copies the regular files under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
