package fix

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pmezard/go-difflib/difflib"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var (
	dependsOn = func(name, namespace string) Change { return Change{DependsOn: &Ref{Name: name, Namespace: namespace}} }
	release   = func(name, namespace string) Change {
		return Change{HealthCheck: &Check{APIVersion: "helm.toolkit.fluxcd.io/v2", Kind: "HelmRelease", Name: name, Namespace: namespace}}
	}
	wait = Change{Wait: true}
)

// applyCases each edit a file of testdata/apply; the result is the golden
// file testdata/apply/NAME.golden.
var applyCases = []struct {
	name    string
	file    string
	target  Target
	changes []Change
	// unchanged: every change is there already.
	unchanged bool
	err       string
}{
	{name: "two-spaces", target: Target{Name: "apps", Namespace: "flux-system"},
		changes: []Change{dependsOn("infra", "flux-system"), dependsOn("cert-manager", "cert-manager")}},
	{name: "non-indented", target: Target{Name: "apps", Namespace: "flux-system"},
		changes: []Change{dependsOn("infra", "flux-system")}},
	{name: "four-spaces", target: Target{Name: "apps", Namespace: "flux-system"},
		changes: []Change{dependsOn("crds", "flux-system"), release("cilium", "kube-system")}},
	{name: "existing-list", target: Target{Line: 2, Name: "blog", Namespace: "cicd"},
		changes: []Change{dependsOn("tekton-operator-config", "tekton-operator"), release("tekton", "cicd")}},
	{name: "existing-entry", file: "existing-list", target: Target{Name: "blog", Namespace: "cicd"},
		changes: []Change{dependsOn("tekton-operator", "tekton-operator")}, unchanged: true},
	{name: "multi-document", target: Target{Line: 2, Name: "renovate-operator", Namespace: "renovate"},
		changes: []Change{release("renovate-operator", "renovate")}},
	{name: "multi-document-second", file: "multi-document", target: Target{Line: 16, Name: "renovate-operator-jobs", Namespace: "renovate"},
		changes: []Change{dependsOn("dragonfly", "dbms")}},
	{name: "flow-empty", target: Target{Name: "apps", Namespace: "flux-system"},
		changes: []Change{dependsOn("infra", "flux-system"), dependsOn("cert-manager", "cert-manager")}},
	{name: "flow-list", target: Target{Name: "apps", Namespace: "flux-system"},
		changes: []Change{dependsOn("cert-manager", "cert-manager"), release("cilium", "kube-system")}},
	{name: "empty-value", target: Target{Name: "apps", Namespace: "flux-system"},
		changes: []Change{dependsOn("infra", "flux-system")}},
	{name: "health-checks", target: Target{Name: "cert-manager", Namespace: "cert-manager"},
		changes: []Change{release("cert-manager", "cert-manager")}},
	{name: "wait-false", target: Target{Name: "operator", Namespace: "flux-system"}, changes: []Change{wait}},
	{name: "wait-absent", file: "two-spaces", target: Target{Name: "apps", Namespace: "flux-system"}, changes: []Change{wait}},
	{name: "crlf", target: Target{Name: "apps", Namespace: "flux-system"},
		changes: []Change{dependsOn("crds", "flux-system"), release("cilium", "kube-system")}},
	{name: "no-final-newline", target: Target{Name: "apps", Namespace: "flux-system"},
		changes: []Change{dependsOn("crds", "flux-system")}},
	{name: "prefixed", file: "two-spaces", target: Target{Line: 2, Name: "prod-apps", Namespace: "flux-system"},
		changes: []Change{dependsOn("prod-infra", "flux-system")}},
	{name: "template", target: Target{Name: "immich-postgres-db", Namespace: "database"},
		changes: []Change{dependsOn("cloudnative-pg", "database")}, err: "its document is a template"},
	{name: "anchor", target: Target{Name: "apps", Namespace: "flux-system"},
		changes: []Change{dependsOn("infra", "flux-system")}, err: "anchor"},
	{name: "flow-spec", target: Target{Name: "apps", Namespace: "flux-system"},
		changes: []Change{dependsOn("infra", "flux-system")}, err: "not a block mapping"},
	{name: "wrong-line", file: "multi-document", target: Target{Line: 16, Name: "renovate-operator", Namespace: "renovate"},
		changes: []Change{wait}, err: "the document at line 16 is Kustomization renovate-operator-jobs"},
}

