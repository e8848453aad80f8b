package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Kustomization whose build reads a hostile file fails alone: tiers and
// audit print what the rest of the checkout gives, name the file on stderr,
// and exit 1.
func TestOfflineCommandsRenderAroundAHostileFile(t *testing.T) {
	bomb, err := os.ReadFile(filepath.Join("..", "..", "internal", "input", "testdata", "alias-bomb.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	root := hostileCheckout(t)
	writeFile(bomb)(t, filepath.Join(root, "apps", "bad", "bomb.yaml"))
	want := "standup: Kustomization/flux-system/bad not rendered: apps/bad/bomb.yaml: document 1: YAML aliases expand the file by more than 100000 nodes"
	for _, args := range [][]string{
		{"tiers", "-o", "json"},
		{"tiers"},
		{"audit", "-o", "json"},
		{"audit"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out, errOut, code := runOffline(t, append(args, "--path", filepath.Join(root, "clusters", "c"), "--no-color")...)
			if code != ExitFailure {
				t.Errorf("exit %d, want %d", code, ExitFailure)
			}
			if lines := strings.Split(strings.TrimSpace(errOut), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], want) {
				t.Errorf("stderr %q, want one line: %s...", errOut, want)
			}
			if args[0] == "tiers" && (!strings.Contains(out, "good") || !strings.Contains(out, "bad")) {
				t.Errorf("stdout %q, want both Kustomizations", out)
			}
			if len(args) == 3 && args[0] == "audit" && (!strings.Contains(out, `"kustomizations": 1`) || !strings.Contains(out, `"failed": 1`) || !strings.Contains(out, `"unrendered": 0`)) {
				t.Errorf("stdout %q, want the good Kustomization audited and the bad one counted as failed, not unrendered", out)
			}
			if len(args) == 1 && args[0] == "audit" && (!strings.Contains(out, "1 not audited: their build failed") || strings.Contains(out, "another source")) {
				t.Errorf("stdout %q, want the summary to say the bad build failed, not that it builds from another source", out)
			}
		})
	}
}
