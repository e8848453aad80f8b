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

func TestOverlayKeepsGeneratedFilesInMemory(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a/cm.yaml": "x: 1\n"})
	disk, err := newBuilder(dir)
	if err != nil {
		t.Fatal(err)
	}
	o := newOverlayFS(disk.disk)
	kfile := filepath.Join(dir, "a", "kustomization.yaml")
	if err := o.WriteFile(kfile, []byte("resources: [cm.yaml]\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(kfile); !os.IsNotExist(err) {
		t.Fatalf("the generated file reached the disk: %v", err)
	}
	if !o.Exists(kfile) || o.IsDir(kfile) {
		t.Fatal("the generated file is not seen as a file")
	}
	data, err := o.ReadFile(kfile)
	if err != nil || string(data) != "resources: [cm.yaml]\n" {
		t.Fatalf("ReadFile = %q, %v", data, err)
	}
	names, err := o.ReadDir(filepath.Join(dir, "a"))
	if err != nil || len(names) != 2 {
		t.Fatalf("ReadDir = %v, %v; want cm.yaml and kustomization.yaml", names, err)
	}
	matches, err := o.Glob(filepath.Join(dir, "a", "*.yaml"))
	if err != nil || len(matches) != 2 {
		t.Fatalf("Glob = %v, %v", matches, err)
	}
}
