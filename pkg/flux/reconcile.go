package flux

import (
	"context"
	"encoding/json"
	"fmt"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/kube"
	"github.com/kubestandup/standup/pkg/tiers"
)

// ReconcilePatch is the merge patch that asks for a reconcile: it sets
// ReconcileRequestAnnotation to token and, when unsuspend is set, also
// spec.suspend=false, as `flux resume` does, in one write.
func ReconcilePatch(token string, unsuspend bool) []byte {
	type metadata struct {
		Annotations map[string]string `json:"annotations"`
	}
	type spec struct {
		Suspend bool `json:"suspend"`
	}
	patch := struct {
		Metadata metadata `json:"metadata"`
		Spec     *spec    `json:"spec,omitempty"`
	}{Metadata: metadata{Annotations: map[string]string{ReconcileRequestAnnotation: token}}}
	if unsuspend {
		patch.Spec = &spec{Suspend: false}
	}
	data, _ := json.Marshal(patch) // cannot fail: strings and a bool
	return data
}

// RequestReconcile asks Flux to reconcile the Kustomization or HelmRelease
// id now, with ReconcilePatch, as `flux reconcile ks|hr` (and `flux resume`
// when unsuspend is set) does: the request is handled when the object's
// status.lastHandledReconcileAt equals token. A ResourceSet is asked the
// same way, as `flux-operator reconcile|resume resourceset` asks it
// (resourceSetReconcilePatch).
func RequestReconcile(ctx context.Context, c client.Writer, id tiers.ID, token string, unsuspend bool) error {
	if id.Kind == KindResourceSet {
		rs := &unstructured.Unstructured{}
		rs.SetGroupVersionKind(ResourceSetGVK)
		rs.SetNamespace(id.Namespace)
		rs.SetName(id.Name)
		if err := c.Patch(ctx, rs, client.RawPatch(client.Merge.Type(), resourceSetReconcilePatch(token, unsuspend))); err != nil {
			return fmt.Errorf("%s reconcile request failed: %w", id, kube.Explain(err, "patch", ResourceSetResource))
		}
		return nil
	}
	patch := client.RawPatch(client.Merge.Type(), ReconcilePatch(token, unsuspend))
	if id.Kind == KindHelmRelease {
		hr := &unstructured.Unstructured{}
		hr.SetGroupVersionKind(HelmReleaseGVK)
		hr.SetNamespace(id.Namespace)
		hr.SetName(id.Name)
		if err := c.Patch(ctx, hr, patch); err != nil {
			return fmt.Errorf("%s reconcile request failed: %w", id, kube.Explain(err, "patch", HelmReleaseResource))
		}
		return nil
	}
	ks := &kustomizev1.Kustomization{}
	ks.Namespace, ks.Name = id.Namespace, id.Name
	if err := c.Patch(ctx, ks, patch); err != nil {
		return fmt.Errorf("%s reconcile request failed: %w", id, ExplainKustomizations(err, "patch"))
	}
	return nil
}
