package kbuild

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// overlayFS is the repository on disk seen through the few files a build
// generates in memory: the kustomization file Flux would generate or
// rewrite. Nothing is ever written to disk.
//
// fluxcd/pkg's MakeFsInMemory layers kyaml's in-memory filesystem over the
// disk, and that one refuses any path with a component outside
// [a-zA-Z0-9-_.:] ("illegal name 'my repos' in directory creation"), which
// made every checkout under a directory with a space, "+", "@", "(" or "#"
// unbuildable. Generated files live here in a map keyed by cleaned path, so
// any name the disk accepts is accepted.
type overlayFS struct {
	filesys.FileSystem // the disk: reads that the overlay does not answer
	mu                 sync.Mutex
	files              map[string][]byte
}

func newOverlayFS(disk filesys.FileSystem) *overlayFS {
	return &overlayFS{FileSystem: disk, files: map[string][]byte{}}
}

func (o *overlayFS) generated(path string) ([]byte, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	data, ok := o.files[filepath.Clean(path)]
	return data, ok
}

// WriteFile keeps data in memory.
func (o *overlayFS) WriteFile(path string, data []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.files[filepath.Clean(path)] = slices.Clone(data)
	return nil
}

// Create returns a file whose content is kept in memory when it is closed.
func (o *overlayFS) Create(path string) (filesys.File, error) {
	return &overlayFile{name: path, onClose: func(data []byte) error { return o.WriteFile(path, data) }}, nil
}

// Mkdir and MkdirAll succeed without touching the disk: a generated file
// only ever lands in a directory of the checkout.
func (o *overlayFS) Mkdir(string) error    { return nil }
func (o *overlayFS) MkdirAll(string) error { return nil }

// RemoveAll forgets generated files under path; the disk is never touched.
func (o *overlayFS) RemoveAll(path string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	clean := filepath.Clean(path)
	for p := range o.files {
		if p == clean || strings.HasPrefix(p, clean+string(filepath.Separator)) {
			delete(o.files, p)
		}
	}
	return nil
}

func (o *overlayFS) ReadFile(path string) ([]byte, error) {
	if data, ok := o.generated(path); ok {
		return slices.Clone(data), nil
	}
	return o.FileSystem.ReadFile(path)
}

func (o *overlayFS) Open(path string) (filesys.File, error) {
	if data, ok := o.generated(path); ok {
		return &overlayFile{name: path, buf: *bytes.NewBuffer(slices.Clone(data))}, nil
	}
	return o.FileSystem.Open(path)
}

func (o *overlayFS) Exists(path string) bool {
	if _, ok := o.generated(path); ok {
		return true
	}
	return o.FileSystem.Exists(path)
}

func (o *overlayFS) IsDir(path string) bool {
	if _, ok := o.generated(path); ok {
		return false
	}
	return o.FileSystem.IsDir(path)
}

// ReadDir lists the disk directory and the files generated in it.
func (o *overlayFS) ReadDir(path string) ([]string, error) {
	names, err := o.FileSystem.ReadDir(path)
	extra := o.generatedIn(filepath.Clean(path))
	if err != nil && len(extra) == 0 {
		return nil, err
	}
	for _, p := range extra {
		if name := filepath.Base(p); !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names, nil
}

// Glob matches the disk and the generated files.
func (o *overlayFS) Glob(pattern string) ([]string, error) {
	matches, err := o.FileSystem.Glob(pattern)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for p := range o.files {
		if ok, _ := filepath.Match(pattern, p); ok && !slices.Contains(matches, p) {
			matches = append(matches, p)
		}
	}
	slices.Sort(matches)
	return matches, nil
}

// Walk walks the disk, and visits generated files that the disk lacks in
// the directories it walks.
func (o *overlayFS) Walk(path string, walkFn filepath.WalkFunc) error {
	return o.FileSystem.Walk(path, func(p string, info os.FileInfo, err error) error {
		if err := walkFn(p, info, err); err != nil {
			return err
		}
		if err != nil || info == nil || !info.IsDir() {
			return nil
		}
		for _, g := range o.generatedIn(filepath.Clean(p)) {
			if o.FileSystem.Exists(g) {
				continue // visited as the disk file; reads see the generated one
			}
			data, _ := o.generated(g)
			if err := walkFn(g, overlayInfo{name: filepath.Base(g), size: int64(len(data))}, nil); err != nil && err != filepath.SkipDir {
				return err
			}
		}
		return nil
	})
}

func (o *overlayFS) generatedIn(dir string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for p := range o.files {
		if filepath.Dir(p) == dir {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// overlayFile is a generated file, open for reading or being written.
type overlayFile struct {
	name    string
	buf     bytes.Buffer
	onClose func([]byte) error
}

func (f *overlayFile) Read(p []byte) (int, error)  { return f.buf.Read(p) }
func (f *overlayFile) Write(p []byte) (int, error) { return f.buf.Write(p) }
func (f *overlayFile) Close() error {
	if f.onClose != nil {
		return f.onClose(f.buf.Bytes())
	}
	return nil
}
func (f *overlayFile) Stat() (os.FileInfo, error) {
	return overlayInfo{name: filepath.Base(f.name), size: int64(f.buf.Len())}, nil
}

// overlayInfo describes a generated file.
type overlayInfo struct {
	name string
	size int64
}

func (i overlayInfo) Name() string       { return i.name }
func (i overlayInfo) Size() int64        { return i.size }
func (i overlayInfo) Mode() fs.FileMode  { return 0o444 }
func (i overlayInfo) ModTime() time.Time { return time.Time{} }
func (i overlayInfo) IsDir() bool        { return false }
func (i overlayInfo) Sys() any           { return nil }
