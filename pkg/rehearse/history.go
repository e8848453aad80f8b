package rehearse

import (
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/pkg/tiers"
)

// FromHistory reads the measured reconcile duration of each Kustomization
// among objs (as a cluster lists them) from its status.history:
// kustomize-controller (v1.7.3 and v1.9.6, those standup is tested with,
// do; an older one may keep no history) keeps a snapshot per built
// revision and outcome, each with the
// lastReconciledDuration of its last reconcile, timed from the moment the
// controller took the object up, past its dependency check, to the end of
// its health checks. The duration is that of the latest snapshot whose
// lastReconciledStatus is ReconciliationSucceeded; a Kustomization
// without one (none yet, or an older controller that keeps no history)
// has none. HelmReleases have none either: helm-controller's
// status.history is a list of Helm releases, with their deploy times but
// no reconcile duration.
func FromHistory(objs []unstructured.Unstructured) map[tiers.ID]time.Duration {
	out := map[tiers.ID]time.Duration{}
	for i := range objs {
		u := &objs[i]
		if u.GetKind() != KindKustomization {
			continue
		}
		if d, ok := lastSucceeded(u.Object); ok {
			out[tiers.ID{Kind: KindKustomization, Namespace: u.GetNamespace(), Name: u.GetName()}] = d
		}
	}
	return out
}

// lastSucceeded is the lastReconciledDuration of the latest successful
// snapshot of obj's status.history.
func lastSucceeded(obj map[string]any) (time.Duration, bool) {
	history, _, _ := unstructured.NestedSlice(obj, "status", "history")
	var best time.Duration
	var bestAt time.Time
	found := false
	for _, h := range history {
		snap, ok := h.(map[string]any)
		if !ok || snap["lastReconciledStatus"] != meta.ReconciliationSucceededReason {
			continue
		}
		ds, _ := snap["lastReconciledDuration"].(string)
		d, err := time.ParseDuration(ds)
		if err != nil || d <= 0 {
			continue
		}
		ts, _ := snap["lastReconciled"].(string)
		at, _ := time.Parse(time.RFC3339, ts)
		if !found || at.After(bestAt) {
			best, bestAt, found = d, at, true
		}
	}
	return best, found
}
