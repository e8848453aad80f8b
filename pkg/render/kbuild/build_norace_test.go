//go:build !race

package kbuild

import (
	"path/filepath"
	"testing"

	securefs "github.com/fluxcd/pkg/kustomize/filesys"
)

// The fidelity checks of builds against kustomize's own, which run one
// build at a time and so have nothing for the race detector to see: under
// it, kustomize runs several times slower (make test runs them in its pass
// without -race; see scripts/test.sh).

// TestRunKustomizeMatchesFlux checks that the fast build gives byte for byte
// what fluxcd/pkg/kustomize.Build gives, on overlays that use patches,
// components, generators and bases outside the directory.
func TestRunKustomizeMatchesFlux(t *testing.T) {
	tests := []struct{ root, dir string }{
		{"features", "base"},
		{"flux2-example", "apps/production"},
		{filepath.Join("..", "..", "..", "examples", "homelab"), "platform-config-cdi"},
	}
	for _, tt := range tests {
		t.Run(tt.root+"/"+tt.dir, func(t *testing.T) {
			root, err := canonical(filepath.Join("..", "testdata", tt.root))
			if err != nil {
				t.Fatal(err)
			}
			disk, err := securefs.MakeFsOnDiskSecure(root)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(root, tt.dir)
			var out [2]string
			for i, mode := range []buildMode{exactBuild, sharedBuild} {
				m, _, err := runKustomize(disk, dir, mode, true)
				if err != nil {
					t.Fatalf("mode %v: %v", mode, err)
				}
				data, err := m.AsYaml()
				if err != nil {
					t.Fatal(err)
				}
				out[i] = string(data)
			}
			if out[0] == "" || out[0] != out[1] {
				t.Errorf("fluxcd/pkg/kustomize.Build gives\n%s\nthe fast build gives\n%s", out[0], out[1])
			}
		})
	}
}
