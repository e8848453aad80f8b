package flux

import (
	"context"
	"errors"
	"strings"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/kubestandup/standup/pkg/tiers"
)

func TestReconcilePatch(t *testing.T) {
	const token = "2026-09-05T03:00:00.123Z"
	tests := []struct {
		name      string
		unsuspend bool
		want      string
	}{
		{
			name: "request only: spec untouched",
			want: `{"metadata":{"annotations":{"reconcile.fluxcd.io/requestedAt":"2026-09-05T03:00:00.123Z"}}}`,
		},
		{
			name: "resume: spec.suspend=false in the same write", unsuspend: true,
			want: `{"metadata":{"annotations":{"reconcile.fluxcd.io/requestedAt":"2026-09-05T03:00:00.123Z"}},"spec":{"suspend":false}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(ReconcilePatch(token, tt.unsuspend)); got != tt.want {
				t.Errorf("ReconcilePatch = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestRequestReconcile sends the patch to a fake API server: one merge
// patch on the named Kustomization, which sets the annotation and resumes
// it only when asked.
func TestRequestReconcile(t *testing.T) {
	id := tiers.ID{Kind: KindKustomization, Namespace: "apps", Name: "web"}
	for _, unsuspend := range []bool{false, true} {
		scheme, err := NewScheme()
		if err != nil {
			t.Fatal(err)
		}
		ks := &kustomizev1.Kustomization{}
		ks.Namespace, ks.Name, ks.Spec.Suspend = id.Namespace, id.Name, true
		var patches []client.Patch
		c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ks).WithInterceptorFuncs(interceptor.Funcs{
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				patches = append(patches, patch)
				return c.Patch(ctx, obj, patch, opts...)
			},
		}).Build()
		if err := RequestReconcile(context.Background(), c, id, "t1", unsuspend); err != nil {
			t.Fatal(err)
		}
		if len(patches) != 1 || patches[0].Type() != "application/merge-patch+json" {
			t.Fatalf("unsuspend=%t: patches %v, want one merge patch", unsuspend, patches)
		}
		got := &kustomizev1.Kustomization{}
		if err := c.Get(context.Background(), client.ObjectKey{Namespace: id.Namespace, Name: id.Name}, got); err != nil {
			t.Fatal(err)
		}
		if got.Annotations[ReconcileRequestAnnotation] != "t1" {
			t.Errorf("unsuspend=%t: annotations %v, want %s=t1", unsuspend, got.Annotations, ReconcileRequestAnnotation)
		}
		if got.Spec.Suspend == unsuspend {
			t.Errorf("unsuspend=%t: spec.suspend = %t after the request", unsuspend, got.Spec.Suspend)
		}
	}
}

func TestRequestReconcileExplainsFailures(t *testing.T) {
	id := tiers.ID{Kind: KindKustomization, Namespace: "apps", Name: "web"}
	gr := schema.GroupResource{Group: KustomizeGroup, Resource: "kustomizations"}
	tests := []struct {
		name   string
		err    error
		want   string
		wantIs error
	}{
		{
			name: "refused",
			err:  apierrors.NewForbidden(gr, "web", errors.New(`User "u" cannot patch resource "kustomizations" in API group "kustomize.toolkit.fluxcd.io" in the namespace "apps"`)),
			want: `Kustomization/apps/web reconcile request failed: forbidden: standup needs "patch" on kustomizations.kustomize.toolkit.fluxcd.io`,
		},
		{
			name:   "no Kustomization API",
			err:    &apimeta.NoKindMatchError{GroupKind: schema.GroupKind{Group: KustomizeGroup, Kind: KindKustomization}, SearchedVersions: []string{"v1"}},
			want:   "Kustomization/apps/web reconcile request failed: Flux is not installed on this cluster (no kustomizations.kustomize.toolkit.fluxcd.io API): install Flux, or check --context",
			wantIs: ErrNotInstalled,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := interceptor.NewClient(fake.NewClientBuilder().Build(), interceptor.Funcs{
				Patch: func(context.Context, client.WithWatch, client.Object, client.Patch, ...client.PatchOption) error {
					return tt.err
				},
			})
			err := RequestReconcile(context.Background(), c, id, "t1", false)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %v, want prefix %q", err, tt.want)
			}
			if !errors.Is(err, tt.err) || (tt.wantIs != nil && !errors.Is(err, tt.wantIs)) {
				t.Errorf("err = %v does not wrap %v and %v", err, tt.err, tt.wantIs)
			}
		})
	}
}
