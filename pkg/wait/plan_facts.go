package wait

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// PlanFacts returns the PlanInput.Facts that read the cluster as a walk's
// Loop does when its proof asks (a fresh list of CRDs, then one object of
// the trigger kind): a dry run tells how the walk would prove a deadlock.
// It only reads.
func PlanFacts(ctx context.Context, c client.Client, dyn dynamic.Interface) func(schema.GroupKind) TriggerFact {
	l := &Loop{Client: c, Dynamic: dyn}
	none := toolscache.NewStore(toolscache.MetaNamespaceKeyFunc) // no watch: every CRD is looked up afresh
	return func(gk schema.GroupKind) TriggerFact {
		return l.triggerFact(ctx, none, gk)
	}
}
