package wait

import (
	"context"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/kubestandup/standup/pkg/flux"
)

// TestClusterRequestReconcilePatch: a reconcile action performed through
// the real Cluster is one merge patch on the Kustomization, carrying the
// action's token as the request annotation, and spec.suspend=false only
// when the action resumes it.
func TestClusterRequestReconcilePatch(t *testing.T) {
	tests := []struct {
		name      string
		unsuspend bool
		wantBody  string
	}{
		{name: "request", wantBody: `{"metadata":{"annotations":{"reconcile.fluxcd.io/requestedAt":"tok"}}}`},
		{name: "resume and request", unsuspend: true,
			wantBody: `{"metadata":{"annotations":{"reconcile.fluxcd.io/requestedAt":"tok"}},"spec":{"suspend":false}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scheme, err := flux.NewScheme()
			if err != nil {
				t.Fatal(err)
			}
			ks := &kustomizev1.Kustomization{}
			ks.Namespace, ks.Name, ks.Spec.Suspend = "flux-system", "a", true
			var bodies []string
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ks).WithInterceptorFuncs(interceptor.Funcs{
				Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
					body, err := patch.Data(obj)
					if err != nil {
						return err
					}
					if patch.Type() != "application/merge-patch+json" || obj.GetNamespace() != "flux-system" || obj.GetName() != "a" {
						t.Errorf("patch %s on %s/%s, want a merge patch on flux-system/a", patch.Type(), obj.GetNamespace(), obj.GetName())
					}
					bodies = append(bodies, string(body))
					return c.Patch(ctx, obj, patch, opts...)
				},
			}).Build()
			act := actor{cluster: NewCluster(c), retry: testRetry}
			a := Action{Kind: ActionReconcile, Node: ksID("a"), Token: "tok", Unsuspend: tt.unsuspend}
			if res := act.perform(context.Background(), a); res.Err != nil {
				t.Fatal(res.Err)
			}
			if len(bodies) != 1 || bodies[0] != tt.wantBody {
				t.Fatalf("patches %q, want one: %s", bodies, tt.wantBody)
			}
			got := &kustomizev1.Kustomization{}
			if err := c.Get(context.Background(), client.ObjectKey{Namespace: "flux-system", Name: "a"}, got); err != nil {
				t.Fatal(err)
			}
			if got.Spec.Suspend == tt.unsuspend || got.Annotations[flux.ReconcileRequestAnnotation] != "tok" {
				t.Errorf("after the patch: suspend=%t annotations=%v", got.Spec.Suspend, got.Annotations)
			}
		})
	}
}
