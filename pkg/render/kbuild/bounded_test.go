package kbuild

import (
	"os"
	"path/filepath"
	"testing"

	securefs "github.com/fluxcd/pkg/kustomize/filesys"

	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
)

// TestBoundedFSMatchesSecure holds boundedFS's one-lstat answers
// (statPlain) to the secure file system's, on a tree with symlinks inside
// and out of the root, missing paths, and paths that are not clean.
func TestBoundedFSMatchesSecure(t *testing.T) {
	top, err := canonical(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside := filepath.Join(top, "repo"), filepath.Join(top, "outside")
	rendertest.WriteFiles(t, root, map[string]string{"a/f.yaml": "a: 1\n", "a/sub/g.yaml": "b: 2\n"})
	rendertest.WriteFiles(t, outside, map[string]string{"file.yaml": "c: 3\n"})
	for link, target := range map[string]string{
		"link-in": filepath.Join(root, "a"), "link-out": outside,
		"flink": filepath.Join(root, "a", "f.yaml"), "flink-out": filepath.Join(outside, "file.yaml"),
		"a/up": root,
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	secure, err := securefs.MakeFsOnDiskSecure(root)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{
		root, filepath.Join(root, "a"), filepath.Join(root, "a", "f.yaml"), filepath.Join(root, "a", "sub"),
		filepath.Join(root, "a", "sub", "g.yaml"), filepath.Join(root, "a", "missing"), filepath.Join(root, "missing", "x.yaml"),
		filepath.Join(root, "link-in"), filepath.Join(root, "link-in", "f.yaml"), filepath.Join(root, "link-out"),
		filepath.Join(root, "link-out", "file.yaml"), filepath.Join(root, "flink"), filepath.Join(root, "flink-out"),
		filepath.Join(root, "a", "up"), filepath.Join(root, "a", "up", "a", "f.yaml"), outside, filepath.Join(outside, "file.yaml"),
		top, "a/f.yaml", root + "/a/../a/f.yaml", root + "/a/./sub",
	}
	fast := newBoundedFS(secure, root)
	for _, p := range paths {
		if got, want := fast.Exists(p), secure.Exists(p); got != want {
			t.Errorf("Exists(%s) = %v, the secure file system says %v", p, got, want)
		}
		if got, want := fast.IsDir(p), secure.IsDir(p); got != want {
			t.Errorf("IsDir(%s) = %v, the secure file system says %v", p, got, want)
		}
	}
	for _, p := range []string{filepath.Join(root, "a", "sub", "g.yaml"), filepath.Join(root, "a", "missing")} {
		if !fast.statPlain(p).known {
			t.Errorf("statPlain(%s) does not answer: the shortcut is never taken", p)
		}
	}
}
