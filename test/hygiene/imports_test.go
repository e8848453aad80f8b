package hygiene

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const auditPkg = "github.com/kubestandup/standup/pkg/audit"

// TestLiveCommandsDoNotImportTheLinter: issue 35. resume, crds and check
// read standup.yaml and the runtime-trigger facts from pkg/config, and a
// checkout's slow Kustomizations from pkg/render; the cold-start linter,
// pkg/audit, is the audit command's alone. Neither a live command's file
// nor any package a live command uses may import it, directly or not.
func TestLiveCommandsDoNotImportTheLinter(t *testing.T) {
	root := filepath.Join("..", "..")
	live := []string{"resume.go", "resume_checkout.go", "resume_input.go", "resume_plan.go", "resume_walk.go",
		"crds.go", "crds_capture.go", "triggers.go", "check.go", "cluster.go"}
	var files []string
	for _, f := range live {
		files = append(files, filepath.Join("cmd", "standup", f))
	}
	found, err := ImportersOf(root, files, auditPkg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s imports %s: a live command reads standup.yaml from pkg/config", f, auditPkg)
	}
	for _, pkg := range []string{"./pkg/wait", "./pkg/crds", "./pkg/config", "./pkg/check", "./pkg/render/...", "./pkg/flux", "./pkg/kube", "./pkg/tiers"} {
		cmd := exec.CommandContext(context.Background(), "go", "list", "-deps", pkg)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		if !strings.Contains(string(out), "github.com/kubestandup/standup/pkg/tiers") && pkg != "./pkg/kube" {
			t.Fatalf("go list -deps %s listed no standup package: not this module", pkg)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == auditPkg {
				t.Errorf("%s depends on %s", pkg, auditPkg)
			}
		}
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
