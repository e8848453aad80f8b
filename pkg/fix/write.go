package fix

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kubestandup/standup/internal/input"
)

// Write writes the plan's files, each as a whole (a file beside it, renamed
// over it) with its permissions kept, and calls wrote after each. A file
// that changed on disk since the plan read it is not written: Write stops
// there with an error naming it, the files before it written.
func Write(ctx context.Context, p *Plan, wrote func(File)) error {
	for _, f := range p.Files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := writeFile(f); err != nil {
			return err
		}
		if wrote != nil {
			wrote(f)
		}
	}
	return nil
}

func writeFile(f File) error {
	now, _, err := input.ReadBounded(f.Path)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	if !bytes.Equal(now, f.Before) {
		return fmt.Errorf("%s changed since audit read it: not written (run audit --fix again)", f.Name)
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.Path), "."+filepath.Base(f.Path)+".standup-*")
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	defer os.Remove(tmp.Name()) // once renamed, there is nothing left to remove
	if _, err := tmp.Write(f.After); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	if err := tmp.Chmod(f.Mode); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	if err := os.Rename(tmp.Name(), f.Path); err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	return nil
}
