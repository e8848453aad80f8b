package audit

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCrossplaneFromTheRepository: issue 35. Crossplane's runtime kinds
// come from the repository, not from a catalog entry per provider or per
// XRD. The fixtures are Crossplane's documented examples (the AWS S3
// provider and its ProviderConfig; an XRD with a claim) under Flux: in one
// Kustomization they deadlock a cold start (the dry-run fails on the kind
// Crossplane has not created yet, so its Provider or XRD is never
// applied), and moved to a dependent Kustomization of one that waits, they
// do not.
func TestCrossplaneFromTheRepository(t *testing.T) {
	tests := []struct {
		fixture string
		// want is "Kind.group Kustomization" of the one error, "" for none.
		want string
		// says is what the error's message must name.
		says     []string
		evidence string
	}{
		{"provider-same-pass", "ProviderConfig.aws.upbound.io Kustomization/flux-system/providers",
			[]string{"provider package provider-aws-s3", "Provider/provider-aws-s3", "never converges"}, "Crossplane's provider naming"},
		{"provider-split", "", nil, ""},
		{"xrd-same-pass", "Database.custom-api.example.org Kustomization/flux-system/apis",
			[]string{"XRD xdatabases.custom-api.example.org", "never converges"}, "its XRD"},
		{"xrd-split", "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			r := auditDir(t, filepath.Join("testdata", "crossplane", tt.fixture), "clusters/prod")
			if tt.want == "" {
				if len(r.Findings) != 0 {
					t.Fatalf("findings %+v, want none", r.Findings)
				}
				return
			}
			if len(r.Findings) != 1 || r.Errors() != 1 {
				t.Fatalf("findings %+v, want one error", r.Findings)
			}
			f := r.Findings[0]
			h := f.Places[0]
			if f.Code != CodeSecondOrderSamePass || f.Kind.String()+" "+h.Kustomization.String() != tt.want {
				t.Fatalf("finding %s %s at %s, want SECOND_ORDER_SAME_PASS %s", f.Code, f.Kind, h.Kustomization, tt.want)
			}
			for _, s := range tt.says {
				if !strings.Contains(h.Message, s) {
					t.Errorf("message %q does not say %q", h.Message, s)
				}
			}
			if h.Evidence != tt.evidence {
				t.Errorf("evidence %q, want %q", h.Evidence, tt.evidence)
			}
		})
	}
}
