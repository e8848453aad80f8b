package corpus

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/kubestandup/standup/internal/ciskip"
)

// fixedLine matches the lines `audit --fix` may add or remove: the keys
// dependsOn, healthChecks and wait, and the entries of their lists.
var fixedLine = regexp.MustCompile(`^\s*(dependsOn|healthChecks|wait):|^\s*(-\s+)?(name|namespace|apiVersion|kind):\s`)

// TestFixCorpus runs `standup audit --fix` on a copy of every corpus
// repository whose audit finds MISSING_EDGE (issue 35): afterwards the
// audit finds none, and exactly the errors of deadlocks (a pair of
// Kustomizations that need each other's kinds is an ORIGIN_CYCLE, or a
// MUTUAL_NEED when it converges: objects to move, not an edge), tiers
// orders every Kustomization, the files differ from the corpus only in
// dependsOn, healthChecks and wait lines, the diff --dry-run printed
// applies to the corpus and gives the same files, and a second --fix
// writes nothing. It fails, never skips, when CI is set and the corpus is
// missing.
func TestFixCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("the corpus renders a dozen real repositories: not a -short test")
	}
	dir := corpusDir()
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST.md")); err != nil {
		ciskip.Skipf(t, "corpus missing at %s: %v", dir, err)
	}
	bin := buildStandup(t)
	fixed := 0
	for _, e := range readManifest(t, dir) {
		for _, p := range e.paths {
			name := e.dir + " " + p
			root := filepath.Join(dir, e.repoRoot)
			if len(missingEdges(t, bin, filepath.Join(dir, e.dir, p), root)) == 0 {
				continue
			}
			fixed++
			t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
				checkFix(t, bin, filepath.Join(dir, e.dir), e, p)
			})
		}
	}
	if fixed == 0 {
		t.Error("no corpus repository has a MISSING_EDGE to fix")
	}
}

// checkFix fixes a copy of the repository at src, entry path p.
func checkFix(t *testing.T, bin, src string, e entry, p string) {
	copyDir := filepath.Join(t.TempDir(), e.dir)
	copyTree(t, src, copyDir)
	root := filepath.Join(copyDir, strings.TrimPrefix(strings.TrimPrefix(e.repoRoot, e.dir), string(filepath.Separator)))
	path := filepath.Join(copyDir, p)
	before := len(missingEdges(t, bin, path, root))

	diff, errOut, code := run(t, bin, "audit", "--fix", "--dry-run", "-o", "diff", "-q", "--path", path, "--repo-root", root)
	if code > 1 || diff == "" {
		t.Fatalf("audit --fix --dry-run -o diff: exit %d, diff %d bytes: %s", code, len(diff), errOut)
	}
	untouched(t, src, copyDir) // a dry run writes nothing
	if _, errOut, code := run(t, bin, "audit", "--fix", "-q", "--path", path, "--repo-root", root); code > 1 {
		t.Fatalf("audit --fix: exit %d: %s", code, errOut)
	}

	left := missingEdges(t, bin, path, root)
	t.Logf("MISSING_EDGE %d before, %d after", before, len(left))
	if len(left) > 0 {
		t.Errorf("after --fix, MISSING_EDGE %q: every one is an edit --fix makes, or a MUTUAL_NEED", left)
	}
	checkAudit(t, bin, path, root, deadlocks(e.dir+" "+p)) // no error more, none less
	checkTiers(t, bin, path, root, dangling[e.dir+" "+p])
	onlyFixLines(t, src, copyDir)
	appliesAsWritten(t, src, copyDir, root, diff)

	again, errOut, code := run(t, bin, "audit", "--fix", "-o", "diff", "-q", "--path", path, "--repo-root", root)
	if code > 1 || again != "" {
		t.Errorf("a second audit --fix is not a no-op (exit %d): %s\n%s", code, errOut, again)
	}
}

