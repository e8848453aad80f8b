package kbuild

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/fluxcd/pkg/sourceignore"

	"github.com/kubestandup/standup/internal/ciskip"
	"github.com/kubestandup/standup/internal/input"
	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
)

// TestLoadIgnorePatternsMatchesSourceignore holds the one walk that loads
// the patterns of every .sourceignore to sourceignore.LoadIgnorePatterns,
// on fixtures with and without them, and refuses a named pipe as one.
func TestLoadIgnorePatternsMatchesSourceignore(t *testing.T) {
	planted := t.TempDir()
	rendertest.WriteFiles(t, planted, map[string]string{
		".sourceignore":          "# top\n*.md\n\n/scratch/\n",
		"a/.sourceignore":        "!keep.md\n",
		"a/b/.sourceignore":      "*.tmp\n",
		"a/b/c/d.yaml":           "x: 1\n",
		"b/.sourceignore/x.yaml": "a directory named .sourceignore\n",
		".git/.sourceignore":     "never read\n",
		"z/.sourceignore":        "/only-z\n",
	})
	if err := os.Symlink(filepath.Join(planted, "a"), filepath.Join(planted, "link")); err != nil {
		t.Fatal(err)
	}
	roots := map[string]string{
		"planted":      planted,
		"sourceignore": filepath.Join("..", "testdata", "sourceignore"),
		"features":     filepath.Join("..", "testdata", "features"),
		"examples":     filepath.Join("..", "..", "..", "examples"),
	}
	for name, root := range roots {
		t.Run(name, func(t *testing.T) {
			root, err := canonical(root)
			if err != nil {
				t.Fatal(err)
			}
			domain := strings.Split(root, string(filepath.Separator))
			want, wantErr := sourceignore.LoadIgnorePatterns(root, domain)
			got, gotErr := (&Builder{}).loadIgnorePatterns(root, domain)
			if (gotErr != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
				t.Errorf("patterns %v (%v), sourceignore's %v (%v)", got, gotErr, want, wantErr)
			}
		})
	}
	t.Run("a named pipe", func(t *testing.T) {
		root := t.TempDir()
		rendertest.WriteFiles(t, root, map[string]string{"a/x.yaml": "x: 1\n"})
		if err := syscall.Mkfifo(filepath.Join(root, "a", sourceignore.IgnoreFile), 0o644); err != nil {
			ciskip.Skipf(t, "mkfifo: %v", err)
		}
		_, err := (&Builder{}).loadIgnorePatterns(root, strings.Split(root, string(filepath.Separator)))
		if lim, ok := input.IsLimit(err); !ok || !strings.HasSuffix(lim.File, filepath.Join("a", sourceignore.IgnoreFile)) {
			t.Errorf("error %v, want the pipe refused", err)
		}
	})
}
