package flux

import (
	"context"
	"encoding/json"
	"fmt"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

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

// RequestReconcile asks kustomize-controller to reconcile the Kustomization
// id now, with ReconcilePatch: the request is handled when the object's
// status.lastHandledReconcileAt equals token.
func RequestReconcile(ctx context.Context, c client.Writer, id tiers.ID, token string, unsuspend bool) error {
	ks := &kustomizev1.Kustomization{}
	ks.Namespace, ks.Name = id.Namespace, id.Name
	if err := c.Patch(ctx, ks, client.RawPatch(client.Merge.Type(), ReconcilePatch(token, unsuspend))); err != nil {
		return fmt.Errorf("%s reconcile request failed: %w", id, ExplainKustomizations(err, "patch"))
	}
	return nil
}
