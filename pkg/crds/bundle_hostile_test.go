package crds

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubestandup/standup/internal/ciskip"
)

// A hostile file in a CRD bundle is one line of LoadBundle's error, naming
// the file, and the bundle is refused; nothing blocks or explodes.
func TestLoadBundleBoundsHostileFiles(t *testing.T) {
	bomb, err := os.ReadFile(filepath.Join("testdata", "hostile", "alias-bomb.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		// make writes the hostile file at path.
		make func(t *testing.T, path string)
		want string
	}{{
		name: "alias bomb",
		make: func(t *testing.T, path string) { write(t, path, string(bomb)) },
		want: ": document 1: YAML aliases expand the file by more than 100000 nodes",
	}, {
		name: "named pipe",
		make: func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				ciskip.Skipf(t, "mkfifo: %v", err)
			}
		},
		want: ": not a regular file (a named pipe, which would block the read)",
	}, {
		name: "deep nesting",
		make: func(t *testing.T, path string) {
			write(t, path, "spec: "+strings.Repeat("[", 1500)+strings.Repeat("]", 1500)+"\n")
		},
		want: ": document 1: nested deeper than 1000 levels",
	}, {
		name: "directory named like a manifest",
		make: func(t *testing.T, path string) {
			if err := os.Mkdir(path+".d", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(path+".d", path); err != nil {
				t.Fatal(err)
			}
		},
		want: ": not a regular file (a directory)",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "widgets.yaml"), validCRD)
			bad := filepath.Join(dir, "sub", "x.yaml")
			if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
				t.Fatal(err)
			}
			tt.make(t, bad)
			done := make(chan error, 1)
			go func() {
				b, err := LoadBundle(dir)
				if b != nil {
					t.Errorf("LoadBundle returned a bundle of %d CRDs along with the hostile file", b.Len())
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("LoadBundle accepted the bundle")
				}
				if got := strings.Split(err.Error(), "\n"); len(got) != 1 || !strings.HasPrefix(got[0], bad+tt.want) {
					t.Fatalf("error lines %q, want one: %s%s...", got, bad, tt.want)
				}
			case <-time.After(time.Minute):
				t.Fatal("LoadBundle still running after a minute")
			}
		})
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
