package hygiene

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepositoryTracksNoBinaries is the check itself, on this repository.
func TestRepositoryTracksNoBinaries(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := Tracked(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("git ls-files listed %d files: not this repository's work tree", len(files))
	}
	found, err := Check(root, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range found {
		t.Errorf("tracked file must go: %s", v)
	}
}

// TestCheckFindsPlantedFiles plants each kind of file the check refuses, and
// its look-alikes it must let through, in a git repository of its own.
func TestCheckFindsPlantedFiles(t *testing.T) {
	elf := append([]byte{0x7f, 'E', 'L', 'F', 2, 1, 1}, make([]byte, 64)...)
	pe := make([]byte, 0x90)
	copy(pe, "MZ")
	pe[0x3c] = 0x80
	copy(pe[0x80:], "PE\x00\x00")
	macho := append([]byte{0xcf, 0xfa, 0xed, 0xfe}, make([]byte, 32)...)
	big := bytes.Repeat([]byte("a line of text\n"), MaxTrackedSize/15+100)
	tests := []struct {
		file    string
		content []byte
		refused string // "" when the file is allowed
	}{
		{"standup", elf, "an ELF binary"},
		{"dist/standup.exe", pe, "a Windows PE binary"},
		{"testdata/standup-darwin", macho, "a Mach-O binary"},
		{"docs/huge.md", big, "bytes, over the"},
		{"pkg/x/testdata/huge.yaml", big, ""},
		{"notes/mz.txt", []byte("MZ is where this note starts, and it is text\n"), ""},
		{"README.md", []byte("# small\n"), ""},
	}
	root := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "-q")
	for _, tt := range tests {
		name := filepath.Join(root, filepath.FromSlash(tt.file))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, tt.content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", "-A")
	files, err := Tracked(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(tests) {
		t.Fatalf("tracked %d files, want %d: %v", len(files), len(tests), files)
	}
	found, err := Check(root, files)
	if err != nil {
		t.Fatal(err)
	}
	refused := map[string]string{}
	for _, v := range found {
		refused[v.File] = v.Reason
	}
	for _, tt := range tests {
		got, ok := refused[tt.file]
		switch {
		case tt.refused == "" && ok:
			t.Errorf("%s refused (%s), want allowed", tt.file, got)
		case tt.refused != "" && !ok:
			t.Errorf("%s allowed, want refused as %q", tt.file, tt.refused)
		case tt.refused != "" && !strings.Contains(got, tt.refused):
			t.Errorf("%s refused as %q, want %q", tt.file, got, tt.refused)
		}
	}
}
