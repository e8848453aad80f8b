package render

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckoutUnderAnyDirectoryName: a checkout renders the same wherever it
// lives. kyaml's in-memory filesystem refused a path component outside
// [a-zA-Z0-9-_.:], so a checkout under "my repos", "a+b", "me@host", "x(1)"
// or "c#" failed with "illegal name ... in directory creation".
func TestCheckoutUnderAnyDirectoryName(t *testing.T) {
	example := filepath.Join("..", "..", "examples", "homelab")
	want := summarize(t, loadExample(t, "homelab", "prod"))
	for _, parent := range []string{"my repos", "a+b", "me@host", "x(1)", "c#", "ünï"} {
		t.Run(parent, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), parent, "homelab")
			if err := os.CopyFS(root, os.DirFS(example)); err != nil {
				t.Fatal(err)
			}
			res, err := Load(context.Background(), Options{Path: filepath.Join(root, "clusters", "prod")})
			if err != nil {
				t.Fatalf("render under %q: %v", parent, err)
			}
			if got := summarize(t, res); got != want {
				t.Fatalf("render under %q differs from the example's own:\n%s", parent, lineDiff(want, got))
			}
		})
	}
}
