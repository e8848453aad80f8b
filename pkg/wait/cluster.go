package wait

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// Cluster is every write a walk makes: the loop performs the walker's
// actions through it, so they can be tested against a fake. The watches
// that feed the walker read the cluster through the dynamic client instead.
type Cluster interface {
	// RequestReconcile asks kustomize-controller to reconcile the
	// Kustomization id now, with token as the request, and resumes it in the
	// same write when unsuspend is set.
	RequestReconcile(ctx context.Context, id tiers.ID, token string, unsuspend bool) error
	// PreApplyCRDs creates the CRDs of bundle for d's missing kinds that the
	// cluster lacks, leaving alone any that exist.
	PreApplyCRDs(ctx context.Context, bundle *crds.Bundle, d crds.Diagnosis) (crds.Result, error)
}

// NewCluster returns the Cluster that writes through c: flux.RequestReconcile
// and crds.PreApply.
func NewCluster(c client.Client) Cluster { return clientCluster{c: c} }

type clientCluster struct{ c client.Client }

func (k clientCluster) RequestReconcile(ctx context.Context, id tiers.ID, token string, unsuspend bool) error {
	return flux.RequestReconcile(ctx, k.c, id, token, unsuspend)
}

func (k clientCluster) PreApplyCRDs(ctx context.Context, bundle *crds.Bundle, d crds.Diagnosis) (crds.Result, error) {
	return crds.PreApply(ctx, k.c, bundle, d, crds.ApplyOptions{})
}
