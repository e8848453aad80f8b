//go:build !race

package render

import (
	"path/filepath"
	"testing"

	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
)

// TestShortcutsMatchExactRenderOnTheCorpus is TestShortcutsMatchExactRender
// on every corpus repository. It is built without the race detector only:
// eleven real repositories rendered twice under it cost the suite about
// four minutes of CPU on two cores, and the render's concurrency is raced
// by the fixture cases of TestShortcutsMatchExactRender and the rest of the
// package. make test (scripts/test.sh) runs it in a pass of its own without
// -race, beside the race-detected suite.
func TestShortcutsMatchExactRenderOnTheCorpus(t *testing.T) {
	corpus := rendertest.CorpusDir(t, "the corpus renders a dozen real repositories twice")
	for _, c := range rendertest.CorpusCases {
		t.Run(c.Name, func(t *testing.T) {
			compareShortcuts(t, exactCase{"corpus/" + c.Name, filepath.Join(corpus, c.Root), c.Path})
		})
	}
}
