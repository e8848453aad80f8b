package audit

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/render/operator"
	"github.com/kubestandup/standup/pkg/tiers"
)

// The Flux Operator in the cold-start model (docs/flux-operator.md). A
// ResourceSet is an applier like a Kustomization: the Operator applies
// what it generates with the same staged apply (ssa.ApplyAllStaged,
// internal/controller resourceset_controller.go) and retries it after a
// failure, so its render.Result.Rendered entry is audited as a
// Kustomization's is, and the play of the cold start (convergence) holds
// it as a node whose applier creates it and whose stages create what it
// generates. A dependsOn on a CustomResourceDefinition with ready: true is
// a CRD gate (gates.go) of its own: the Operator reconciles nothing of the
// ResourceSet, so creates none of the objects it generates, before that
// CRD is Established (setGateFor). A FluxInstance whose spec.sync the render follows means the
// Operator, and so its own CRDs, run before the cluster syncs.

// isApplier reports whether nodes of kind apply what they render:
// Kustomizations and ResourceSets.
func isApplier(kind string) bool {
	return kind == render.KindKustomization || kind == render.KindResourceSet
}

// appliedNode is the node an object of gk, m, is when an applier applies
// it: a Flux Kustomization or a ResourceSet.
func appliedNode(gk GroupKind, m render.Manifest) (tiers.ID, bool) {
	kind := ""
	switch {
	case gk.Kind == render.KindKustomization && isFlux(gk):
		kind = render.KindKustomization
	case gk == GroupKind{Group: operator.Group, Kind: operator.KindResourceSet}:
		kind = render.KindResourceSet
	default:
		return tiers.ID{}, false
	}
	return tiers.ID{Kind: kind, Namespace: m.Object.GetNamespace(), Name: m.Object.GetName()}, true
}

// setGateFor finds the ResourceSet, ks itself or one up its chain of
// appliers, whose dependsOn waits for gk's CRD to be ready: the Operator
// reconciles nothing of it, so creates none of what it generates, before
// that CRD is Established, and gk exists when ks applies it (gateFor). Nil
// when there is none.
func (ix *index) setGateFor(ks tiers.ID, gk GroupKind) *crdGate {
	seen := map[tiers.ID]bool{}
	for id := &ks; id != nil && !seen[*id]; id = ix.objs[*id].AppliedBy {
		seen[*id] = true
		def, ok := ix.res.Definitions[*id]
		if id.Kind != render.KindResourceSet || !ok {
			continue
		}
		deps, _, err := operator.Dependencies(def.Object)
		if err != nil {
			continue
		}
		for _, d := range deps {
			// The Operator evaluates readyExpr only with ready: true;
			// without it, it checks that the CRD exists, not that it is
			// Established.
			if d.IsCRD() && d.Ready && ix.namesCRD(d.Name, gk) {
				return &crdGate{ks: *id, crd: d.Name}
			}
		}
	}
	return nil
}

// namesCRD reports whether name is the name of gk's CRD: the name of a CRD
// the repository renders for gk, else <plural>.<group> under the plural
// rules CRDs follow (pluralMatches).
func (ix *index) namesCRD(name string, gk GroupKind) bool {
	for _, p := range ix.crds[gk] {
		if p.obj.Name == name {
			return true
		}
	}
	plural, group, ok := strings.Cut(name, ".")
	return ok && group == gk.Group && pluralMatches(gk.Kind, plural)
}

// operatorBootstrap records the Flux Operator's API group as installed
// before Flux when a FluxInstance whose spec.sync the render follows is
// among what it renders: the Operator makes the Kustomizations that sync
// the cluster from it, so it runs, its CRDs with it, before any of them.
func (ix *index) operatorBootstrap() {
	for _, ms := range append([][]render.Manifest{ix.res.Root}, ix.renderedLists()...) {
		for _, m := range ms {
			if !operator.IsFluxInstance(m.Object) {
				continue
			}
			if _, found, _ := unstructured.NestedMap(m.Object.Object, "spec", "sync"); !found {
				continue
			}
			ix.boot.add(BootstrapUse{File: m.File,
				What:   fmt.Sprintf("FluxInstance %s/%s: the Flux Operator syncs the cluster from it, so it runs first", m.Object.GetNamespace(), m.Object.GetName()),
				Groups: []string{operator.Group}})
			return
		}
	}
}

// renderedLists are the Rendered entries of ix.order, in its order.
func (ix *index) renderedLists() [][]render.Manifest {
	out := make([][]render.Manifest, len(ix.order))
	for i, id := range ix.order {
		out[i] = ix.res.Rendered[id]
	}
	return out
}

// setGateEvidence words a ResourceSet's gate for KindUse.Evidence.
func (g crdGate) setGateEvidence() string {
	return "the dependsOn of " + g.ks.String() + " on CustomResourceDefinition/" + g.crd + " (ready: true)"
}
