package kbuild

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// artifactTree is the content of an ExternalArtifact as a mapping onto the
// checkout: every file of the artifact is a file of the checkout, copied,
// or the YAML of checkout files merged (strategy Merge). Paths are
// slash-separated and relative to the artifact's root.
type artifactTree struct {
	files map[string]artifactFile
	// dirs holds every directory, "." (the root) included.
	dirs map[string]bool
}

// artifactFile is one file of an artifact.
type artifactFile struct {
	// disk is the absolute path of the checkout file copied; for a merged
	// file, of the file the others were merged into.
	disk string
	// data is the content of a merged file; nil for a copy.
	data []byte
}

// treeCopier runs the copy operations of one artifact the way
// source-watcher's builder does (internal/builder/builder.go), on paths
// instead of files.
type treeCopier struct {
	tree *artifactTree
	// sources maps each alias to the checkout directory it stands for.
	sources map[string]string
	// ignored reports whether source-controller leaves an absolute path
	// out of the source's artifact (.sourceignore and its defaults).
	ignored func(abs string, dir bool) bool
	// read reads a checkout file, bounded.
	read func(abs string) ([]byte, error)
}

// buildArtifactTree returns the tree of a, whose aliases sources maps to
// checkout directories.
func buildArtifactTree(a OutputArtifact, sources map[string]string, ignored func(string, bool) bool, read func(string) ([]byte, error)) (*artifactTree, error) {
	c := &treeCopier{
		tree:    &artifactTree{files: map[string]artifactFile{}, dirs: map[string]bool{".": true}},
		sources: sources,
		ignored: ignored,
		read:    read,
	}
	for _, op := range a.Copy {
		if err := c.apply(op); err != nil {
			return nil, fmt.Errorf("copy from '%s' to '%s': %w", op.From, op.To, err)
		}
	}
	return c.tree, nil
}

// sourceDir is the files of one source, as source-controller's artifact
// holds them: without what it ignores.
type sourceDir struct {
	dir     string
	fs      iofs.FS
	ignored func(abs string, dir bool) bool
}

// hidden reports whether p (relative, slash-separated) or one of its
// parents is left out of the source's artifact.
func (s sourceDir) hidden(p string, dir bool) bool {
	if p == "." {
		return false
	}
	parts := strings.Split(p, "/")
	for i := range parts {
		if s.ignored(filepath.Join(s.dir, filepath.FromSlash(path.Join(parts[:i+1]...))), dir || i < len(parts)-1) {
			return true
		}
	}
	return false
}

func (s sourceDir) stat(p string) (iofs.FileInfo, error) {
	if !iofs.ValidPath(p) {
		return nil, fmt.Errorf("path escapes from parent")
	}
	info, err := iofs.Stat(s.fs, p)
	if err == nil && s.hidden(p, info.IsDir()) {
		return nil, iofs.ErrNotExist
	}
	return info, err
}

// apply runs one copy operation (applyCopyOperation).
func (c *treeCopier) apply(op copyOperation) error {
	alias, pattern, err := splitAlias(op.From)
	if err != nil {
		return fmt.Errorf("invalid copy source '%s': %w", op.From, err)
	}
	dest, ok := strings.CutPrefix(op.To, "@artifact/")
	if !ok {
		return fmt.Errorf("invalid copy destination '%s': destination must start with '@artifact/'", op.To)
	}
	dir, ok := c.sources[alias]
	if !ok {
		return fmt.Errorf("source alias '%s' not found", alias)
	}
	for _, p := range op.Exclude {
		if !doublestar.ValidatePattern(p) {
			return fmt.Errorf("invalid exclude pattern '%s'", p)
		}
	}
	src := sourceDir{dir: dir, fs: os.DirFS(dir), ignored: c.ignored}
	if !strings.ContainsAny(pattern, "*?[]") {
		return c.copySingle(op, src, path.Clean(pattern), dest, strings.HasSuffix(op.To, "/"))
	}
	// Only Overwrite and Merge get here (Extract is refused before): the
	// standard library's glob, where ** is *.
	matches, err := iofs.Glob(src.fs, pattern)
	if err != nil {
		return fmt.Errorf("invalid glob pattern '%s': %w", pattern, err)
	}
	var kept []string
	for _, m := range matches {
		if info, err := src.stat(m); err == nil && !src.hidden(m, info.IsDir()) {
			kept = append(kept, m)
		}
	}
	if len(kept) == 0 {
		return fmt.Errorf("no files match pattern '%s' in source '%s'", pattern, alias)
	}
	base := sourceSelectionRoot(pattern)
	var filtered []string
	for _, m := range kept {
		if m != "." && m != ".." && !excludedPath(m, base, op.Exclude) {
			filtered = append(filtered, m)
		}
	}
	if len(filtered) == 0 {
		return fmt.Errorf("all files matching pattern '%s' in source '%s' were excluded", pattern, alias)
	}
	for _, m := range filtered {
		if err := c.copyPath(op, src, m, globDestination(pattern, m, dest), base); err != nil {
			return fmt.Errorf("failed to copy file '%s': %w", m, err)
		}
	}
	return nil
}

