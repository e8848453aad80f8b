package corpus

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubestandup/standup/internal/ciskip"
)

var update = flag.Bool("update", false, "rewrite docs/audit.md's audit:precision block")

// precisionDoc is the page whose audit:precision block the test keeps.
var precisionDoc = filepath.Join("..", "..", "docs", "audit.md")

// precisionCommand is the command that writes the block.
const precisionCommand = "go test ./test/corpus -run TestAuditPrecisionTableIsCurrent -update"

// fixtureRoots are the directories of audit fixtures, each a directory of
// repositories, with the test that pins what each repository's audit
// finds. A fixture not named here fails the test.
var fixtureRoots = map[string]map[string]string{
	"pkg/audit/testdata": {
		"blocked-clause":                    "TestBlockedClauseStands",
		"bootstrap-layouts/cluster-folder":  "TestBootstrapLayouts",
		"bootstrap-layouts/cluster-main":    "TestBootstrapLayouts",
		"bootstrap-layouts/generic-flux":    "TestBootstrapLayouts",
		"bootstrap-layouts/kubebuilder-url": "TestKubebuilderURLs",
		"bootstrap-layouts/talos-elsewhere": "TestBootstrapLayouts",
		"bootstrap-layouts/talos-helmfile":  "TestBootstrapLayouts",
		"crd-gate":                          "TestCRDGate",
		"crossplane/provider-same-pass":     "TestCrossplaneFromTheRepository",
		"crossplane/provider-split":         "TestCrossplaneFromTheRepository",
		"crossplane/xrd-same-pass":          "TestCrossplaneFromTheRepository",
		"crossplane/xrd-split":              "TestCrossplaneFromTheRepository",
		"flux-operator":                     "TestFluxInstanceEntryPath",
		"grafana-dashboards":                "TestLiteralTokensSkipGrafanaDashboards",
		"hub-spoke-race":                    "TestAuditNamesTheSpoke",
		"mutual-need/charts":                "TestMutualNeedFixtures",
		"mutual-need/crds":                  "TestMutualNeedFixtures",
		"onedr0p-cert-manager":              "TestOnedr0pCertManager",
	},
	"cmd/standup/testdata/audit": {
		"literal-token": "TestAuditGolden",
		"missing-edge":  "TestAuditGolden",
		"unguarded":     "TestAuditGolden",
	},
}

// fixturePaths are the entry paths of the fixtures whose entry is not
// found by its layout (a directory under clusters/, or ending in
// flux/cluster): they replace what findFixtures finds.
var fixturePaths = map[string][]string{
	"pkg/audit/testdata/hub-spoke-race": {"hub"}, // clusters/ holds the spokes' Kustomizations
}

// audited is what the table says of one audit.
type audited struct {
	repo, path                            string
	kustomizations                        int
	errors, warnings, notices             int
	warningsBy                            map[string]int // code -> findings
	errorLines                            map[string]int // "CODE Kind.group ns/name" -> places
	warningLines                          map[string]bool
	errorCodes, warningCodes, noticeCodes []string
}

