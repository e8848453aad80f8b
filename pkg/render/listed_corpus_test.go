//go:build !race

package render

import (
	"path/filepath"
	"testing"
)

// TestListedBuildMatchesKustomizeOnTheCorpus is TestListedBuildMatchesKustomize
// on every corpus repository. Like TestShortcutsMatchExactRenderOnTheCorpus
// it is built without the race detector only (the two builds of eleven real
// repositories cost the race-detected suite about half a minute of CPU, and
// the fixtures race the same code); make test runs it in its pass without
// -race.
func TestListedBuildMatchesKustomizeOnTheCorpus(t *testing.T) {
	corpus := corpusDir(t, "the corpus builds a dozen real repositories twice")
	listed := 0
	for _, c := range corpusCases {
		t.Run(c.name, func(t *testing.T) {
			listed += compareListedBuilds(t, filepath.Join(corpus, c.root))
		})
	}
	if listed == 0 {
		t.Error("no corpus directory was built without kustomize: the comparison proves nothing")
	}
}
