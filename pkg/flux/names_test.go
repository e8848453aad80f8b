package flux

import (
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
)

// TestNamesMatchFluxAPIs keeps the names written here in step with the
// Flux API modules they restate as constants.
func TestNamesMatchFluxAPIs(t *testing.T) {
	checks := []struct{ name, got, want string }{
		{"KustomizeGroup", KustomizeGroup, kustomizev1.GroupVersion.Group},
		{"SourceGroup", SourceGroup, sourcev1.GroupVersion.Group},
		{"KustomizationGVR", KustomizationGVR.String(), kustomizev1.GroupVersion.WithResource("kustomizations").String()},
		{"KustomizationResource", KustomizationResource, "kustomizations.kustomize.toolkit.fluxcd.io"},
		{"KustomizationCRD", KustomizationCRD, "kustomizations.kustomize.toolkit.fluxcd.io"},
		{"HelmReleaseResource", HelmReleaseResource, "helmreleases.helm.toolkit.fluxcd.io"},
		{"ReconcileRequestAnnotation", ReconcileRequestAnnotation, "reconcile.fluxcd.io/requestedAt"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
}

func TestSourceGVR(t *testing.T) {
	tests := []struct {
		kind string
		want string // GroupResource, "" when not a source kind
	}{
		{sourcev1.GitRepositoryKind, "gitrepositories.source.toolkit.fluxcd.io"},
		{sourcev1.OCIRepositoryKind, "ocirepositories.source.toolkit.fluxcd.io"},
		{sourcev1.BucketKind, "buckets.source.toolkit.fluxcd.io"},
		{"HelmRepository", ""},
		{"", ""},
	}
	for _, tt := range tests {
		gvr, ok := SourceGVR(tt.kind)
		if ok != (tt.want != "") || (ok && gvr.GroupResource().String() != tt.want) || (ok && gvr.Version != sourcev1.GroupVersion.Version) {
			t.Errorf("SourceGVR(%q) = %v, %t; want %q", tt.kind, gvr, ok, tt.want)
		}
	}
}
