//go:build !race

package render

import (
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/input"
)

// TestLoadBoundsNodeDenseInput is TestLoadBoundsHostileInput's file of a
// million YAML nodes. It is built without the race detector only: the scan
// of that file is sequential, and under the race detector it alone cost
// the suite about 13 s of CPU. make test runs it in its pass without -race.
func TestLoadBoundsNodeDenseInput(t *testing.T) {
	files := map[string]string{"apps/bad/dense.yaml": "a: [" + strings.Repeat("1,", input.MaxNodes) + "1]\n"}
	assertBadFailsAlone(t, files, "apps/bad/dense.yaml", "more than 1000000 YAML nodes in the file")
}
