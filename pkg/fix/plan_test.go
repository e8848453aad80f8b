package fix

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/ciskip"
	"github.com/kubestandup/standup/pkg/audit"
	"github.com/kubestandup/standup/pkg/config"
	"github.com/kubestandup/standup/pkg/render"
)

// copyTree copies the directory src to a new temporary directory.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// audited renders path under root and audits it, with the function that
// audits a render again.
func audited(t *testing.T, root, path string) (*render.Result, *audit.Report, Options) {
	t.Helper()
	ctx := context.Background()
	res, err := render.Load(ctx, render.Options{Path: filepath.Join(root, path), RepoRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(ctx, res.RepoRoot)
	if err != nil {
		t.Fatal(err)
	}
	reaudit := func(r *render.Result) (*audit.Report, error) { return audit.Audit(r, cfg, audit.Options{}) }
	report, err := reaudit(res)
	if err != nil {
		t.Fatal(err)
	}
	return res, report, Options{Audit: reaudit}
}

// describePlan lists a plan's edits, refusals and moves, one per line.
func describePlan(p *Plan) string {
	var b strings.Builder
	for _, f := range p.Files {
		for _, e := range f.Edits {
			fmt.Fprintf(&b, "edit %s: %s %s (places: %d)\n", f.Name, e.Kustomization, e.Change, e.Places)
		}
	}
	for _, s := range p.NotFixed {
		fmt.Fprintf(&b, "not fixed %s %s: %s\n", s.Kustomization, s.Change, s.Reason)
	}
	for _, m := range p.Moves {
		fmt.Fprintf(&b, "move %s %s\n", m.Code, m.Kind)
	}
	return b.String()
}

func missingEdges(r *audit.Report) []string {
	var out []string
	for _, h := range r.Hazards {
		if h.Code == audit.CodeMissingEdge {
			out = append(out, h.Kustomization.String()+" needs "+h.Provider.String())
		}
	}
	slices.Sort(out)
	return out
}

// TestPlan fixes testdata/repo: a missing edge to a CRD, one to a chart
// (and a health check on its HelmRelease), a list in flow style and one
// indented by four; and it leaves alone the Kustomizations an overlay
// makes twice from one document, one whose name is a postBuild variable,
// and one whose dependsOn a patch sets. The chart's Certificate in the
// chart's own pass is a move, and so is a pair that each need the other's
// CRD (MUTUAL_NEED: either edge deadlocks). Then the audit finds only the
// missing edges left alone (not the patched one's: it depends on apps,
// which now depends on crds), the pair is still a MUTUAL_NEED, and a
// second plan has nothing to do.
func TestPlan(t *testing.T) {
	root := copyTree(t, filepath.Join("testdata", "repo"))
	res, report, opts := audited(t, root, "clusters/prod")
	p, err := MakePlan(context.Background(), res, report, opts)
	if err != nil {
		t.Fatal(err)
	}
	goldenFile(t, filepath.Join("testdata", "plan.golden"), []byte(describePlan(p)+"\n"+p.Diff()))
	if err := Write(context.Background(), p, nil); err != nil {
		t.Fatal(err)
	}
	res, report, opts = audited(t, root, "clusters/prod")
	want := []string{
		"Kustomization/flux-system/a-tenant needs Kustomization/flux-system/crds",
		"Kustomization/flux-system/b-tenant needs Kustomization/flux-system/crds",
		"Kustomization/flux-system/blog-app needs Kustomization/flux-system/crds",
	}
	if got := missingEdges(report); !slices.Equal(got, want) {
		t.Errorf("after the fix, MISSING_EDGE:\n got %q\nwant %q (the edits left alone)", got, want)
	}
	var mutual []string
	for _, h := range report.Hazards {
		if h.Code == audit.CodeMutualNeed {
			mutual = append(mutual, h.Kustomization.Name+" needs "+h.Provider.Name)
		}
	}
	if want := []string{"left needs right", "right needs left"}; !slices.Equal(mutual, want) {
		t.Errorf("after the fix, MUTUAL_NEED %q, want %q", mutual, want)
	}
	for _, h := range report.Hazards {
		if h.Code == audit.CodeUnguardedProvider {
			t.Errorf("after the fix, %s %s", h.Code, h.Kustomization)
		}
	}
	again, err := MakePlan(context.Background(), res, report, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Files) != 0 {
		t.Errorf("a second plan edits:\n%s", again.Diff())
	}
}

// TestPlanRefusesFilesOutsideTheRepository: a Kustomization's file that a
// symbolic link leads out of the repository is not edited.
func TestPlanRefusesFilesOutsideTheRepository(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "ks.yaml"), []byte("kind: Kustomization\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "ks.yaml"), filepath.Join(root, "ks.yaml")); err != nil {
		ciskip.Skipf(t, "no symbolic links here: %v", err)
	}
	root, _ = filepath.EvalSymlinks(root)
	s := newFileSet(&render.Result{RepoRoot: root})
	if f := s.file("ks.yaml"); !strings.Contains(f.refused, "outside the repository") {
		t.Errorf("refused %q, want outside the repository", f.refused)
	}
	for _, def := range []render.Manifest{{File: "https://example.com/x//ks.yaml", Line: 1}, {File: "../ks.yaml", Line: 1}, {File: "ks.yaml"}, {File: "ks.yaml.j2", Line: 1}, {}} {
		if s.generated(def) == "" {
			t.Errorf("%q at line %d is not refused", def.File, def.Line)
		}
	}
}