func TestApply(t *testing.T) {
	for _, tc := range applyCases {
		t.Run(tc.name, func(t *testing.T) {
			file := tc.file
			if file == "" {
				file = tc.name
			}
			src, err := os.ReadFile(filepath.Join("testdata", "apply", file+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			got, made, err := Apply(src, tc.target, tc.changes)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				if string(got) != string(src) {
					t.Error("a refused edit changed the bytes")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.unchanged {
				if len(made) != 0 || string(got) != string(src) {
					t.Fatalf("made %v on a file that has them:\n%s", made, got)
				}
				return
			}
			if len(made) != len(tc.changes) {
				t.Errorf("made %v, want %v", made, tc.changes)
			}
			goldenFile(t, filepath.Join("testdata", "apply", tc.name+".golden"), got)
			checkTouched(t, src, got)
			again, made, err := Apply(got, tc.target, tc.changes)
			if err != nil || len(made) != 0 || string(again) != string(got) {
				t.Errorf("a second Apply is not a no-op: made %v, err %v\n%s", made, err, Diff(file, got, again))
			}
		})
	}
}

// touched matches the lines an edit may add or remove: the keys it edits,
// and the items of their lists.
var touched = regexp.MustCompile(`^\s*(dependsOn|healthChecks|wait):|^\s*(-\s+)?(name|namespace|apiVersion|kind):\s`)

// checkTouched holds the edit to its lines: every other line of src is in
// got, byte for byte and in order, and each line added or removed is one
// of dependsOn, healthChecks, wait or their items.
func checkTouched(t *testing.T, src, got []byte) {
	t.Helper()
	a, _ := splitLines(src)
	b, _ := splitLines(got)
	for _, op := range difflib.NewMatcherWithJunk(a, b, false, nil).GetOpCodes() {
		if op.Tag == 'e' {
			continue
		}
		for _, l := range a[op.I1:op.I2] {
			if !touched.MatchString(l) {
				t.Errorf("removed a line it should not touch: %q", l)
			}
		}
		for _, l := range b[op.J1:op.J2] {
			if !touched.MatchString(l) {
				t.Errorf("added a line it should not: %q", l)
			}
		}
	}
}

// goldenFile compares got with the golden file at path; -update rewrites it.
func goldenFile(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n%s", path, Diff(path, want, got))
	}
}

func TestApplyKeepsOtherDocuments(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "apply", "multi-document.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := Apply(src, Target{Line: 16, Name: "renovate-operator-jobs", Namespace: "renovate"}, []Change{dependsOn("dragonfly", "dbms")})
	if err != nil {
		t.Fatal(err)
	}
	// The first document and the ConfigMap keep their bytes.
	before := strings.Split(string(src), "---\n")
	after := strings.Split(string(got), "---\n")
	if len(before) != len(after) {
		t.Fatalf("%d documents, want %d", len(after), len(before))
	}
	for _, i := range []int{0, 2} {
		if before[i] != after[i] {
			t.Errorf("document %d changed:\n%s", i, Diff("doc", []byte(before[i]), []byte(after[i])))
		}
	}
}

// TestDiff pins the unified diff of two edits, one at the end of a file
// without a final line ending.
func TestDiff(t *testing.T) {
	var got strings.Builder
	for _, name := range []string{"existing-list", "no-final-newline"} {
		before, err := os.ReadFile(filepath.Join("testdata", "apply", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		after, err := os.ReadFile(filepath.Join("testdata", "apply", name+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		got.WriteString(Diff("apps/"+name+".yaml", before, after))
	}
	goldenFile(t, filepath.Join("testdata", "diff.golden"), []byte(got.String()))
	if Diff("same", []byte("a\n"), []byte("a\n")) != "" {
		t.Error("the diff of equal files is not empty")
	}
}
