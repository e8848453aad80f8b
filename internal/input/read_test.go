package input

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubestandup/standup/internal/ciskip"
)

// file makes one kind of file in dir and returns its path.
type file func(t *testing.T, dir string) string

func regular(content string) file {
	return func(t *testing.T, dir string) string {
		path := filepath.Join(dir, "x.yaml")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
}

func fifo(t *testing.T, dir string) string {
	path := filepath.Join(dir, "x.yaml")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		ciskip.Skipf(t, "mkfifo: %v", err)
	}
	return path
}

func symlinkTo(target file) file {
	return func(t *testing.T, dir string) string {
		sub := filepath.Join(dir, "target")
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "link.yaml")
		if err := os.Symlink(target(t, sub), path); err != nil {
			t.Fatal(err)
		}
		return path
	}
}

func oversize(t *testing.T, dir string) string {
	path := filepath.Join(dir, "x.yaml")
	if err := os.WriteFile(path, bytes.Repeat([]byte("# padding\n"), MaxFileSize/10+1), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadFile(t *testing.T) {
	manifest := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
	tests := []struct {
		name string
		make file
		// want is a part of the *LimitError's reason, "" when the read succeeds.
		want string
	}{
		{name: "manifest", make: regular(manifest)},
		{name: "a few aliases", make: regular(fixture(t, "anchors.yaml"))},
		{name: "not YAML", make: regular("\x00\x01 binary")},
		{name: "symlink to a manifest", make: symlinkTo(regular(manifest))},
		// A file at the size limit is TestReadFileAtTheSizeLimit's.
		{name: "named pipe", make: fifo, want: "not a regular file (a named pipe, which would block the read)"},
		{name: "symlink to a named pipe", make: symlinkTo(fifo), want: "not a regular file (a named pipe"},
		{name: "directory", make: func(t *testing.T, dir string) string { return dir }, want: "not a regular file (a directory)"},
		{name: "device", make: func(*testing.T, string) string { return "/dev/null" }, want: "not a regular file (a device)"},
		{name: "oversize", make: oversize, want: "larger than the 16 MiB limit (16.0 MiB); split it into smaller files"},
		{name: "alias bomb", make: regular(fixture(t, "alias-bomb.yaml")), want: "YAML aliases expand the file"},
		{name: "deep", make: regular(nested(MaxDepth + 1)), want: "nested deeper than 1000 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assertReadFile(t, tt.make, tt.want) })
	}
}

// assertReadFile checks ReadFile on the file make makes: its content when
// want is "", else a *LimitError that names the file and whose reason holds
// want.
func assertReadFile(t *testing.T, make file, want string) {
	t.Helper()
	path := make(t, t.TempDir())
	// The limit catches a read that blocks for good (a FIFO), not a slow
	// one: 16 MiB pre-scanned under the race detector on a loaded 2-core
	// machine took over a minute.
	data, err := readWithin(t, path, 5*time.Minute)
	if want == "" {
		if err != nil {
			t.Fatalf("ReadFile = %v", err)
		}
		if len(data) == 0 {
			t.Fatal("ReadFile read nothing")
		}
		return
	}
	lim, ok := IsLimit(err)
	if !ok {
		t.Fatalf("ReadFile = %v, want a *LimitError", err)
	}
	if lim.File != path || !strings.Contains(lim.Reason, want) || !strings.HasPrefix(err.Error(), path+": ") {
		t.Fatalf("ReadFile = %q, want %s: ...%s...", err, path, want)
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := ReadFile(filepath.Join(t.TempDir(), "absent.yaml"))
	if _, ok := IsLimit(err); ok || !os.IsNotExist(err) {
		t.Fatalf("ReadFile = %v, want the os package's not-exist error", err)
	}
}

// TestCheckRegular checks the check made before a library opens a file.
func TestCheckRegular(t *testing.T) {
	dir := t.TempDir()
	if err := CheckRegular(regular("a: 1\n")(t, dir)); err != nil {
		t.Fatalf("CheckRegular(regular file) = %v", err)
	}
	if _, ok := IsLimit(CheckRegular(fifo(t, t.TempDir()))); !ok {
		t.Fatal("CheckRegular(named pipe) is not a *LimitError")
	}
}

// readWithin reads path, failing the test rather than hanging when the read
// blocks.
func readWithin(t *testing.T, path string, limit time.Duration) ([]byte, error) {
	t.Helper()
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := ReadFile(path)
		done <- result{data, err}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	select {
	case r := <-done:
		return r.data, r.err
	case <-ctx.Done():
		t.Fatalf("ReadFile(%s) still blocked after %v", path, limit)
		return nil, nil
	}
}