// auditOf runs audit -o json on path and sums it up.
func auditOf(t *testing.T, bin, repo, path, root string) audited {
	t.Helper()
	out, errOut, code := run(t, bin, "audit", "--path", path, "--repo-root", root, "-o", "json", "-q")
	var doc struct {
		Summary struct {
			Kustomizations, Errors, Warnings, Notices int
		} `json:"summary"`
		Findings []struct {
			Code     string `json:"code"`
			Severity string `json:"severity"`
			Kind     struct{ Group, Kind string }
			Places   []struct {
				Severity      string                           `json:"severity"`
				Kustomization struct{ Namespace, Name string } `json:"kustomization"`
			} `json:"places"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("audit -o json of %s (exit %d): %v\nstderr: %s", path, code, err, errOut)
	}
	a := audited{repo: repo, kustomizations: doc.Summary.Kustomizations,
		errors: doc.Summary.Errors, warnings: doc.Summary.Warnings, notices: doc.Summary.Notices,
		warningsBy: map[string]int{}, errorLines: map[string]int{}, warningLines: map[string]bool{}}
	for _, f := range doc.Findings {
		gk := f.Kind.Kind + "." + f.Kind.Group
		switch f.Severity {
		case "error":
			a.errorCodes = appendOnce(a.errorCodes, f.Code)
		case "warning":
			a.warningCodes = appendOnce(a.warningCodes, f.Code)
			a.warningsBy[f.Code]++
		default:
			a.noticeCodes = appendOnce(a.noticeCodes, f.Code)
		}
		for _, p := range f.Places {
			line := fmt.Sprintf("%s %s %s/%s", f.Code, gk, p.Kustomization.Namespace, p.Kustomization.Name)
			switch p.Severity {
			case "error":
				a.errorLines[line]++
			case "warning":
				a.warningLines[line] = true
			}
		}
	}
	return a
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// TestAuditPrecisionTableIsCurrent audits every corpus repository (each
// entry path of MANIFEST.md) and every audit fixture, and holds
// docs/audit.md's audit:precision block to what they find: per
// repository the errors, warnings (per code) and notices; every error of
// the corpus with its verdict (verdicts_test.go); the warnings read
// (sampled) and how many hold. It fails when an error has no verdict,
// when a verdict or a sampled warning names a finding no longer reported,
// when an error's verdict is that it is false (fix the audit instead), and
// when the block differs from what it would write: -update rewrites it,
// naming the commit and the command. It fails, never skips, when CI is
// set and the corpus is missing.
func TestAuditPrecisionTableIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("the corpus renders a dozen real repositories: not a -short test")
	}
	dir := corpusDir()
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST.md")); err != nil {
		ciskip.Skipf(t, "corpus missing at %s: %v", dir, err)
	}
	bin := buildStandup(t)

	var corpus []audited
	for _, e := range readManifest(t, dir) {
		for _, p := range e.paths {
			a := auditOf(t, bin, e.dir, filepath.Join(dir, e.dir, p), filepath.Join(dir, e.repoRoot))
			a.path = p
			corpus = append(corpus, a)
		}
	}
	checkVerdicts(t, corpus)
	for _, e := range readManifest(t, dir) {
		for _, p := range e.paths {
			checkUpstream(t, bin, dir, e, p)
		}
	}

	var fixtures []audited
	for _, f := range findFixtures(t) {
		a := auditOf(t, bin, f.repo, filepath.Join("..", "..", f.root, f.path), filepath.Join("..", "..", f.root))
		a.repo, a.path = f.root, f.path
		fixtures = append(fixtures, a)
	}

	block := precisionBlock(corpus, fixtures)
	page, err := os.ReadFile(precisionDoc)
	if err != nil {
		t.Fatal(err)
	}
	m := precisionBlockRE.FindSubmatchIndex(page)
	if m == nil {
		t.Fatalf("%s has no audit:precision block (<!-- audit:precision begin --> ... <!-- audit:precision end -->)", precisionDoc)
	}
	current := string(page[m[2]:m[3]])
	if *update {
		header := fmt.Sprintf("Generated at `%s` on %s with `%s`:\n", headCommit(), time.Now().UTC().Format("2006-01-02"), precisionCommand)
		out := string(page[:m[2]]) + header + block + string(page[m[3]:])
		if err := os.WriteFile(precisionDoc, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	// The header (commit, date) is the block's first line.
	_, body, _ := strings.Cut(current, "\n")
	if body != block {
		t.Errorf("docs/audit.md's audit:precision block is not what the audits find: run %s\n--- got\n%s\n--- want\n%s", precisionCommand, body, block)
	}
}

var precisionBlockRE = regexp.MustCompile(`(?s)<!-- audit:precision begin -->\n(.*?)<!-- audit:precision end -->`)

// checkVerdicts holds the corpus's errors to verdicts and its warnings to
// sampled.
func checkVerdicts(t *testing.T, corpus []audited) {
	t.Helper()
	seen := map[string]bool{}
	for _, a := range corpus {
		name := a.repo + " " + a.path
		seen[name] = true
		for line := range a.errorLines {
			v, ok := verdicts[name][line]
			switch {
			case !ok:
				t.Errorf("%s: error %q has no verdict: read it in the repository, and add it to verdicts (or fix the audit)", name, line)
			case !v.holds:
				t.Errorf("%s: error %q is false (%s): fix the audit, with a fixture, rather than keep the verdict", name, line, v.why)
			}
		}
		for line, v := range verdicts[name] {
			if _, ok := a.errorLines[line]; !ok {
				t.Errorf("%s: verdicts names %q, which the audit no longer reports as an error", name, line)
			}
			if v.why == "" {
				t.Errorf("%s: the verdict on %q says not why", name, line)
			}
		}
		for line, v := range sampled[name] {
			if !a.warningLines[line] {
				t.Errorf("%s: sampled names %q, which the audit no longer reports as a warning", name, line)
			}
			if v.why == "" {
				t.Errorf("%s: the verdict on %q says not why", name, line)
			}
		}
	}
	for name := range sampled {
		if !seen[name] {
			t.Errorf("sampled names %q, which MANIFEST.md does not list", name)
		}
	}
}

// checkUpstream holds the verdicts "true of the snapshot" of one corpus
// entry to what upstream adds: testdata/upstream/<dir> overlaid on a copy
// of the snapshot, its top made a git repository as upstream is, the
// audit reports exactly the errors whose verdicts have no upstream.
func checkUpstream(t *testing.T, bin, dir string, e entry, p string) {
	t.Helper()
	name := e.dir + " " + p
	var want []string
	some := false
	for line, v := range verdicts[name] {
		if v.upstream == "" {
			want = append(want, line)
		} else {
			some = true
		}
	}
	overlay := filepath.Join("testdata", "upstream", e.dir)
	if _, err := os.Stat(overlay); err != nil {
		if some {
			t.Errorf("%s: verdicts say some errors are the snapshot's only, and %s does not hold what upstream adds: %v", name, overlay, err)
		}
		return
	}
	if !some {
		t.Errorf("%s: %s holds what upstream adds, and no verdict says an error is the snapshot's only", name, overlay)
	}
	copyDir := filepath.Join(t.TempDir(), e.dir)
	copyTree(t, filepath.Join(dir, e.dir), copyDir)
	copyTree(t, overlay, copyDir)
	// Upstream is a git repository: its top is the git root, whose
	// bootstrap directories count beside the repository root's.
	if err := os.MkdirAll(filepath.Join(copyDir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(copyDir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(copyDir, strings.TrimPrefix(strings.TrimPrefix(e.repoRoot, e.dir), string(filepath.Separator)))
	a := auditOf(t, bin, e.dir, filepath.Join(copyDir, p), root)
	got := slices.Sorted(maps.Keys(a.errorLines))
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s with %s: errors\n got %q\nwant %q (those whose verdict names nothing upstream)", name, overlay, got, want)
	}
}

// fixture is one repository of an audit fixture, and one entry path of it.
type fixture struct{ repo, root, path string }

// findFixtures lists the entry paths of every fixture of fixtureRoots:
// the directories under clusters/ and those ending in flux/cluster, each
// of the repository holding it (the fixture directory). A fixture
// directory fixtureRoots does not name, or whose test is gone, fails.
func findFixtures(t *testing.T) []fixture {
	t.Helper()
	var out []fixture
	for top, repos := range fixtureRoots {
		base := filepath.Join("..", "..", filepath.FromSlash(top))
		found := map[string]bool{}
		err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(base, p)
			rel = filepath.ToSlash(rel)
			segs := strings.Split(rel, "/")
			at := -1
			switch {
			case len(segs) >= 2 && segs[len(segs)-2] == "clusters":
				at = len(segs) - 2
			case strings.HasSuffix(rel, "/flux/cluster"):
				at = slices.Index(segs, "kubernetes")
			}
			if at <= 0 {
				return nil
			}
			repo := strings.Join(segs[:at], "/")
			found[repo] = true
			out = append(out, fixture{repo: repo, root: filepath.ToSlash(filepath.Join(top, repo)), path: strings.Join(segs[at:], "/")})
			return filepath.SkipDir
		})
		if err != nil {
			t.Fatal(err)
		}
		for repo := range found {
			name, ok := repos[repo]
			if !ok {
				t.Errorf("fixture %s/%s: fixtureRoots names no test that pins its findings", top, repo)
				continue
			}
			if !testDefined(t, filepath.Join(base, "..", ".."), name) && !testDefined(t, filepath.Join(base, ".."), name) {
				t.Errorf("fixture %s/%s: %s is not a test of its package", top, repo, name)
			}
		}
		for repo := range repos {
			if !found[repo] {
				t.Errorf("fixtureRoots names %s/%s, which holds no clusters/ or flux/cluster", top, repo)
			}
		}
	}
	out = slices.DeleteFunc(out, func(f fixture) bool { return fixturePaths[f.root] != nil })
	for root, paths := range fixturePaths {
		top, repo := path.Split(root)
		for _, p := range paths {
			out = append(out, fixture{repo: path.Clean(top) + "/" + repo, root: root, path: p})
		}
	}
	slices.SortFunc(out, func(a, b fixture) int {
		return strings.Compare(a.root+" "+a.path, b.root+" "+b.path)
	})
	return out
}

// testDefined reports whether a _test.go file of the package in dir
// defines the test name.
func testDefined(t *testing.T, dir, name string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "\nfunc "+name+"(t *testing.T)") {
			return true
		}
	}
	return false
}

// fixtureTest names the test pinning the fixture's findings.
func fixtureTest(root string) string {
	for top, repos := range fixtureRoots {
		if repo, ok := strings.CutPrefix(root, top+"/"); ok {
			return repos[repo]
		}
	}
	return ""
}

// precisionBlock writes the tables of the block, after its header line.
func precisionBlock(corpus, fixtures []audited) string {
	var b strings.Builder
	b.WriteString("\nEvery corpus repository (`../shared/corpus`, each `--path` of its MANIFEST.md, no `standup.yaml`): findings by severity (a finding is one code for one kind; an error's places are counted apart), warnings by code, and the warnings read one by one:\n\n")
	b.WriteString("| repository | `--path` | Kustomizations | errors (places) | warnings | notices | warnings by code | warnings read: true, false |\n|---|---|---|---|---|---|---|---|\n")
	var lines, notes []string
	total, holds, snapshot, reads, readsTrue := 0, 0, 0, 0, 0
	for _, a := range corpus {
		name := a.repo + " " + a.path
		places := 0
		for line, n := range a.errorLines {
			places += n
			v := verdicts[name][line]
			total++
			if v.holds {
				holds++
				if v.upstream != "" {
					snapshot++
				}
			}
			word := "false"
			switch {
			case v.holds && v.upstream != "":
				n := slices.Index(notes, v.upstream)
				if n < 0 {
					notes, n = append(notes, v.upstream), len(notes)
				}
				word = fmt.Sprintf("true of the snapshot (%d)", n+1)
			case v.holds:
				word = "true"
			}
			why := v.why
			f := strings.Fields(line)
			lines = append(lines, fmt.Sprintf("| %s | `%s` | `%s` | %s | %d | %s | %s |", a.repo, f[0], f[1], f[2], n, word, why))
		}
		byCode := "–"
		if len(a.warningsBy) > 0 {
			var parts []string
			for _, c := range slices.Sorted(maps.Keys(a.warningsBy)) {
				parts = append(parts, fmt.Sprintf("`%s` %d", c, a.warningsBy[c]))
			}
			byCode = strings.Join(parts, ", ")
		}
		read := "–"
		if s := sampled[name]; len(s) > 0 {
			yes := 0
			for _, v := range s {
				if v.holds {
					yes++
				}
			}
			reads += len(s)
			readsTrue += yes
			read = fmt.Sprintf("%d: %d, %d", len(s), yes, len(s)-yes)
		}
		errs := fmt.Sprint(a.errors)
		if a.errors > 0 {
			errs = fmt.Sprintf("%d (%d)", a.errors, places)
		}
		fmt.Fprintf(&b, "| %s | `%s` | %d | %s | %d | %d | %s | %s |\n", a.repo, a.path, a.kustomizations, errs, a.warnings, a.notices, byCode, read)
	}
	slices.Sort(lines)
	fmt.Fprintf(&b, "\nVerdicts: %d errors (by code, kind and Kustomization), each read in its repository: %d true, %d of them true of the snapshot only (upstream, a file the snapshot leaves out installs the CRD first), %d false. Warnings read: %d, %d true, %d false.\n\n", total, holds, snapshot, total-holds, reads, readsTrue, reads-readsTrue)
	b.WriteString("| repository | code | kind | Kustomization | places | verdict | why |\n|---|---|---|---|---|---|---|\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	for i, n := range notes {
		fmt.Fprintf(&b, "\n(%d) Upstream, %s.\n", i+1, n)
	}
	var wrong []string
	for _, a := range corpus {
		name := a.repo + " " + a.path
		for _, line := range slices.Sorted(maps.Keys(sampled[name])) {
			if v := sampled[name][line]; !v.holds {
				f := strings.Fields(line)
				wrong = append(wrong, fmt.Sprintf("| %s | `%s` | `%s` | %s | %s |", a.repo, f[0], f[1], f[2], v.why))
			}
		}
	}
	if len(wrong) > 0 {
		b.WriteString("\nWarnings read that are false:\n\n| repository | code | kind | Kustomization | why |\n|---|---|---|---|---|\n")
		for _, l := range wrong {
			b.WriteString(l + "\n")
		}
	}
	b.WriteString("\nThe fixtures (`pkg/audit/testdata`, `cmd/standup/testdata/audit`), each entry path: what each finds is what it was written for, and the test named pins it.\n\n")
	b.WriteString("| fixture | `--path` | errors | warnings | notices | codes | pinned by |\n|---|---|---|---|---|---|---|\n")
	for _, a := range fixtures {
		var codes []string
		for _, c := range append(append(slices.Clone(a.errorCodes), a.warningCodes...), a.noticeCodes...) {
			codes = append(codes, "`"+c+"`")
		}
		cs := "–"
		if len(codes) > 0 {
			cs = strings.Join(codes, ", ")
		}
		fmt.Fprintf(&b, "| %s | `%s` | %d | %d | %d | %s | `%s` |\n", a.repo, a.path, a.errors, a.warnings, a.notices, cs, fixtureTest(a.repo))
	}
	return b.String()
}

// headCommit is the short hash of HEAD, or "unknown".
func headCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
