package audit

import (
	"slices"
	"strings"
	"testing"
)

// TestBlockedClauseStands: issue 35. A warning says its origin "itself
// never gets that far on a cold start (another finding says why)" only
// when that other finding is an error that stands: a deadlock downgraded
// to a warning (an opaque Kustomization may apply the CRD, or only
// valuesFrom says whether the chart installs it) converges as far as the
// audit can tell, and so does what waits for it. The variants are
// testdata/blocked-clause/README.md's.
func TestBlockedClauseStands(t *testing.T) {
	tests := []struct {
		variant string
		want    []string
		// blocked says whether the Certificate's MISSING_EDGE carries the
		// clause (and no retry) rather than the retry.
		blocked bool
		// samePass is what the SECOND_ORDER_SAME_PASS message must say of
		// why it is (or is not) an error.
		samePass string
	}{{
		variant: "stands",
		want: []string{
			"SECOND_ORDER_SAME_PASS error cert-manager ClusterIssuer/letsencrypt-production provider=cert-manager trigger=HelmRelease",
			"MISSING_EDGE warning apps Certificate/web/web provider=cert-manager trigger=HelmRelease",
		},
		blocked:  true,
		samePass: "the pass never converges",
	}, {
		variant:  "opaque",
		samePass: "only if Kustomization/",
		want: []string{
			"MISSING_EDGE warning apps Certificate/web/web provider=cert-manager trigger=HelmRelease",
			"SECOND_ORDER_SAME_PASS warning cert-manager ClusterIssuer/letsencrypt-production provider=cert-manager trigger=HelmRelease",
		},
	}, {
		variant:  "values-from",
		samePass: "if its values (which spec.valuesFrom completes) switch the CRDs on",
		want: []string{
			"MISSING_EDGE warning apps Certificate/web/web provider=cert-manager trigger=HelmRelease",
			"SECOND_ORDER_SAME_PASS warning cert-manager ClusterIssuer/letsencrypt-production provider=cert-manager trigger=HelmRelease",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.variant, func(t *testing.T) {
			r := auditDir(t, "testdata/blocked-clause", "clusters/"+tt.variant)
			var got []string
			for _, h := range r.Hazards {
				got = append(got, brief(h))
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("hazards:\n got %q\nwant %q", got, tt.want)
			}
			for _, h := range r.Hazards {
				if h.Code == CodeSecondOrderSamePass && !strings.Contains(h.Message, tt.samePass) {
					t.Errorf("SECOND_ORDER_SAME_PASS says %q, want it to say %q", h.Message, tt.samePass)
				}
			}
			for _, f := range r.Findings {
				if f.Code != CodeMissingEdge {
					continue
				}
				h := f.Places[0]
				for _, text := range []string{h.Message, f.Message} {
					if says := strings.Contains(text, "never gets that far"); says != tt.blocked {
						t.Errorf("blocked clause %v, want %v: %q", says, tt.blocked, text)
					}
				}
				if retries := h.Retry == "2m" && strings.Contains(h.Message, "converges on a retry after 2m (its retryInterval)"); retries == tt.blocked {
					t.Errorf("retry %q, want one only when not blocked: %q", h.Retry, h.Message)
				}
			}
		})
	}
}
