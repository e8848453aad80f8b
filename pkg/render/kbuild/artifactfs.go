package kbuild

import (
	"bytes"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/kubestandup/standup/pkg/tiers"
)

// artifactFS is an ExternalArtifact as kustomize reads it: its tree, under
// a directory of its own that does not exist on disk (the repository root,
// then the artifact's Kind/namespace/name, so that kustomize's messages name
// "ExternalArtifact/ns/name/path"), each file read from the checkout file it
// was copied from, through the bounded file system. Nothing outside the
// artifact exists, as for kustomize-controller, which builds the extracted
// artifact alone. It is read-only: the kustomization file Flux generates
// lives in the overlay above it.
type artifactFS struct {
	id   tiers.ID
	root string
	tree *artifactTree
	disk filesys.FileSystem
	// rel names a checkout file relative to the repository root.
	rel func(string) string
	// children lists the names in each directory of the tree, sorted.
	children map[string][]string
}

func newArtifactFS(id tiers.ID, repoRoot string, tree *artifactTree, disk filesys.FileSystem, rel func(string) string) *artifactFS {
	a := &artifactFS{
		id:       id,
		root:     filepath.Join(repoRoot, id.Kind, id.Namespace, id.Name),
		tree:     tree,
		disk:     disk,
		rel:      rel,
		children: map[string][]string{},
	}
	add := func(p string) {
		if p != "." {
			parent := path.Dir(p)
			a.children[parent] = append(a.children[parent], path.Base(p))
		}
	}
	for p := range tree.files {
		add(p)
	}
	for p := range tree.dirs {
		add(p)
	}
	for _, names := range a.children {
		slices.Sort(names)
	}
	return a
}

// path returns the absolute path of p, a path of the tree.
func (a *artifactFS) path(p string) string {
	return filepath.Join(a.root, filepath.FromSlash(p))
}

// inTree returns the path of the tree an absolute path stands for; false
// for a path outside the artifact.
func (a *artifactFS) inTree(abs string) (string, bool) {
	rel, err := filepath.Rel(a.root, filepath.Clean(abs))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func (a *artifactFS) file(abs string) (artifactFile, bool) {
	p, ok := a.inTree(abs)
	if !ok {
		return artifactFile{}, false
	}
	f, ok := a.tree.files[p]
	return f, ok
}

// name names an absolute path of the artifact in messages and in
// Manifest.File: a file copied from the checkout by the checkout file's
// name, anything else by its path in the artifact.
func (a *artifactFS) name(abs string) string {
	if f, ok := a.file(abs); ok {
		return a.rel(f.disk)
	}
	if p, ok := a.inTree(abs); ok && p != "." {
		return a.id.String() + "/" + p
	}
	if _, ok := a.inTree(abs); ok {
		return a.id.String()
	}
	return a.rel(abs)
}

// diskPath returns the checkout file behind an absolute path of the
// artifact, or "" when there is none.
func (a *artifactFS) diskPath(abs string) string {
	if f, ok := a.file(abs); ok && f.data == nil {
		return f.disk
	}
	return ""
}

func (a *artifactFS) notExist(op, abs string) error {
	return &iofs.PathError{Op: op, Path: abs, Err: fmt.Errorf("%w: not in %s", iofs.ErrNotExist, a.id)}
}

func (a *artifactFS) readOnly(op, abs string) error {
	return &iofs.PathError{Op: op, Path: abs, Err: errors.New("the artifact is read-only")}
}

func (a *artifactFS) Create(p string) (filesys.File, error) { return nil, a.readOnly("create", p) }
func (a *artifactFS) Mkdir(p string) error                  { return a.readOnly("mkdir", p) }
func (a *artifactFS) MkdirAll(p string) error               { return a.readOnly("mkdir", p) }
func (a *artifactFS) RemoveAll(p string) error              { return a.readOnly("remove", p) }
func (a *artifactFS) WriteFile(p string, _ []byte) error    { return a.readOnly("write", p) }

func (a *artifactFS) Open(p string) (filesys.File, error) {
	f, ok := a.file(p)
	switch {
	case !ok:
		return nil, a.notExist("open", p)
	case f.data != nil:
		return &overlayFile{name: p, buf: *bytes.NewBuffer(slices.Clone(f.data))}, nil
	}
	return a.disk.Open(f.disk)
}

func (a *artifactFS) ReadFile(p string) ([]byte, error) {
	f, ok := a.file(p)
	switch {
	case !ok && a.IsDir(p):
		return nil, &iofs.PathError{Op: "read", Path: p, Err: errors.New("is a directory")}
	case !ok:
		return nil, a.notExist("open", p)
	case f.data != nil:
		return slices.Clone(f.data), nil
	}
	return a.disk.ReadFile(f.disk)
}

func (a *artifactFS) IsDir(p string) bool {
	rel, ok := a.inTree(p)
	return ok && a.tree.dirs[rel]
}

func (a *artifactFS) Exists(p string) bool {
	_, isFile := a.file(p)
	return isFile || a.IsDir(p)
}

func (a *artifactFS) ReadDir(p string) ([]string, error) {
	rel, ok := a.inTree(p)
	if !ok || !a.tree.dirs[rel] {
		return nil, a.notExist("readdir", p)
	}
	return slices.Clone(a.children[rel]), nil
}

// CleanedAbs splits an existing path into its directory and file name, as
// the disk's does (there are no symlinks to resolve).
func (a *artifactFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	abs := filepath.Clean(p)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(a.root, abs)
	}
	switch {
	case a.IsDir(abs):
		return filesys.ConfirmedDir(abs), "", nil
	case a.Exists(abs):
		return filesys.ConfirmedDir(filepath.Dir(abs)), filepath.Base(abs), nil
	}
	return "", "", a.notExist("stat", p)
}

