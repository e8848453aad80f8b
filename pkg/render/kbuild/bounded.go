package kbuild

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/kubestandup/standup/internal/input"
)

// boundedFS is the repository as kustomize reads it: every file is read
// through input.ReadBounded and checked with input.CheckYAML, so that a
// named pipe cannot block a build, nor an alias bomb exhaust memory. The
// checkout does not change while it is rendered, so what the disk answers
// is remembered for the whole render: a file is read and checked once, and
// the secure file system's checks of a path (an lstat of every component)
// are made once, however many builds read it (a component that forty
// kustomizations include, every directory a build's loader confirms).
type boundedFS struct {
	filesys.FileSystem
	mu      sync.Mutex
	reads   map[string]fileRead
	exists  map[string]bool
	isDir   map[string]bool
	cleaned map[string]cleanedAbs
	dirs    map[string]dirRead
	// root is the repository root when it is canonical (no symlink on its
	// way), else "": below it, plain holds the directories known to be
	// reached without a symlink, where one lstat answers Exists and IsDir
	// (statPlain).
	root  string
	plain map[string]bool
	// stats holds what statPlain learnt of a path: Exists and IsDir ask
	// it of the same paths.
	stats map[string]plainStat
}

// plainStat is what statPlain answers of a path: known, whether it can
// answer; exists and dir, its answer.
type plainStat struct {
	known, exists, dir bool
}

// fileRead is a remembered ReadFile.
type fileRead struct {
	data []byte
	err  error
}

// cleanedAbs is a remembered CleanedAbs.
type cleanedAbs struct {
	dir  filesys.ConfirmedDir
	file string
	err  error
}

// dirRead is a remembered ReadDir.
type dirRead struct {
	names []string
	err   error
}

func newBoundedFS(secure filesys.FileSystem, root string) *boundedFS {
	if evaluated, err := filepath.EvalSymlinks(root); err != nil || evaluated != root {
		root = ""
	}
	return &boundedFS{
		FileSystem: secure,
		root:       root,
		plain:      map[string]bool{},
		stats:      map[string]plainStat{},
		reads:      map[string]fileRead{},
		exists:     map[string]bool{},
		isDir:      map[string]bool{},
		cleaned:    map[string]cleanedAbs{},
		dirs:       map[string]dirRead{},
	}
}

// memo returns m[key], computing and remembering it on a miss.
func memo[V any](mu *sync.Mutex, m map[string]V, key string, compute func() V) V {
	mu.Lock()
	v, ok := m[key]
	mu.Unlock()
	if ok {
		return v
	}
	v = compute()
	mu.Lock()
	m[key] = v
	mu.Unlock()
	return v
}

// ReadFile reads a file inside the root, bounded. Paths that do not exist
// or lie outside the root are left to the secure file system, whose errors
// kustomize knows. Callers get a copy: kustomize may change what it reads.
func (fs *boundedFS) ReadFile(path string) ([]byte, error) {
	r := memo(&fs.mu, fs.reads, path, func() fileRead {
		data, err := fs.readFile(path)
		return fileRead{data: data, err: err}
	})
	return slices.Clone(r.data), r.err
}

func (fs *boundedFS) readFile(path string) ([]byte, error) {
	if !fs.Exists(path) || fs.IsDir(path) {
		return fs.FileSystem.ReadFile(path)
	}
	data, _, err := input.ReadBounded(path)
	if err != nil {
		return nil, err
	}
	if err := input.CheckYAML(path, data); err != nil {
		return nil, err
	}
	return data, nil
}

func (fs *boundedFS) Exists(path string) bool {
	return memo(&fs.mu, fs.exists, path, func() bool {
		if st := fs.statPlain(path); st.known {
			return st.exists
		}
		return fs.FileSystem.Exists(path)
	})
}

func (fs *boundedFS) IsDir(path string) bool {
	return memo(&fs.mu, fs.isDir, path, func() bool {
		if st := fs.statPlain(path); st.known {
			return st.dir
		}
		return fs.FileSystem.IsDir(path)
	})
}

