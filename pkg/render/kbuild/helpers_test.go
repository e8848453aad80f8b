package kbuild

import (
	"fmt"
	"path/filepath"
)

// canonical returns path as an absolute path with symlinks resolved, as
// the loader resolves a repository root.
func canonical(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("path %s: %w", path, err)
	}
	return filepath.EvalSymlinks(abs)
}
