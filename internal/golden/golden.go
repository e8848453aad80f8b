package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Compare fails t when got differs from the golden file at path; with
// update it writes got there instead (and the directories above it).
func Compare(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run go test -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
