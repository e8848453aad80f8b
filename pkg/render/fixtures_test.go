package render

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// fixture loads testdata/<name> with the given path inside it.
func fixture(t *testing.T, name, path string, kinds ...string) (*Result, error) {
	t.Helper()
	root := filepath.Join("testdata", name)
	return Load(context.Background(), Options{Path: filepath.Join(root, path), RepoRoot: root, Kinds: kinds})
}

// fixtureCase is a case of TestLoadFixtures.
type fixtureCase struct {
	name    string
	path    string
	objects []string
	edges   []string
}

// fixtureCases are the fixtures of testdata/ TestLoadFixtures loads, with
// the objects and the dependencies each must give.
var fixtureCases = []fixtureCase{{
	name: "flux2-example",
	path: "clusters/production",
	objects: []string{
		"HelmRelease/cert-manager/cert-manager",
		"Kustomization/flux-system/apps",
		"Kustomization/flux-system/flux-system",
		"Kustomization/flux-system/infra-configs",
		"Kustomization/flux-system/infra-controllers",
		"HelmRelease/ingress-nginx/ingress-nginx",
		"HelmRelease/podinfo/podinfo",
	},
	edges: []string{
		"HelmRelease/ingress-nginx/ingress-nginx -> HelmRelease/cert-manager/cert-manager",
		"HelmRelease/podinfo/podinfo -> HelmRelease/ingress-nginx/ingress-nginx",
		"Kustomization/flux-system/apps -> Kustomization/flux-system/infra-configs",
		"Kustomization/flux-system/infra-configs -> Kustomization/flux-system/infra-controllers",
	},
}, {
	name: "cluster-apps",
	path: "kubernetes/flux/cluster",
	objects: []string{
		"HelmRelease/database/cloudnative-pg",
		"Kustomization/database/cloudnative-pg",
		"Kustomization/database/cloudnative-pg-cluster",
		"HelmRelease/default/echo",
		"Kustomization/default/echo",
		"Kustomization/flux-system/cluster-apps",
		"Kustomization/flux-system/cluster-vars",
	},
	edges: []string{
		"Kustomization/database/cloudnative-pg-cluster -> Kustomization/database/cloudnative-pg",
		"Kustomization/default/echo -> Kustomization/database/cloudnative-pg-cluster",
	},
}, {
	name: "features",
	path: "clusters/test",
	objects: []string{
		"Kustomization/flux-system/app",
		"Kustomization/flux-system/base-test",
		"Kustomization/flux-system/root",
		"Kustomization/tenants/tenant",
	},
	edges: []string{
		"Kustomization/flux-system/app -> Kustomization/flux-system/base-test",
		"Kustomization/flux-system/app -> Kustomization/tenants/tenant",
	},
}, {
	// Nothing in bootstrap/ builds bootstrap/ itself: the checkout stands
	// for the GitRepository only, and Flux's own Kustomization, built from
	// an OCIRepository at "./", is not rendered from these files.
	name: "unanchored",
	path: "bootstrap",
	objects: []string{
		"Kustomization/flux-system/apps",
		"Kustomization/flux-system/flux",
	},
}, {
	// A sourceRef without namespace resolves in the Kustomization's own
	// namespace, where the checkout defines no such source.
	name: "sourceref-namespace",
	path: "clusters/c",
	objects: []string{
		"Kustomization/cert-manager/cert-manager",
		"Kustomization/flux-system/apps",
		"Kustomization/flux-system/flux-system",
	},
}, {
	// .sops.yaml (a source-controller default) and apps/scratch (the
	// repository's .sourceignore) are not in the artifact Flux builds
	// from: the generated kustomizations must not scan them.
	name: "sourceignore",
	path: "clusters/c",
	objects: []string{
		"Kustomization/flux-system/apps",
		"Kustomization/flux-system/flux-system",
	},
}, {
	// Kustomizations built from ExternalArtifacts that ArtifactGenerators
	// of the checkout compose from it: apps from a layout of its own
	// (production/ refers to ../common), infra from a directory copied
	// as a directory of its own name, a-late from a generator that
	// another Kustomization applies; vendor's generator copies from
	// another source and lost's is nowhere: both are nodes, noted.
	name: "artifact-generator",
	path: "clusters/prod",
	objects: []string{
		"Kustomization/flux-system/a-late",
		"Kustomization/flux-system/apps",
		"Kustomization/flux-system/flux-system",
		"Kustomization/flux-system/generators",
		"Kustomization/flux-system/infra",
		"Kustomization/flux-system/lost",
		"Kustomization/flux-system/vendor",
		"HelmRelease/podinfo/podinfo",
	},
	edges: []string{"Kustomization/flux-system/apps -> Kustomization/flux-system/infra"},
}, {
	// The Flux Operator's layout: a FluxInstance syncs clusters/staging,
	// whose tenants Kustomization applies ResourceSets; infra generates
	// infra-controllers and infra-configs (after infra-controllers) for each
	// tenant, once the policies ResourceSet is ready, and apps a
	// Kustomization per tenant once monitoring/infra-configs is. The
	// generated Kustomizations build from OCIRepositories of other
	// repositories: nodes, not rendered.
	name: "d2-fleet",
	path: "clusters/staging",
	objects: []string{
		"Kustomization/backend/apps",
		"Kustomization/cert-manager/infra-configs",
		"Kustomization/cert-manager/infra-controllers",
		"ResourceSet/flux-system/apps",
		"HelmRelease/flux-system/flux-operator",
		"ResourceSet/flux-system/flux-operator",
		"Kustomization/flux-system/flux-system",
		"ResourceSet/flux-system/infra",
		"ResourceSet/flux-system/policies",
		"Kustomization/flux-system/tenants",
		"Kustomization/frontend/apps",
		"Kustomization/monitoring/infra-configs",
		"Kustomization/monitoring/infra-controllers",
	},
	edges: []string{
		"Kustomization/backend/apps -> Kustomization/monitoring/infra-configs",
		"Kustomization/cert-manager/infra-configs -> Kustomization/cert-manager/infra-controllers",
		"Kustomization/cert-manager/infra-configs -> ResourceSet/flux-system/policies",
		"Kustomization/cert-manager/infra-controllers -> ResourceSet/flux-system/policies",
		"Kustomization/frontend/apps -> Kustomization/monitoring/infra-configs",
		"Kustomization/monitoring/infra-configs -> Kustomization/monitoring/infra-controllers",
		"Kustomization/monitoring/infra-configs -> ResourceSet/flux-system/policies",
		"Kustomization/monitoring/infra-controllers -> ResourceSet/flux-system/policies",
		"ResourceSet/flux-system/apps -> Kustomization/monitoring/infra-configs",
		"ResourceSet/flux-system/infra -> ResourceSet/flux-system/policies",
	},
}, {
	name: "cycle",
	path: "clusters/c",
	objects: []string{
		"Kustomization/flux-system/a",
		"Kustomization/flux-system/b",
	},
}}

func TestLoadFixtures(t *testing.T) {
	for _, tt := range fixtureCases {
		t.Run(tt.name, func(t *testing.T) {
			res, err := fixture(t, tt.name, tt.path, KindKustomization, KindHelmRelease)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(res.Objects); !slices.Equal(got, tt.objects) {
				t.Errorf("objects:\n got %q\nwant %q", got, tt.objects)
			}
			if got := edges(res.Objects); !slices.Equal(got, tt.edges) {
				t.Errorf("edges:\n got %q\nwant %q", got, tt.edges)
			}
			golden(t, tt.name, summarize(t, res))
		})
	}
}