// copySingle copies one file or directory named without glob characters,
// as cp does (applySingleSourceCopy): a directory lands as a directory of
// its own name in dest; a file lands in dest when dest ends with "/" or is
// a directory already, else as dest.
func (c *treeCopier) copySingle(op copyOperation, src sourceDir, srcPath, dest string, slash bool) error {
	info, err := src.stat(srcPath)
	if errors.Is(err, iofs.ErrNotExist) {
		return fmt.Errorf("source '%s' does not exist", srcPath)
	}
	if err != nil {
		return fmt.Errorf("failed to stat source '%s': %w", srcPath, err)
	}
	if info.IsDir() {
		return c.copyPath(op, src, srcPath, path.Join(dest, path.Base(srcPath)), srcPath)
	}
	if excludedPath(srcPath, ".", op.Exclude) {
		return nil
	}
	final := dest
	if slash || c.tree.dirs[cleanArtifactPath(dest)] {
		final = path.Join(dest, path.Base(srcPath))
	}
	return c.copyPath(op, src, srcPath, final, ".")
}

// copyPath copies a file or a directory tree (copyFileWithRoots).
func (c *treeCopier) copyPath(op copyOperation, src sourceDir, srcPath, dest, excludeBase string) error {
	info, err := src.stat(srcPath)
	if err != nil {
		return err
	}
	if info.IsDir() {
		return c.copyDir(op, src, srcPath, dest, excludeBase)
	}
	if op.Strategy == copyStrategyMerge {
		if existing, ok := c.tree.files[cleanArtifactPath(dest)]; ok {
			return c.merge(existing, filepath.Join(src.dir, filepath.FromSlash(srcPath)), dest)
		}
	}
	return c.put(dest, artifactFile{disk: filepath.Join(src.dir, filepath.FromSlash(srcPath))})
}

// copyDir copies a directory tree, without what op excludes
// (copyDirWithRoots; files in it are never merged).
func (c *treeCopier) copyDir(op copyOperation, src sourceDir, srcPath, dest, excludeBase string) error {
	return iofs.WalkDir(src.fs, srcPath, func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := relativePath(srcPath, p)
		if rel == "." {
			return c.mkdir(dest)
		}
		if src.hidden(p, d.IsDir()) || excludedPath(p, excludeBase, op.Exclude) {
			if d.IsDir() {
				return iofs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return c.mkdir(path.Join(dest, rel))
		}
		return c.put(path.Join(dest, rel), artifactFile{disk: filepath.Join(src.dir, filepath.FromSlash(p))})
	})
}

// relativePath returns p, a path at or under dir, relative to dir.
func relativePath(dir, p string) string {
	switch {
	case p == dir:
		return "."
	case dir == ".":
		return p
	}
	return strings.TrimPrefix(p, dir+"/")
}

// merge merges the YAML of the checkout file srcPath into the artifact's
// file at dest, as Helm merges values files (mergeFileWithRoots).
func (c *treeCopier) merge(existing artifactFile, srcPath, dest string) error {
	base, err := c.loadYAML(existing)
	if err != nil {
		return err
	}
	overlay, err := c.loadYAML(artifactFile{disk: srcPath})
	if err != nil {
		return err
	}
	data, err := sigsyaml.Marshal(mergeMap(base, overlay))
	if err != nil {
		return fmt.Errorf("failed to merged YAML: %w", err)
	}
	return c.put(dest, artifactFile{disk: existing.disk, data: data})
}

