package kbuild

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/fluxcd/pkg/sourceignore"
	"github.com/fluxcd/pkg/sourceignore/gitignore"

	"github.com/kubestandup/standup/internal/input"
)

// loadIgnorePatterns is sourceignore.LoadIgnorePatterns of dir (the
// patterns of every .sourceignore under it, in the order it reads them,
// skipping .git and symlinked directories), in one walk that also refuses
// what input.CheckRegular refuses of a .sourceignore before it is opened (a
// named pipe would block the read forever). The two walks it replaces
// read every directory of the repository twice, and tried to open a
// .sourceignore in each: a twentieth of a render of thousands of
// one-file directories. A refused file is an *input.LimitError.
func (b *Builder) loadIgnorePatterns(dir string, domain []string) ([]gitignore.Pattern, error) {
	// A copy of its own length, so that appending a directory's name makes
	// another: the patterns of sibling directories must not share one.
	dom := make([]string, len(domain))
	copy(dom, domain)
	entries, dirErr := os.ReadDir(dir)
	var ps []gitignore.Pattern
	if i := slices.IndexFunc(entries, func(e os.DirEntry) bool { return e.Name() == sourceignore.IgnoreFile }); i >= 0 || dirErr != nil {
		// As LoadIgnorePatterns, the file before the directory's error.
		path := filepath.Join(dir, sourceignore.IgnoreFile)
		if i < 0 || !entries[i].IsDir() {
			if lim, ok := input.IsLimit(input.CheckRegular(path)); ok {
				return nil, lim
			}
		}
		var err error
		if ps, err = sourceignore.ReadIgnoreFile(path, dom); err != nil {
			return nil, err
		}
	}
	if dirErr != nil {
		return nil, dirErr
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == ".git" {
			continue
		}
		sub, err := b.loadIgnorePatterns(filepath.Join(dir, e.Name()), append(dom, e.Name()))
		if err != nil {
			return nil, err
		}
		ps = append(ps, sub...)
	}
	return ps, nil
}
