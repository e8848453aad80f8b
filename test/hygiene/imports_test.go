package hygiene

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const auditPkg = "github.com/kubestandup/standup/pkg/audit"

const module = "github.com/kubestandup/standup"

// liveCommands are the files of the live commands in cmd/standup, as
// patterns: a file a command gains (resume_x.go) is held too.
var liveCommands = []string{"resume*.go", "crds*.go", "triggers.go", "check.go", "cluster.go"}

// TestLiveCommandsDoNotImportTheLinter: issue 35. resume, crds and check
// read standup.yaml and the runtime-trigger facts from pkg/config, a
// checkout's slow Kustomizations from pkg/render, and print through
// internal/printer; the cold-start linter, pkg/audit, is the audit
// command's alone (its printers are internal/printer/coldstart). Neither a
// live command's file nor any package of this module it imports may
// depend on it, directly or not: each such package is found from the
// files' own imports and its dependencies listed by go list -deps, so a
// package a live command starts to use is held without being named here.
func TestLiveCommandsDoNotImportTheLinter(t *testing.T) {
	root := filepath.Join("..", "..")
	var files []string
	for _, pattern := range liveCommands {
		matches, err := filepath.Glob(filepath.Join(root, "cmd", "standup", pattern))
		if err != nil {
			t.Fatal(err)
		}
		n := len(files)
		for _, m := range matches {
			if !strings.HasSuffix(m, "_test.go") {
				files = append(files, filepath.Join("cmd", "standup", filepath.Base(m)))
			}
		}
		if len(files) == n {
			t.Fatalf("no live command file matches cmd/standup/%s: renamed? update liveCommands", pattern)
		}
	}
	found, err := ImportersOf(root, files, auditPkg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s imports %s: a live command reads standup.yaml from pkg/config", f, auditPkg)
	}
	imports, err := Imports(root, files)
	if err != nil {
		t.Fatal(err)
	}
	var own []string
	for _, p := range imports {
		if strings.HasPrefix(p, module+"/") {
			own = append(own, p)
		}
	}
	for _, want := range []string{module + "/internal/printer", module + "/pkg/wait", module + "/pkg/crds"} {
		if !slices.Contains(own, want) {
			t.Fatalf("the live commands' imports %v lack %s: not this module's live commands", own, want)
		}
	}
	chains, err := ChainsTo(context.Background(), root, own, auditPkg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range own {
		if chain, ok := chains[p]; ok {
			t.Errorf("the live commands import %s, which depends on the linter: %s", p, strings.Join(chain, " -> "))
		}
	}
}

// TestChainsToNamesThePath: the chain is the imports from the package to
// the target, shortest first; a package that does not reach it has none.
func TestChainsToNamesThePath(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), "module m\n\ngo 1.24\n")
	for pkg, src := range map[string]string{
		"a": "package a\nimport _ \"m/b\"\n",
		"b": "package b\nimport (\n\t_ \"m/c\"\n\t_ \"strings\"\n)\n",
		"c": "package c\n",
		"d": "package d\nimport _ \"strings\"\n",
	} {
		if err := os.Mkdir(filepath.Join(dir, pkg), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, pkg, pkg+".go"), src)
	}
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	chains, err := ChainsTo(context.Background(), dir, []string{"m/a", "m/c", "m/d"}, "m/c")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(chains["m/a"], " -> "); got != "m/a -> m/b -> m/c" {
		t.Errorf("chain from m/a = %q, want m/a -> m/b -> m/c", got)
	}
	if _, ok := chains["m/d"]; ok || len(chains["m/c"]) != 1 {
		t.Errorf("chains = %v, want none from m/d and m/c alone from m/c", chains)
	}
}

// TestImportersOfFindsAPlantedImport: the check finds an import, in any
// form, and ignores test files and look-alike paths.
func TestImportersOfFindsAPlantedImport(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.go":      "package a\nimport \"github.com/kubestandup/standup/pkg/audit\"\n",
		"b.go":      "package a\nimport (\n\tx \"github.com/kubestandup/standup/pkg/audit\"\n)\nvar _ = x.Run\n",
		"c.go":      "package a\nimport \"github.com/kubestandup/standup/pkg/auditx\"\n",
		"d_test.go": "package a\nimport \"github.com/kubestandup/standup/pkg/audit\"\n",
	}
	var names []string
	for name, src := range files {
		writeFile(t, filepath.Join(dir, name), src)
		names = append(names, name)
	}
	got, err := ImportersOf(dir, names, auditPkg)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(sorted(got), " ") != "a.go b.go" {
		t.Errorf("ImportersOf = %v, want [a.go b.go]", got)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
