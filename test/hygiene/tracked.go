package hygiene

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// MaxTrackedSize is the largest file the repository may track outside a
// testdata/ directory.
const MaxTrackedSize = 1 << 20

// Violation is one tracked file the repository must not hold.
type Violation struct {
	File   string // relative to the repository root, slash-separated
	Reason string
}

func (v Violation) String() string { return v.File + ": " + v.Reason }

// executableMagic are the first bytes of the executable and object formats
// Go and C toolchains write: ELF, PE (MZ), Mach-O (32/64-bit, either byte
// order, and universal), and WebAssembly.
var executableMagic = []struct {
	format string
	magic  []byte
}{
	{"an ELF binary", []byte{0x7f, 'E', 'L', 'F'}},
	{"a Windows PE binary", []byte{'M', 'Z'}},
	{"a Mach-O binary", []byte{0xfe, 0xed, 0xfa, 0xce}},
	{"a Mach-O binary", []byte{0xfe, 0xed, 0xfa, 0xcf}},
	{"a Mach-O binary", []byte{0xce, 0xfa, 0xed, 0xfe}},
	{"a Mach-O binary", []byte{0xcf, 0xfa, 0xed, 0xfe}},
	{"a Mach-O universal binary", []byte{0xca, 0xfe, 0xba, 0xbe}},
	{"a WebAssembly module", []byte{0x00, 'a', 's', 'm'}},
}

// Tracked lists the files git tracks in the work tree at root.
func Tracked(ctx context.Context, root string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", root, "ls-files", "-z")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", root, err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

// Check reads each of files under root and returns those the repository must
// not track: an executable binary anywhere, a file over MaxTrackedSize
// outside testdata/. A tracked file missing from the work tree (deleted, not
// yet committed) is not checked.
func Check(root string, files []string) ([]Violation, error) {
	var found []Violation
	for _, f := range files {
		v, err := checkFile(root, f)
		if err != nil {
			return nil, err
		}
		if v != nil {
			found = append(found, *v)
		}
	}
	return found, nil
}

func checkFile(root, file string) (*Violation, error) {
	name := filepath.Join(root, filepath.FromSlash(file))
	info, err := os.Lstat(name)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tracked file %s: %w", file, err)
	}
	if !info.Mode().IsRegular() {
		return nil, nil // a symlink or submodule holds no bytes of its own
	}
	if format, err := executableFormat(name); err != nil {
		return nil, fmt.Errorf("tracked file %s: %w", file, err)
	} else if format != "" {
		return &Violation{File: file, Reason: format + " (build it, never commit it)"}, nil
	}
	if info.Size() > MaxTrackedSize && !inTestdata(file) {
		return &Violation{File: file, Reason: fmt.Sprintf("%d bytes, over the %d allowed outside testdata/", info.Size(), MaxTrackedSize)}, nil
	}
	return nil, nil
}

func executableFormat(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 4)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", err
	}
	head = head[:n]
	for _, m := range executableMagic {
		if bytes.HasPrefix(head, m.magic) && isExecutable(m.magic, f) {
			return m.format, nil
		}
	}
	return "", nil
}

// isExecutable confirms a two-byte MZ prefix (text files may begin "MZ") by
// the PE header's signature that offset 0x3c points to; longer magics are
// taken as they are.
func isExecutable(magic []byte, f *os.File) bool {
	if len(magic) != 2 {
		return true
	}
	var off [4]byte
	if _, err := f.ReadAt(off[:], 0x3c); err != nil {
		return false
	}
	at := int64(off[0]) | int64(off[1])<<8 | int64(off[2])<<16 | int64(off[3])<<24
	var sig [4]byte
	if _, err := f.ReadAt(sig[:], at); err != nil {
		return false
	}
	return sig == [4]byte{'P', 'E', 0, 0}
}

func inTestdata(file string) bool {
	for dir := path.Dir(file); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if path.Base(dir) == "testdata" {
			return true
		}
	}
	return false
}
