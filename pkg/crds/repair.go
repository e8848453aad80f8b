package crds

import (
	"errors"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubestandup/standup/pkg/flux"
)

// Stuck diagnoses every Kustomization of objs against the CRDs the cluster
// holds (present, from one fresh list) and the bundle, and returns those
// deadlocked on a CRD the cluster lacks, in the order of objs.
func Stuck(objs []flux.Object, present []*apiextensionsv1.CustomResourceDefinition, bundle *Bundle) []Diagnosis {
	lookup := Presence(present)
	var out []Diagnosis
	for _, o := range objs {
		if d, ok := Diagnose(o, lookup, bundle); ok && d.Deadlocked() {
			out = append(out, d)
		}
	}
	return out
}

// Repair is what a pre-apply will do for one stuck Kustomization once its
// deadlock is proven.
type Repair struct {
	Diagnosis Diagnosis
	// Create holds the bundle CRDs for its missing kinds, sorted by name;
	// nil when the bundle cannot supply them all (nothing is created then).
	Create []BundleEntry
}

// PlanRepairs resolves each stuck diagnosis against the bundle with
// PlanPreApply. It returns one Repair per diagnosis, in order, and joins one
// *UnresolvedError for each Kustomization whose kinds the bundle lacks.
func PlanRepairs(stuck []Diagnosis, bundle *Bundle) ([]Repair, error) {
	out := make([]Repair, 0, len(stuck))
	var unresolved []error
	for _, d := range stuck {
		entries, err := PlanPreApply(d, bundle)
		if err != nil {
			unresolved = append(unresolved, err)
		}
		out = append(out, Repair{Diagnosis: d, Create: entries})
	}
	return out, errors.Join(unresolved...)
}
