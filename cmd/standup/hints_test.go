package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoRepoRootSaysWhatToDo: a checkout without .git or standup.yaml is
// refused with the command line that works, --repo-root . from the top of
// the checkout; that line then runs.
func TestNoRepoRootSaysWhatToDo(t *testing.T) {
	top := t.TempDir()
	if err := os.CopyFS(top, os.DirFS("../../examples/homelab")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(top, "standup.yaml")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(top)
	for _, command := range []string{"tiers", "audit"} {
		_, errOut, code := run(t, "standup", command, "--path", "clusters/prod", "-q")
		want := "standup: no repository root found: no .git or standup.yaml in or above clusters/prod; name the top of the checkout, where spec.path starts, with --repo-root: from there, standup " + command + " --path clusters/prod --repo-root .\n"
		if code != ExitFailure || errOut != want {
			t.Errorf("%s: exit %d, stderr %q\nwant exit 1 and %q", command, code, errOut, want)
		}
		out, errOut, code := run(t, "standup", command, "--path", "clusters/prod", "--repo-root", ".", "-q")
		if code != ExitOK || !strings.Contains(out, "flux-system/apps") && !strings.Contains(out, "0 errors") {
			t.Errorf("%s --repo-root .: exit %d: %s%s", command, code, out, errOut)
		}
	}
	if got := shellWord("my checkout/it's"); got != `'my checkout/it'\''s'` {
		t.Errorf("shellWord = %s", got)
	}
}
