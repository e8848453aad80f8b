package crds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadBundleOrDefault(t *testing.T) {
	valid, err := filepath.Abs("testdata/bundle")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		dir         string
		withDefault bool // a valid bundle at DefaultBundleDir in the working directory
		wantDir     string
		wantBundle  bool
		wantErr     string
	}{
		{name: "neither given nor default: no bundle", wantDir: ""},
		{name: "default when it exists", withDefault: true, wantDir: DefaultBundleDir, wantBundle: true},
		{name: "given wins over the default", dir: valid, withDefault: true, wantDir: valid, wantBundle: true},
		{name: "given and missing: an error naming it", dir: "nosuch", wantDir: "nosuch",
			wantErr: "CRD bundle nosuch is invalid, nothing was applied: crd bundle nosuch: stat nosuch: no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if tt.withDefault {
				if err := os.CopyFS(DefaultBundleDir, os.DirFS(valid)); err != nil {
					t.Fatal(err)
				}
			}
			if got := BundleDir(tt.dir); got != tt.wantDir {
				t.Errorf("BundleDir(%q) = %q, want %q", tt.dir, got, tt.wantDir)
			}
			b, err := LoadBundleOrDefault(tt.dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (b != nil) != tt.wantBundle || (b != nil && b.Len() == 0) {
				t.Errorf("bundle = %v, want one: %v", b, tt.wantBundle)
			}
		})
	}
}

func TestBundleDirIgnoresADefaultThatIsAFile(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll(filepath.Dir(DefaultBundleDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(DefaultBundleDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := LoadBundleOrDefault(""); b != nil || err != nil {
		t.Errorf("LoadBundleOrDefault(\"\") = %v, %v; want no bundle and no error", b, err)
	}
}
