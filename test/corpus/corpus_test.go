package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/ciskip"
	"github.com/kubestandup/standup/internal/sarifcheck"
)

// corpusDir is ../shared/corpus from the project root; STANDUP_CORPUS
// overrides it.
func corpusDir() string {
	if d := os.Getenv("STANDUP_CORPUS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "corpus")
}

// entry is one row of MANIFEST.md: a repository and its entry paths.
type entry struct {
	dir      string
	paths    []string
	repoRoot string // relative to the corpus directory
}

// manifestRow matches a table row: | `dir` | source | licence | entries | repo-root | what |
var manifestRow = regexp.MustCompile("^\\| `([^`]+)` \\|[^|]*\\|[^|]*\\|([^|]*)\\|([^|]*)\\|")

// readManifest reads the repositories and entry paths of MANIFEST.md.
func readManifest(t testing.TB, dir string) []entry {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "MANIFEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []entry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := manifestRow.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		e := entry{dir: m[1], repoRoot: m[1]}
		for _, p := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(m[2], -1) {
			e.paths = append(e.paths, p[1])
		}
		if r := regexp.MustCompile("`<dir>/([^`]+)`").FindStringSubmatch(m[3]); r != nil {
			e.repoRoot = filepath.Join(m[1], r[1])
		}
		out = append(out, e)
	}
	return out
}

// dangling are the dependsOn edges of the corpus that name an object the
// checkout does not have, "dependent -> missing", each checked by reading
// the repository. tiers graphs HelmReleases by default, as resume walks
// them, so it sees these: it exits 4 naming them, and with --allow-missing
// orders the rest with them as external.
//
// toboshii/home-ops comments loki out of cluster/apps/monitoring's
// kustomization.yaml, and the vector-aggregator HelmRelease still
// dependsOn it: helm-controller holds vector-aggregator at "dependency not
// ready" for good.
var dangling = map[string][]string{
	"toboshii__home-ops cluster/flux": {"HelmRelease/monitoring/vector-aggregator -> HelmRelease/monitoring/loki"},
}

// TestCorpus runs `standup tiers` and `standup audit` over every repository
// of the corpus, with no standup.yaml:
//   - tiers (Kustomizations and HelmReleases, its default) exits 0 and
//     orders every dependsOn edge, or exits 4 naming exactly the dangling
//     edges above and orders the rest with --allow-missing;
//   - audit reports no error that only an unknown origin causes, at most
//     one finding per code and kind, and exactly the deadlocks of verdicts
//     (verdicts_test.go);
//   - audit exits 1 exactly when it reports an error.
//
// It fails, never skips, when CI is set and the corpus is missing.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("the corpus renders a dozen real repositories: not a -short test")
	}
	dir := corpusDir()
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST.md")); err != nil {
		ciskip.Skipf(t, "corpus missing at %s: %v", dir, err)
	}
	entries := readManifest(t, dir)
	listed := map[string]bool{}
	for _, e := range entries {
		listed[e.dir] = true
	}
	subdirs, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range subdirs {
		if d.IsDir() && !listed[d.Name()] {
			t.Errorf("%s is in the corpus but not in MANIFEST.md: the test would not run it", d.Name())
		}
	}
	if len(entries) < 11 {
		t.Fatalf("MANIFEST.md lists %d repositories, want the eleven", len(entries))
	}
	bin := buildStandup(t)
	seen := map[string]bool{}
	for _, e := range entries {
		for _, p := range e.paths {
			name := e.dir + " " + p
			seen[name] = true
			t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
				root := filepath.Join(dir, e.repoRoot)
				path := filepath.Join(dir, e.dir, p)
				checkTiers(t, bin, path, root, dangling[name])
				t.Run("picture", func(t *testing.T) { checkPicture(t, bin, path, root) })
				checkAudit(t, bin, path, root, deadlocks(name))
				checkSARIF(t, bin, path, root)
			})
		}
	}
	for name := range verdicts {
		if !seen[name] {
			t.Errorf("verdicts names %q, which MANIFEST.md does not list", name)
		}
	}
	for name := range dangling {
		if !seen[name] {
			t.Errorf("dangling names %q, which MANIFEST.md does not list", name)
		}
	}
}

