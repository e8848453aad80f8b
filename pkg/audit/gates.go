package audit

import (
	"slices"
	"strings"

	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

// crdGate is a health check on a CustomResourceDefinition: kustomize-
// controller turns the Kustomization holding it Ready only once the CRD is
// Established (kstatus), so whatever is Ready after it finds the kind
// served, whoever installs the CRD and however late. The usual holder is a
// CRD gate: a Kustomization that applies nothing (its path renders
// resources: [], or it builds from another source) and only waits, between
// a chart's HelmRelease and the Kustomizations of its kinds. Any other
// Kustomization with such a check waits the same way.
type crdGate struct {
	ks tiers.ID
	// crd is the name the health check gives, <plural>.<group>.
	crd string
}

// crdGates indexes every Kustomization's health checks on CRDs by the
// kind each CRD defines (kindsOfPlural: a rendered CRD that says so, else
// the catalog's and the repository's kinds of the group), each list sorted
// by Kustomization. A check whose name gives no kind the repository or the
// catalog knows guards nothing.
func (ix *index) crdGates() map[GroupKind][]crdGate {
	gates := map[GroupKind][]crdGate{}
	for _, o := range ix.res.Objects {
		def, ok := ix.res.Definitions[o.ID]
		if o.ID.Kind != render.KindKustomization || !ok {
			continue
		}
		checks, _, _ := nestedSlice(def.Object.Object, "spec", "healthChecks")
		for _, c := range checks {
			ref, _ := c.(map[string]any)
			apiVersion, _ := ref["apiVersion"].(string)
			kind, _ := ref["kind"].(string)
			name, _ := ref["name"].(string)
			plural, group, found := strings.Cut(name, ".")
			if groupOf(apiVersion) != crdGroup || kind != crdKind || !found {
				continue
			}
			for _, gk := range ix.kindsOfPlural(group, plural) {
				gates[gk] = append(gates[gk], crdGate{ks: o.ID, crd: name})
			}
		}
	}
	for _, gs := range gates {
		slices.SortFunc(gs, func(a, b crdGate) int { return compareIDs(a.ks, b.ks) })
	}
	return gates
}

// gateFor finds a Kustomization, in ks's cluster and Ready before ks is
// reconciled, whose health check waits for gk's CRD: then gk exists when ks
// is applied, whatever else orders its origin. ks's own check does not
// count: it is read only after ks has applied everything. Nil when there
// is none.
func (ix *index) gateFor(ks tiers.ID, gk GroupKind) *crdGate {
	if g := ix.setGateFor(ks, gk); g != nil { // a ResourceSet's dependsOn (operator.go)
		return g
	}
	for i, g := range ix.gates[gk] {
		if g.ks != ks && ix.cluster[g.ks] == ix.cluster[ks] && ix.graph.readyBefore(ks, g.ks) {
			return &ix.gates[gk][i]
		}
	}
	return nil
}

// evidence words the gate for KindUse.Evidence.
func (g crdGate) evidence() string {
	if g.ks.Kind == render.KindResourceSet {
		return g.setGateEvidence()
	}
	return "the health check of " + g.ks.String() + " on CustomResourceDefinition/" + g.crd
}
