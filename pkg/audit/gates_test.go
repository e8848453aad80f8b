package audit

import (
	"slices"
	"strings"
	"testing"
)

// TestCRDGate: issue 35. A Kustomization whose health checks wait for a
// CRD (the CRD gate: empty, or not rendered offline) guarantees that kind
// to whatever is Ready after it, and only that kind; a gate its own origin
// waits for deadlocks. testdata/crd-gate/README.md describes the variants.
func TestCRDGate(t *testing.T) {
	tests := []struct {
		variant string
		want    []string
		// says is what the first hazard's message must name.
		says []string
	}{
		{variant: "after-release"},
		{variant: "alone"},
		{
			variant: "one-kind",
			want:    []string{"UNGUARDED_PROVIDER warning issuers Certificate/cert-manager/wildcard provider=cert-manager trigger=HelmRelease"},
		},
		{variant: "unrendered"},
		{
			variant: "cycle",
			want: []string{
				"ORIGIN_CYCLE error issuers Certificate/cert-manager/wildcard provider=cert-manager trigger=HelmRelease",
				"ORIGIN_CYCLE error issuers ClusterIssuer/letsencrypt-production provider=cert-manager trigger=HelmRelease",
			},
			says: []string{
				"flux-system/cert-manager -> flux-system/cert-manager-crds",
				"Kustomization/flux-system/cert-manager-crds waits for CustomResourceDefinition/certificates.cert-manager.io (a health check) before it turns Ready",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.variant, func(t *testing.T) {
			r := auditDir(t, "testdata/crd-gate", "clusters/"+tt.variant)
			var got []string
			for _, h := range r.Hazards {
				got = append(got, brief(h))
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("hazards:\n got %q\nwant %q", got, tt.want)
			}
			for _, s := range tt.says {
				if !strings.Contains(r.Hazards[0].Message, s) {
					t.Errorf("message %q does not say %q", r.Hazards[0].Message, s)
				}
			}
			for _, u := range r.Kinds {
				gated := u.Kind == "ClusterIssuer" || (u.Kind == "Certificate" && tt.variant != "one-kind")
				says := strings.Contains(u.Evidence, "the health check of Kustomization/flux-system/cert-manager-crds on CustomResourceDefinition/")
				if u.Kustomization.Name == "issuers" && gated != says {
					t.Errorf("%s: evidence %q", u.Kind, u.Evidence)
				}
			}
		})
	}
}
