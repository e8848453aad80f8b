//go:build !race

package input

import (
	"strings"
	"testing"
)

// The inputs at the limits themselves, 16 MiB and a million YAML nodes, are
// built without the race detector only. Their scans run on one goroutine,
// so the race detector has nothing to find in them, and under it they cost
// the suite over half a minute of CPU on two cores. make test
// (scripts/test.sh) runs every //go:build !race test in a pass of its own
// without -race, beside the race-detected suite.

func TestReadFileAtTheSizeLimit(t *testing.T) {
	assertReadFile(t, regular(strings.Repeat("#", MaxFileSize)), "")
}

func TestCheckYAMLAtTheNodeLimit(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"many nodes", "[" + strings.Repeat("1,", MaxNodes) + "1]\n", "more than 1000000 YAML nodes in the file; split it"},
		{"many nodes over documents", strings.Repeat("["+strings.Repeat("1,", MaxNodes/4)+"1]\n---\n", 4), "document 4: more than 1000000 YAML nodes"},
		{"just within the node limit", "[" + strings.Repeat("1,", MaxNodes-3) + "1]\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assertCheckYAML(t, tt.data, tt.want) })
	}
}
