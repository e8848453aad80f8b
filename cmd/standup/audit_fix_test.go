package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixCopy copies the audit fixture name to a temporary directory, for
// --fix to write into, and returns its --path.
func fixCopy(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "audit", name))); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "clusters", "prod")
}

// TestAuditFixGolden runs audit --fix on copies of the missing-edge and
// unguarded fixtures: --dry-run prints the diff and the edits and writes
// nothing (text, json and -o diff); --fix writes them, says so on stderr and
// prints the audit after the fix, clean; a second --fix has nothing to
// write.
func TestAuditFixGolden(t *testing.T) {
	for _, name := range []string{"missing-edge", "unguarded"} {
		t.Run(name, func(t *testing.T) {
			path := fixCopy(t, name)
			ks := filepath.Join(path, "platform.yaml")
			if name == "missing-edge" {
				ks = filepath.Join(path, "apps.yaml")
			}
			before, err := os.ReadFile(ks)
			if err != nil {
				t.Fatal(err)
			}
			for _, format := range []string{"text", "json", "diff"} {
				out, errOut, code := runOffline(t, "audit", "--fix", "--dry-run", "--path", path, "-o", format, "--no-color")
				if code != ExitOK {
					t.Fatalf("--dry-run -o %s: exit %d: %s", format, code, errOut)
				}
				auditGolden(t, name+".fix-dry-run."+format, out)
			}
			if after, _ := os.ReadFile(ks); string(after) != string(before) {
				t.Fatal("--dry-run wrote the file")
			}
			out, errOut, code := runOffline(t, "audit", "--fix", "--path", path, "--no-color")
			if code != ExitOK {
				t.Fatalf("--fix: exit %d: %s", code, errOut)
			}
			if !strings.Contains(errOut, "wrote "+strings.TrimPrefix(ks, filepath.Dir(filepath.Dir(path))+"/")) {
				t.Errorf("stderr does not say which file it wrote: %q", errOut)
			}
			auditGolden(t, name+".fix", out)
			out, errOut, code = runOffline(t, "audit", "--fix", "--path", path, "--no-color")
			if code != ExitOK || !strings.HasPrefix(out, "Nothing to write") || strings.Contains(errOut, "wrote") {
				t.Errorf("a second --fix (exit %d) is not a no-op:\n%s\n%s", code, out, errOut)
			}
		})
	}
}

// TestAuditFixKeepsTheDeadlockExitCode: a deadlock --fix cannot edit away
// is listed to be moved, and the audit after the fix exits 1 with it.
func TestAuditFixKeepsTheDeadlockExitCode(t *testing.T) {
	out, errOut, code := runOffline(t, "audit", "--fix", "--path", deadlockCopy(t), "--no-color")
	if code != ExitFailure {
		t.Fatalf("exit %d, want %d: %s", code, ExitFailure, errOut)
	}
	for _, want := range []string{"Need objects moved (1)", "SECOND_ORDER_SAME_PASS  StorageProfile.cdi.kubevirt.io", "Audit after the fix"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
}

func TestAuditFixFlags(t *testing.T) {
	homelab := "../../examples/homelab/clusters/prod"
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--dry-run", "--path", homelab}, "audit: --dry-run needs --fix"},
		{[]string{"--fix", "--from-cluster", "--path", homelab}, "--fix and --from-cluster do not go together"},
		{[]string{"-o", "diff", "--path", homelab}, `audit: unknown output format "diff"`},
		{[]string{"--fix", "-o", "sarif", "--path", homelab}, `audit --fix: unknown output format "sarif" (want one of: text, json, diff)`},
		{[]string{"--fix", "--dry-run"}, "--path is required"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := runOffline(t, append([]string{"audit"}, tt.args...)...)
			if code != ExitUsage || out != "" || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, out, errOut, ExitUsage, tt.want)
			}
		})
	}
}
