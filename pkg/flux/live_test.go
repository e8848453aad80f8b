package flux

import (
	"context"
	"slices"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/kubestandup/standup/pkg/tiers"
)

func kustomization(ns, name, source string) *kustomizev1.Kustomization {
	ks := &kustomizev1.Kustomization{}
	ks.Namespace, ks.Name = ns, name
	ks.Spec.SourceRef = kustomizev1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: source}
	return ks
}

// TestListWithoutHelmController: HelmReleases asked of a cluster that does
// not serve them are a warning, and the Kustomizations are still listed,
// from every namespace.
func TestListWithoutHelmController(t *testing.T) {
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).
		WithObjects(kustomization("flux-system", "infra", "repo"), kustomization("apps", "web", "repo")).
		WithInterceptorFuncs(interceptor.Funcs{
			List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
				if _, ok := list.(*kustomizev1.KustomizationList); !ok {
					return &apimeta.NoKindMatchError{GroupKind: schema.GroupKind{Group: HelmGroup, Kind: KindHelmRelease}}
				}
				return c.List(ctx, list, opts...)
			},
		}).Build()
	objs, warnings, err := List(context.Background(), c, "", []string{KindKustomization, KindHelmRelease})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range objs {
		names = append(names, o.ID.NamespacedName())
	}
	if !slices.Equal(names, []string{"apps/web", "flux-system/infra"}) {
		t.Errorf("listed %v, want apps/web and flux-system/infra", names)
	}
	if len(warnings) != 1 || warnings[0] != ErrHelmNotInstalled.Error()+": no HelmReleases listed" {
		t.Errorf("warnings %q, want one saying helm-controller is not installed", warnings)
	}
}

// TestSourceRevisions reads each source once, and a source without an
// artifact has revision "".
func TestSourceRevisions(t *testing.T) {
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	withArtifact := &sourcev1.GitRepository{}
	withArtifact.Namespace, withArtifact.Name = "flux-system", "repo"
	withArtifact.Status.Artifact = &meta.Artifact{Revision: "main@sha1:abc"}
	bare := &sourcev1.GitRepository{}
	bare.Namespace, bare.Name = "apps", "new"
	gets := 0
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(withArtifact, bare).
		WithInterceptorFuncs(interceptor.Funcs{
			Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
				gets++
				return c.Get(ctx, key, obj, opts...)
			},
		}).Build()
	ref := func(ns, name string) tiers.ID {
		return tiers.ID{Kind: sourcev1.GitRepositoryKind, Namespace: ns, Name: name}
	}
	objs := []Object{
		{SourceRef: ref("flux-system", "repo")},
		{SourceRef: ref("flux-system", "repo")},
		{SourceRef: ref("apps", "new")},
		{}, // no source: a HelmRelease
	}
	revs, err := SourceRevisions(context.Background(), c, objs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[tiers.ID]string{ref("flux-system", "repo"): "main@sha1:abc", ref("apps", "new"): ""}
	if len(revs) != len(want) || revs[ref("flux-system", "repo")] != "main@sha1:abc" || revs[ref("apps", "new")] != "" || gets != 2 {
		t.Errorf("revisions %v after %d gets, want %v after 2", revs, gets, want)
	}
}

func TestDeclaringFiles(t *testing.T) {
	id := func(name string) tiers.ID {
		return tiers.ID{Kind: KindKustomization, Namespace: "flux-system", Name: name}
	}
	objs := []Object{
		{Node: tiers.Node{ID: id("a")}, File: "clusters/prod/a.yaml"},
		{Node: tiers.Node{ID: id("b")}, File: "clusters/prod/a.yaml"},
		{Node: tiers.Node{ID: id("c")}, File: "clusters/prod/c.yaml"},
		{Node: tiers.Node{ID: id("live")}},
	}
	tests := []struct {
		name    string
		missing []tiers.MissingDependency
		want    []string
	}{
		{"one file for two", []tiers.MissingDependency{{Dependent: id("a"), Missing: id("x")}, {Dependent: id("b"), Missing: id("x")}}, []string{"clusters/prod/a.yaml"}},
		{"in order", []tiers.MissingDependency{{Dependent: id("c"), Missing: id("x")}, {Dependent: id("a"), Missing: id("y")}}, []string{"clusters/prod/c.yaml", "clusters/prod/a.yaml"}},
		{"read live", []tiers.MissingDependency{{Dependent: id("live"), Missing: id("x")}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DeclaringFiles(objs, tt.missing); !slices.Equal(got, tt.want) {
				t.Errorf("DeclaringFiles = %v, want %v", got, tt.want)
			}
		})
	}
}
