package corpus

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCrossplaneFixturesExitCodes: issue 35's first "done when", through
// the binary. pkg/audit's Crossplane fixtures (Crossplane's documented AWS
// S3 provider with its ProviderConfig, and an XRD with a claim): in one
// Kustomization, `standup audit` exits 1 with SECOND_ORDER_SAME_PASS,
// naming the provider package or the XRD; moved to a dependent
// Kustomization of one that waits, it exits 0 with no finding.
func TestCrossplaneFixturesExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary: not a -short test")
	}
	bin := buildStandup(t)
	tests := []struct {
		fixture string
		code    int
		says    []string
	}{
		{"provider-same-pass", 1, []string{"SECOND_ORDER_SAME_PASS  ProviderConfig.aws.upbound.io", "provider package provider-aws-s3"}},
		{"provider-split", 0, []string{"✓ 0 errors, 0 warnings"}},
		{"xrd-same-pass", 1, []string{"SECOND_ORDER_SAME_PASS  Database.custom-api.example.org", "XRD xdatabases.custom-api.example.org"}},
		{"xrd-split", 0, []string{"✓ 0 errors, 0 warnings"}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			root := filepath.Join("..", "..", "pkg", "audit", "testdata", "crossplane", tt.fixture)
			out, errOut, code := run(t, bin, "audit", "--path", filepath.Join(root, "clusters", "prod"), "--repo-root", root, "-q")
			if code != tt.code {
				t.Fatalf("audit exit %d, want %d\n%s\n%s", code, tt.code, out, errOut)
			}
			for _, s := range tt.says {
				if !strings.Contains(out, s) {
					t.Errorf("audit does not say %q:\n%s", s, out)
				}
			}
		})
	}
}
