package render

import (
	"fmt"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// SlowReconciles names the Kustomizations of an offline view whose
// reconcile is likely to hold one of kustomize-controller's workers for a
// while, each with the object that makes it so. A Kustomization's
// reconcile is quick unless it waits for what it applied to become Ready:
// spec.wait, or spec.healthChecks. Then it lasts as long as the slowest of
// those objects takes, and the objects that take time are the ones a
// controller has to act on: a Deployment rolling out, a HelmRelease
// installing, a custom resource whose operator reports it Ready. A
// built-in kind that kstatus finds Current as applied (a ConfigMap, a
// Secret, RBAC, a ClusterIP Service) costs the apply only.
//
// It is a guess from the manifests, never a measurement: a walk uses it
// only to choose which ready Kustomization to hand a busy controller
// first, so a wrong guess costs order, never correctness.
func SlowReconciles(res *Result) map[tiers.ID]string {
	slow := map[tiers.ID]string{}
	for _, obj := range res.Objects {
		if obj.ID.Kind != flux.KindKustomization || (!obj.Wait && !obj.HasHealthChecks) {
			continue
		}
		if obj.HasHealthChecks && !obj.Wait {
			// spec.healthChecks names what it waits for, not always among
			// its own objects: a health check is a wait on a controller.
			slow[obj.ID] = "spec.healthChecks"
			continue
		}
		// Named by the object surest to take time: a workload or a Flux
		// object over a custom resource whose controller may write no
		// status at all (a PodMonitor is Current as applied).
		best := 0
		for _, m := range res.Rendered[obj.ID] {
			if why, sure := takesTime(m); sure > best {
				slow[obj.ID], best = why, sure
			}
		}
	}
	return slow
}

// takesTime reports how surely an applied object becomes Ready only once a
// controller acts on it (0: it is Ready as applied; 1: a custom resource,
// whose controller may report a Ready condition; 2: a built-in kind
// kstatus does not find Current as applied, or a Flux object), and names
// it.
func takesTime(m Manifest) (string, int) {
	u := m.Object
	gvk := u.GroupVersionKind()
	gk := gvk.GroupKind()
	name := fmt.Sprintf("%s/%s", gvk.Kind, u.GetName())
	switch {
	case IsFlux(gk):
		return name, 2
	case !IsBuiltin(gk):
		return name, 1
	}
	res, err := status.Compute(u)
	if err != nil || res.Status != status.CurrentStatus {
		return name, 2
	}
	return "", 0
}