// loadYAML reads a multi-document YAML file into one map, later documents
// merged into earlier ones.
func (c *treeCopier) loadYAML(f artifactFile) (map[string]any, error) {
	data := f.data
	if data == nil {
		var err error
		if data, err = c.read(f.disk); err != nil {
			return nil, err
		}
	}
	out := map[string]any{}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("error reading YAML document: %w", err)
		}
		doc := map[string]any{}
		if err := sigsyaml.Unmarshal(raw, &doc); err != nil {
			return nil, fmt.Errorf("cannot unmarshal YAML document: %w", err)
		}
		out = mergeMap(out, doc)
	}
}

// mergeMap merges overlay into base, recursively for maps; anything else,
// lists included, is replaced.
func mergeMap(base, overlay map[string]any) map[string]any {
	out := make(map[string]any, len(base))
	maps.Copy(out, base)
	for k, v := range overlay {
		if vm, ok := v.(map[string]any); ok {
			if bm, ok := out[k].(map[string]any); ok {
				out[k] = mergeMap(bm, vm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// put records a file of the artifact and its parent directories.
func (c *treeCopier) put(dest string, f artifactFile) error {
	p, err := stagingPath(dest)
	if err != nil {
		return err
	}
	if c.tree.dirs[p] {
		return fmt.Errorf("open %s: is a directory", p)
	}
	if err := c.mkdir(path.Dir(p)); err != nil {
		return err
	}
	c.tree.files[p] = f
	return nil
}

// mkdir records a directory of the artifact and its parents.
func (c *treeCopier) mkdir(dest string) error {
	p, err := stagingPath(dest)
	if err != nil {
		return err
	}
	for ; ; p = path.Dir(p) {
		if _, isFile := c.tree.files[p]; isFile {
			return fmt.Errorf("mkdir %s: not a directory", p)
		}
		c.tree.dirs[p] = true
		if p == "." {
			return nil
		}
	}
}

// stagingPath cleans a path of the artifact, refusing one that climbs out
// of it, as os.Root does.
func stagingPath(p string) (string, error) {
	clean := path.Clean(p)
	if clean == ".." || strings.HasPrefix(clean, "../") || path.IsAbs(clean) {
		return "", fmt.Errorf("path %s escapes from the artifact", p)
	}
	if clean == "" {
		return ".", nil
	}
	return clean, nil
}

// globDestination is where a glob match lands (calculateGlobDestination):
// "dir/**" copies dir's content, any other pattern keeps the matched path.
func globDestination(pattern, match, dest string) string {
	if prefix, ok := strings.CutSuffix(pattern, "/**"); ok {
		if rel, ok := strings.CutPrefix(match, prefix+"/"); ok {
			return path.Join(dest, rel)
		}
	}
	return path.Join(dest, match)
}

// sourceSelectionRoot is the part of a pattern before its first glob.
func sourceSelectionRoot(pattern string) string {
	var root []string
	for _, part := range strings.Split(path.Clean(pattern), "/") {
		if strings.ContainsAny(part, "*?[]") {
			break
		}
		root = append(root, part)
	}
	if len(root) == 0 {
		return "."
	}
	return path.Join(root...)
}

// excludedPath matches the exclude patterns against a path relative to
// the source and relative to base, the selection's root (shouldExcludePath).
func excludedPath(p, base string, patterns []string) bool {
	if excluded(p, patterns) {
		return true
	}
	if base == "." || base == "" {
		return false
	}
	rel, ok := strings.CutPrefix(p, base+"/")
	return ok && rel != p && excluded(rel, patterns)
}

// excluded reports whether a pattern matches p, or p's file name when the
// pattern has no "/".
func excluded(p string, patterns []string) bool {
	for _, pattern := range patterns {
		if doublestar.MatchUnvalidated(pattern, p) ||
			(!strings.Contains(pattern, "/") && doublestar.MatchUnvalidated(pattern, path.Base(p))) {
			return true
		}
	}
	return false
}