// Glob matches the files and directories of the tree.
func (a *artifactFS) Glob(pattern string) ([]string, error) {
	if _, err := filepath.Match(pattern, ""); err != nil {
		return nil, err
	}
	var out []string
	for _, set := range []map[string]bool{a.tree.dirs, keysOf(a.tree.files)} {
		for p := range set {
			if abs := a.path(p); matchPath(pattern, abs) {
				out = append(out, abs)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

func matchPath(pattern, p string) bool {
	ok, _ := filepath.Match(pattern, p)
	return ok
}

func keysOf(files map[string]artifactFile) map[string]bool {
	out := make(map[string]bool, len(files))
	for p := range files {
		out[p] = true
	}
	return out
}

// Walk visits the tree under p in lexical order, as filepath.Walk does.
func (a *artifactFS) Walk(p string, walkFn filepath.WalkFunc) error {
	rel, ok := a.inTree(p)
	if !ok || !a.Exists(p) {
		return walkFn(p, nil, a.notExist("lstat", p))
	}
	err := a.walk(rel, walkFn)
	if errors.Is(err, filepath.SkipDir) || errors.Is(err, filepath.SkipAll) {
		return nil
	}
	return err
}

func (a *artifactFS) walk(rel string, walkFn filepath.WalkFunc) error {
	info := a.info(rel)
	if err := walkFn(a.path(rel), info, nil); err != nil || !info.IsDir() {
		return err
	}
	for _, name := range a.children[rel] {
		child := path.Join(rel, name)
		err := a.walk(child, walkFn)
		switch {
		case errors.Is(err, filepath.SkipDir) && a.tree.dirs[child]:
			// that directory is skipped
		case errors.Is(err, filepath.SkipDir):
			return nil // a file's SkipDir skips the rest of its directory
		case err != nil:
			return err
		}
	}
	return nil
}

// info describes a path of the tree; a file's size is its checkout file's.
func (a *artifactFS) info(rel string) os.FileInfo {
	if a.tree.dirs[rel] {
		return artifactInfo{name: path.Base(rel), dir: true}
	}
	f := a.tree.files[rel]
	size := int64(len(f.data))
	if f.data == nil {
		if st, err := os.Stat(f.disk); err == nil {
			size = st.Size()
		}
	}
	return artifactInfo{name: path.Base(rel), size: size}
}

// artifactInfo describes a file or a directory of an artifact.
type artifactInfo struct {
	name string
	size int64
	dir  bool
}

func (i artifactInfo) Name() string       { return i.name }
func (i artifactInfo) Size() int64        { return i.size }
func (i artifactInfo) ModTime() time.Time { return time.Time{} }
func (i artifactInfo) IsDir() bool        { return i.dir }
func (i artifactInfo) Sys() any           { return nil }
func (i artifactInfo) Mode() iofs.FileMode {
	if i.dir {
		return iofs.ModeDir | 0o555
	}
	return 0o444
}