// buildStandup builds the binary once for the test.
func buildStandup(t *testing.T) string {
	t.Helper()
	// make test builds the binary once for every test that runs one.
	if bin := os.Getenv("STANDUP_TEST_BINARY"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "standup")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/kubestandup/standup/cmd/standup")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// run runs the binary and returns stdout, stderr and the exit code.
func run(t *testing.T, bin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return stdout.String(), stderr.String(), ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), 0
}

// tiersDoc is the part of `tiers -o json` the test reads.
type tiersDoc struct {
	Tiers []struct {
		Tier  int `json:"tier"`
		Nodes []struct {
			Kind      string `json:"kind"`
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
			DependsOn []struct {
				Kind      string `json:"kind"`
				Namespace string `json:"namespace"`
				Name      string `json:"name"`
			} `json:"dependsOn"`
		} `json:"nodes"`
	} `json:"tiers"`
	Missing []struct {
		Dependent, Missing tiersRef
	} `json:"missing"`
}

type tiersRef struct{ Kind, Namespace, Name string }

func (r tiersRef) String() string { return r.Kind + "/" + r.Namespace + "/" + r.Name }

// checkTiers runs tiers on path: it orders every dependsOn edge, and the
// edges that dangle are exactly wantDangling.
func checkTiers(t *testing.T, bin, path, root string, wantDangling []string) {
	args := []string{"tiers", "--path", path, "--repo-root", root, "-o", "json", "-q"}
	out, errOut, code := run(t, bin, args...)
	if len(wantDangling) > 0 {
		if code != 4 {
			t.Fatalf("tiers exit %d, want 4 for the dangling %q: %s", code, wantDangling, errOut)
		}
		for _, d := range wantDangling {
			dependent, missing, _ := strings.Cut(d, " -> ")
			if want := dependent + " depends on " + missing + ", which does not exist"; !strings.Contains(errOut, want) {
				t.Errorf("tiers' error does not say %q:\n%s", want, errOut)
			}
		}
		out, errOut, code = run(t, bin, append(args, "--allow-missing")...)
	}
	if code != 0 {
		t.Fatalf("tiers exit %d: %s", code, errOut)
	}
	var doc tiersDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("tiers -o json: %v", err)
	}
	var gotDangling []string
	for _, m := range doc.Missing {
		gotDangling = append(gotDangling, m.Dependent.String()+" -> "+m.Missing.String())
	}
	if !slices.Equal(gotDangling, wantDangling) {
		t.Errorf("dangling dependsOn %q, want %q", gotDangling, wantDangling)
	}
	tier := map[string]int{}
	for _, tr := range doc.Tiers {
		for _, n := range tr.Nodes {
			tier[n.Kind+"/"+n.Namespace+"/"+n.Name] = tr.Tier
		}
	}
	for _, tr := range doc.Tiers {
		for _, n := range tr.Nodes {
			for _, d := range n.DependsOn {
				dep := d.Kind + "/" + d.Namespace + "/" + d.Name
				if dt, ok := tier[dep]; ok && dt >= tr.Tier {
					t.Errorf("%s/%s/%s (tier %d) depends on %s (tier %d)", n.Kind, n.Namespace, n.Name, tr.Tier, dep, dt)
				}
			}
		}
	}
}

