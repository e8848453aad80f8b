package render

import (
	iofs "io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fluxcd/pkg/sourceignore"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/kubestandup/standup/internal/input"
)

// boundedFS is the repository as kustomize reads it: every file is read
// through input.ReadBounded and checked with input.CheckYAML, so that a
// named pipe cannot block a build, nor an alias bomb exhaust memory. A file
// checked once is not checked again until it changes.
type boundedFS struct {
	filesys.FileSystem
	mu      sync.Mutex
	checked map[string]stamp
}

// stamp identifies the version of a file that was checked.
type stamp struct {
	size    int64
	modTime time.Time
}

func newBoundedFS(secure filesys.FileSystem) *boundedFS {
	return &boundedFS{FileSystem: secure, checked: map[string]stamp{}}
}

// ReadFile reads a file inside the root, bounded. Paths that do not exist
// or lie outside the root are left to the secure file system, whose errors
// kustomize knows.
func (fs *boundedFS) ReadFile(path string) ([]byte, error) {
	if !fs.FileSystem.Exists(path) || fs.FileSystem.IsDir(path) {
		return fs.FileSystem.ReadFile(path)
	}
	data, info, err := input.ReadBounded(path)
	if err != nil {
		return nil, err
	}
	st := stamp{size: info.Size(), modTime: info.ModTime()}
	fs.mu.Lock()
	seen := fs.checked[path] == st
	fs.mu.Unlock()
	if seen {
		return data, nil
	}
	if err := input.CheckYAML(path, data); err != nil {
		return nil, err
	}
	fs.mu.Lock()
	fs.checked[path] = st
	fs.mu.Unlock()
	return data, nil
}

// Open refuses what ReadFile refuses before the secure file system opens it.
func (fs *boundedFS) Open(path string) (filesys.File, error) {
	if fs.FileSystem.Exists(path) && !fs.FileSystem.IsDir(path) {
		if err := input.CheckRegular(path); err != nil {
			return nil, err
		}
	}
	return fs.FileSystem.Open(path)
}

// precheck reads, bounded, what fluxcd/pkg/kustomize's generator reads by
// itself from disk before kustomize runs: the kustomization file of dir, or,
// when there is none, every YAML file it scans (it parses each one, which
// would expand an alias bomb, and a named pipe would block it). It returns
// the first *input.LimitError, and ignores any other error, which the
// generator reports as it always has.
func (b *builder) precheck(dir string) *input.LimitError {
	if kfile := kustomizationFile(dir); kfile != "" {
		return b.limitOf(kfile)
	}
	var limit *input.LimitError
	_ = filepath.WalkDir(dir, func(path string, d iofs.DirEntry, err error) error {
		if err != nil || path == dir {
			return nil
		}
		if d.IsDir() {
			if kustomizationFile(path) != "" {
				return filepath.SkipDir // read by kustomize, through boundedFS
			}
			return nil
		}
		if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" {
			return nil
		}
		if b.ignored.Match(strings.Split(path, string(filepath.Separator)), false) {
			return nil
		}
		limit = b.limitOf(path)
		if limit != nil {
			return filepath.SkipAll
		}
		return nil
	})
	return limit
}

// limitOf reads path through the bounded file system and returns the
// *input.LimitError it meets (its file relative to the root), nil for
// anything else.
func (b *builder) limitOf(path string) *input.LimitError {
	_, err := b.disk.ReadFile(path)
	if lim, ok := input.IsLimit(err); ok {
		return b.relLimit(lim)
	}
	return nil
}

// relLimit returns lim with its file relative to the repository root, as
// every message of the package names files.
func (b *builder) relLimit(lim *input.LimitError) *input.LimitError {
	return &input.LimitError{File: b.rel(lim.File), Reason: lim.Reason}
}

// checkIgnoreFiles checks every .sourceignore of the repository, the files
// sourceignore.LoadIgnorePatterns opens by itself, for what input.CheckRegular
// refuses. Like it, it skips .git and does not follow symlinked directories.
func (b *builder) checkIgnoreFiles() *input.LimitError {
	var limit *input.LimitError
	_ = filepath.WalkDir(b.root, func(path string, d iofs.DirEntry, err error) error {
		if err != nil {
			return nil // LoadIgnorePatterns reports it
		}
		if d.IsDir() && d.Name() == ".git" && path != b.root {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() != sourceignore.IgnoreFile {
			return nil
		}
		if lim, ok := input.IsLimit(input.CheckRegular(path)); ok {
			limit = b.relLimit(lim)
			return filepath.SkipAll
		}
		return nil
	})
	return limit
}
