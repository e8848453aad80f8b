//go:build !race

package kbuild

import (
	"path/filepath"
	"testing"

	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
)

// TestListedBuildMatchesKustomizeOnTheCorpus is TestListedBuildMatchesKustomize
// on every corpus repository. Like TestShortcutsMatchExactRenderOnTheCorpus
// it is built without the race detector only (the two builds of eleven real
// repositories cost the race-detected suite about half a minute of CPU, and
// the fixtures race the same code); make test runs it in its pass without
// -race.
func TestListedBuildMatchesKustomizeOnTheCorpus(t *testing.T) {
	corpus := rendertest.CorpusDir(t, "the corpus builds a dozen real repositories twice")
	listed := 0
	for _, c := range rendertest.CorpusCases {
		t.Run(c.Name, func(t *testing.T) {
			listed += compareListedBuilds(t, filepath.Join(corpus, c.Root))
		})
	}
	if listed == 0 {
		t.Error("no corpus directory was built without kustomize: the comparison proves nothing")
	}
}
