package audit

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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

// TestUnknownKindBesideARuntimeInstaller: issue 35. A kind of unknown
// origin applied in the same pass as an object that installs CRDs at
// runtime, which the catalog does not know (a Crossplane Configuration or
// Function, a Provider whose package's groups do not name the kind, an OLM
// Subscription), is likely one of its kinds: a warning that names the
// installer. With no such neighbour it stays a notice.
func TestUnknownKindBesideARuntimeInstaller(t *testing.T) {
	network := obj("platform.example.org/v1alpha1", "XNetwork", "default/net")
	tests := []struct {
		name     string
		objects  []*unstructured.Unstructured
		severity Severity
		names    string
	}{
		{"a Configuration", objects(obj("pkg.crossplane.io/v1", "Configuration", "platform-ref-aws",
			"spec", map[string]any{"package": "xpkg.upbound.io/upbound/platform-ref-aws:v0.9.0"}), network), SeverityWarning, "Configuration/platform-ref-aws"},
		{"a Function", objects(obj("pkg.crossplane.io/v1beta1", "Function", "function-patch-and-transform"), network), SeverityWarning, "Function/function-patch-and-transform"},
		{"an OLM Subscription", objects(obj("operators.coreos.com/v1alpha1", "Subscription", "operators/my-operator"), network), SeverityWarning, "Subscription/operators/my-operator"},
		{"a Provider whose package does not name the group", objects(obj("pkg.crossplane.io/v1", "Provider", "provider-family-aws",
			"spec", map[string]any{"package": "xpkg.upbound.io/upbound/provider-family-aws:v1"}), obj("s3.aws.upbound.io/v1beta1", "Bucket", "b")), SeverityWarning, "Provider/provider-family-aws"},
		{"no installer in the pass", objects(cmap(nil), network), SeverityNotice, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Audit(result(ks{name: "platform", objects: tt.objects}), nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			// The installer's own kind has no origin here either (no
			// Crossplane or OLM in the fixture): only the last object's
			// finding is under test.
			last := tt.objects[len(tt.objects)-1]
			i := slices.IndexFunc(r.Findings, func(f Finding) bool { return f.Kind.Kind == last.GetKind() })
			if i < 0 {
				t.Fatalf("findings %+v, want one for %s", r.Findings, last.GetKind())
			}
			f := r.Findings[i]
			h := f.Places[0]
			if f.Code != CodeUnknownKind || h.Severity != tt.severity {
				t.Fatalf("%s %s, want %s %s: %s", f.Code, h.Severity, CodeUnknownKind, tt.severity, h.Message)
			}
			if tt.names == "" {
				if strings.Contains(h.Message, "installs CRDs at runtime") {
					t.Errorf("a notice names an installer: %s", h.Message)
				}
				return
			}
			for _, want := range []string{"same pass as " + tt.names, "installs CRDs at runtime", "never converges"} {
				if !strings.Contains(h.Message, want) {
					t.Errorf("message %q does not say %q", h.Message, want)
				}
			}
			if !strings.Contains(h.Fix, "if "+tt.names+" installs it") {
				t.Errorf("fix %q does not name the installer", h.Fix)
			}
		})
	}
}
