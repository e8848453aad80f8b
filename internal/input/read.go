package input

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxFileSize is the largest file standup reads: 16 MiB. The API server
// stores no object over about 1.5 MiB (etcd's request limit), so a manifest
// file is small; the largest legitimate inputs are CRD bundles, where one
// file holding every CRD of a big operator reaches a few MiB. 16 MiB leaves
// room for those and still bounds what kustomize parses (its in-memory tree
// is tens of times the file).
const MaxFileSize = 16 << 20

// LimitError reports a file that standup refuses to read: not a regular
// file, larger than MaxFileSize, or YAML over a limit of CheckYAML.
type LimitError struct {
	// File is the file as the caller named it.
	File string
	// Reason says what is wrong and what to do, without the file name.
	Reason string
}

// Error renders the error as `file: reason`.
func (e *LimitError) Error() string { return e.File + ": " + e.Reason }

// ReadFile reads the regular file at path, at most MaxFileSize bytes, and
// checks it with CheckYAML. A file over a limit is a *LimitError; a file
// that cannot be read returns the error of the os package.
func ReadFile(path string) ([]byte, error) {
	data, _, err := ReadBounded(path)
	if err != nil {
		return nil, err
	}
	if err := CheckYAML(path, data); err != nil {
		return nil, err
	}
	return data, nil
}

// ReadBounded reads the regular file at path, at most MaxFileSize bytes,
// without looking at its content, and returns it with the file's
// information (symlinks followed). It never blocks on a named pipe.
func ReadBounded(path string) ([]byte, fs.FileInfo, error) {
	if err := CheckRegular(path); err != nil {
		return nil, nil, err
	}
	// The file may have been replaced since the Stat: a named pipe opened
	// non-blocking does not wait for a writer, and is refused below.
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if err := checkInfo(path, info); err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, nil, err
	}
	if len(data) > MaxFileSize {
		return nil, nil, tooLarge(path, int64(len(data)), true)
	}
	return data, info, nil
}

// CheckRegular checks, without opening it, that path (symlinks followed) is
// a regular file of at most MaxFileSize bytes: what a library that opens the
// file itself may safely be given.
func CheckRegular(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return checkInfo(path, info)
}

// checkInfo refuses what is not a regular file, and a file over MaxFileSize.
func checkInfo(path string, info fs.FileInfo) error {
	if !info.Mode().IsRegular() {
		return &LimitError{File: path, Reason: fmt.Sprintf("not a regular file (%s); standup reads only regular files: replace it with one, or remove it", describeMode(info.Mode()))}
	}
	if info.Size() > MaxFileSize {
		return tooLarge(path, info.Size(), false)
	}
	return nil
}

// tooLarge reports a file over MaxFileSize; grew is true when it was found
// reading it (the file grew after its size was read).
func tooLarge(path string, size int64, grew bool) error {
	what := fmt.Sprintf("%.1f MiB", float64(size)/(1<<20))
	if grew {
		what = "it grew while it was read"
	}
	return &LimitError{File: path, Reason: fmt.Sprintf("larger than the %d MiB limit (%s); split it into smaller files", MaxFileSize>>20, what)}
}

// describeMode names the type of a file that is not regular.
func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe, which would block the read"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	default:
		return "an irregular file"
	}
}

// IsLimit reports whether err is, or wraps, a *LimitError, and returns it.
func IsLimit(err error) (*LimitError, bool) {
	var lim *LimitError
	ok := errors.As(err, &lim)
	return lim, ok
}
