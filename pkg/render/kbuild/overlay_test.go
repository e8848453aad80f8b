package kbuild

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
)

func TestOverlayKeepsGeneratedFilesInMemory(t *testing.T) {
	dir := t.TempDir()
	rendertest.WriteFiles(t, dir, map[string]string{"a/cm.yaml": "x: 1\n"})
	disk, err := New(dir)
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