// missingEdges lists the MISSING_EDGE places of the audit of path, each as
// "namespace/name needs namespace/name".
func missingEdges(t *testing.T, bin, path, root string) []string {
	t.Helper()
	out, errOut, code := run(t, bin, "audit", "--path", path, "--repo-root", root, "-o", "json", "-q")
	var doc struct {
		Findings []struct {
			Code   string `json:"code"`
			Places []struct {
				Kustomization struct{ Namespace, Name string }  `json:"kustomization"`
				Provider      *struct{ Namespace, Name string } `json:"provider"`
			} `json:"places"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("audit -o json (exit %d): %v\nstderr: %s", code, err, errOut)
	}
	var edges []string
	for _, f := range doc.Findings {
		if f.Code != "MISSING_EDGE" {
			continue
		}
		for _, p := range f.Places {
			edge := p.Kustomization.Namespace + "/" + p.Kustomization.Name + " needs "
			if p.Provider != nil {
				edge += p.Provider.Namespace + "/" + p.Provider.Name
			}
			edges = append(edges, edge)
		}
	}
	return edges
}

// copyTree copies the directory src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// changedFiles lists the files of b that differ from a (relative names),
// and fails on a file added or removed.
func changedFiles(t *testing.T, a, b string) []string {
	t.Helper()
	var changed []string
	err := filepath.WalkDir(b, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		rel, _ := filepath.Rel(b, path)
		got, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		want, err := os.ReadFile(filepath.Join(a, rel))
		if err != nil {
			t.Errorf("%s: a file the corpus does not have: %v", rel, err)
			return nil
		}
		if string(got) != string(want) {
			changed = append(changed, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return changed
}

func untouched(t *testing.T, src, dst string) {
	t.Helper()
	if changed := changedFiles(t, src, dst); len(changed) > 0 {
		t.Fatalf("--dry-run wrote %q", changed)
	}
}

// onlyFixLines holds every file --fix wrote to its lines: a line added or
// removed is a dependsOn, healthChecks or wait line, or an entry of one,
// and the file keeps its permissions.
func onlyFixLines(t *testing.T, src, dst string) {
	t.Helper()
	changed := changedFiles(t, src, dst)
	if len(changed) == 0 {
		t.Fatal("--fix wrote no file")
	}
	for _, rel := range changed {
		a, _ := os.ReadFile(filepath.Join(src, rel))
		b, _ := os.ReadFile(filepath.Join(dst, rel))
		al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
		for _, op := range difflib.NewMatcherWithJunk(al, bl, false, nil).GetOpCodes() {
			if op.Tag == 'e' {
				continue
			}
			for _, l := range append(slices.Clone(al[op.I1:op.I2]), bl[op.J1:op.J2]...) {
				if !fixedLine.MatchString(l) {
					t.Errorf("%s: --fix touched %q", rel, l)
				}
			}
		}
		ai, _ := os.Stat(filepath.Join(src, rel))
		bi, _ := os.Stat(filepath.Join(dst, rel))
		if ai.Mode().Perm() != bi.Mode().Perm() {
			t.Errorf("%s: mode %v, was %v", rel, bi.Mode().Perm(), ai.Mode().Perm())
		}
	}
}

// appliesAsWritten applies the diff --dry-run printed to another copy of
// the corpus repository, with git apply from the repository root (the
// snapshots have no .git: the root is the git root), and requires the
// files --fix wrote.
func appliesAsWritten(t *testing.T, src, fixedDir, root, diff string) {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		ciskip.Skipf(t, "git is not installed: %v", err)
	}
	patched := filepath.Join(t.TempDir(), filepath.Base(src))
	copyTree(t, src, patched)
	rel, _ := filepath.Rel(fixedDir, root)
	cmd := exec.Command(git, "apply", "-")
	cmd.Dir = filepath.Join(patched, rel)
	cmd.Stdin = strings.NewReader(diff)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply of the --dry-run diff: %v\n%s", err, out)
	}
	if changed := changedFiles(t, fixedDir, patched); len(changed) > 0 {
		t.Errorf("the --dry-run diff and --fix differ on %q", changed)
	}
}