// checkPicture renders tiers -o dot of path with Graphviz (dot -Tjson)
// and checks its bounding box: no wider than 4 times its height, so that a
// graph of a hundred nodes and more fits a screen.
func checkPicture(t *testing.T, bin, path, root string) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		ciskip.Skipf(t, "Graphviz's dot is not installed (scripts/test.sh installs graphviz): %v", err)
	}
	src, errOut, code := run(t, bin, "tiers", "--path", path, "--repo-root", root, "-o", "dot", "-q", "--allow-missing")
	if code != 0 {
		t.Fatalf("tiers -o dot exit %d: %s", code, errOut)
	}
	cmd := exec.Command(dot, "-Tjson")
	cmd.Stdin = strings.NewReader(src)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dot -Tjson: %v", err)
	}
	var doc struct {
		BB string `json:"bb"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	var x0, y0, x1, y1 float64
	if _, err := fmt.Sscanf(strings.ReplaceAll(doc.BB, ",", " "), "%g %g %g %g", &x0, &y0, &x1, &y1); err != nil {
		t.Fatalf("bb %q: %v", doc.BB, err)
	}
	if w, h := x1-x0, y1-y0; w > 4*h {
		t.Errorf("tiers -o dot renders %.0f×%.0f points: wider than 4 times its height", w, h)
	}
}

// auditDoc is the part of `audit -o json` the test reads.
type auditDoc struct {
	Summary struct{ Errors, Failed int } `json:"summary"`
	Kinds   []struct {
		Kustomization struct{ Namespace, Name string } `json:"kustomization"`
	} `json:"kinds"`
	Findings []struct {
		Code     string `json:"code"`
		Severity string `json:"severity"`
		Kind     struct{ Group, Kind string }
		Places   []struct {
			Kustomization struct{ Namespace, Name string } `json:"kustomization"`
		} `json:"places"`
	} `json:"findings"`
}

func checkAudit(t *testing.T, bin, path, root string, want []string) {
	out, errOut, code := run(t, bin, "audit", "--path", path, "--repo-root", root, "-o", "json", "-q")
	var doc auditDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("audit -o json (exit %d): %v\nstderr: %s", code, err, errOut)
	}
	seen := map[string]bool{}
	var errs []string
	for _, f := range doc.Findings {
		gk := f.Kind.Kind + "." + f.Kind.Group
		key := f.Code + " " + gk
		if seen[key] {
			t.Errorf("two findings for %s: one per code and kind", key)
		}
		seen[key] = true
		if f.Severity != "error" {
			continue
		}
		if f.Code == "UNKNOWN_KIND" {
			t.Errorf("an unknown origin is an error: %s", gk)
		}
		for _, k := range uniqueKustomizations(f.Places) {
			errs = append(errs, fmt.Sprintf("%s %s %s", f.Code, gk, k))
		}
	}
	slices.Sort(errs)
	// A deadlock is expected where its Kustomization is audited (rendered).
	audited := map[string]bool{}
	for _, k := range doc.Kinds {
		audited[k.Kustomization.Namespace+"/"+k.Kustomization.Name] = true
	}
	want = slices.DeleteFunc(slices.Sorted(slices.Values(want)), func(w string) bool {
		f := strings.Fields(w)
		return !audited[f[len(f)-1]]
	})
	if !slices.Equal(errs, want) {
		t.Errorf("errors:\n got %q\nwant %q (each a deadlock checked by reading the repository)", errs, want)
	}
	if wantCode := boolCode(len(errs) > 0 || doc.Summary.Failed > 0); code != wantCode {
		t.Errorf("audit exit %d with %d errors, %d failed builds; want %d\nstderr: %s", code, len(errs), doc.Summary.Failed, wantCode, errOut)
	}
}

// checkSARIF validates audit's SARIF against the SARIF 2.1.0 schema and
// checks that code scanning can place every result: a line in a file of
// the repository (the snapshots have no .git: the repository root is the
// git root), and a fingerprint of its own.
func checkSARIF(t *testing.T, bin, path, root string) {
	out, errOut, _ := run(t, bin, "audit", "--path", path, "--repo-root", root, "-o", "sarif", "-q")
	if err := sarifcheck.Validate([]byte(out)); err != nil {
		t.Fatalf("audit -o sarif is not valid SARIF 2.1.0: %v\nstderr: %s", err, errOut)
	}
	abs, err := filepath.Abs(root)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sarifcheck.CodeScanning([]byte(out), abs); err != nil {
		t.Errorf("audit -o sarif is not fit for code scanning: %v", err)
	}
}

func uniqueKustomizations(places []struct {
	Kustomization struct{ Namespace, Name string } `json:"kustomization"`
}) []string {
	var out []string
	for _, p := range places {
		k := p.Kustomization.Namespace + "/" + p.Kustomization.Name
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func boolCode(b bool) int {
	if b {
		return 1
	}
	return 0
}