// statPlain answers for the secure file system, with one lstat, about a
// path in a directory below the root reached without a symlink: when the
// path is no symlink either, the secure file system's check (symlinks
// evaluated, the result inside the root) holds, and its answer is the
// path's own; a missing path is missing to it too. It returns whether the
// path exists and is a directory, or an answer not known when it cannot
// answer (a symlink, a path elsewhere or not clean), for the secure file
// system to. Its lstat of every component of every path was a tenth of a
// render of thousands of Kustomizations. TestBoundedFSMatchesSecure
// holds it to the secure file system.
func (fs *boundedFS) statPlain(path string) plainStat {
	return memo(&fs.mu, fs.stats, path, func() plainStat {
		if fs.root == "" || path == fs.root || !filepath.IsAbs(path) || filepath.Clean(path) != path || !fs.plainDir(filepath.Dir(path)) {
			return plainStat{}
		}
		info, err := os.Lstat(path)
		if err != nil {
			return plainStat{known: true}
		}
		if info.Mode()&os.ModeSymlink != 0 {
			return plainStat{}
		}
		return plainStat{known: true, exists: true, dir: info.IsDir()}
	})
}

// plainDir reports whether dir is the root, or a directory below it that
// no symlink leads to.
func (fs *boundedFS) plainDir(dir string) bool {
	if dir == fs.root {
		return true
	}
	if !strings.HasPrefix(dir, fs.root+string(filepath.Separator)) {
		return false
	}
	return memo(&fs.mu, fs.plain, dir, func() bool {
		if !fs.plainDir(filepath.Dir(dir)) {
			return false
		}
		info, err := os.Lstat(dir)
		return err == nil && info.IsDir() && info.Mode()&os.ModeSymlink == 0
	})
}

func (fs *boundedFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	c := memo(&fs.mu, fs.cleaned, path, func() cleanedAbs {
		d, f, err := fs.FileSystem.CleanedAbs(path)
		return cleanedAbs{dir: d, file: f, err: err}
	})
	return c.dir, c.file, c.err
}

func (fs *boundedFS) ReadDir(path string) ([]string, error) {
	r := memo(&fs.mu, fs.dirs, path, func() dirRead {
		names, err := fs.FileSystem.ReadDir(path)
		return dirRead{names: names, err: err}
	})
	return slices.Clone(r.names), r.err
}

// Walk walks a directory of the root as the secure file system does,
// without its check of every entry (an lstat of every component of the
// path): below a directory inside the root, only a symlink can lead out,
// so only symlinks are checked, by the secure file system, whose error a
// walk that meets one leading out returns.
func (fs *boundedFS) Walk(path string, walkFn filepath.WalkFunc) error {
	// A plain directory below the root is one the secure file system
	// confirms: only any other is asked (an lstat of every component).
	if !fs.plainWalkRoot(path) {
		if _, _, err := fs.CleanedAbs(path); err != nil {
			return fs.FileSystem.Walk(path, walkFn)
		}
	}
	return filepath.Walk(path, func(p string, info os.FileInfo, err error) error {
		if err == nil && info != nil && info.Mode()&os.ModeSymlink != 0 {
			if err := fs.FileSystem.Walk(p, func(string, os.FileInfo, error) error { return errInsideRoot }); err != errInsideRoot {
				return err
			}
		}
		if err == nil && info != nil {
			fs.sawPlain(p, info)
		}
		return walkFn(p, info, err)
	})
}

// sawPlain remembers info, the lstat of path a walk made, as statPlain's
// answer, where statPlain would answer with it: the files a walk lists
// (Flux's generator) are asked about next.
func (fs *boundedFS) sawPlain(path string, info os.FileInfo) {
	if info.Mode()&os.ModeSymlink != 0 || fs.root == "" || path == fs.root || !filepath.IsAbs(path) || filepath.Clean(path) != path || !fs.plainDir(filepath.Dir(path)) {
		return
	}
	fs.mu.Lock()
	if _, known := fs.stats[path]; !known {
		fs.stats[path] = plainStat{known: true, exists: true, dir: info.IsDir()}
	}
	fs.mu.Unlock()
}

// plainWalkRoot reports whether path is a clean absolute directory below
// the root that no symlink leads to.
func (fs *boundedFS) plainWalkRoot(path string) bool {
	return fs.root != "" && filepath.IsAbs(path) && filepath.Clean(path) == path && fs.plainDir(path)
}

// errInsideRoot is how Walk learns that the secure file system accepts a path.
var errInsideRoot = errors.New("inside the root")

// Open refuses what ReadFile refuses before the secure file system opens it.
func (fs *boundedFS) Open(path string) (filesys.File, error) {
	if fs.Exists(path) && !fs.IsDir(path) {
		if err := input.CheckRegular(path); err != nil {
			return nil, err
		}
	}
	return fs.FileSystem.Open(path)
}

// relLimit returns lim with its file relative to the repository root, as
// every message of the package names files.
func (b *Builder) relLimit(lim *input.LimitError) *input.LimitError {
	return &input.LimitError{File: b.Rel(lim.File), Reason: lim.Reason}
}
