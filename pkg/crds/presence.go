package crds

import (
	apihelpers "k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Established reports whether the API server serves a CRD's kind: both its
// Established and its NamesAccepted conditions are True. kstatus counts a CRD
// as current on Established alone; standup also wants the names accepted,
// since a kind whose names conflict is not served under them.
func Established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	return crd != nil &&
		apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established) &&
		apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.NamesAccepted)
}

// Presence is the one lookup of what a list of CRDs serves, by group and
// kind: the diagnosis, check and the walk all read it the same way.
func Presence(list []*apiextensionsv1.CustomResourceDefinition) CRDLookup {
	byGK := make(map[schema.GroupKind]bool, len(list))
	for _, c := range list {
		byGK[schema.GroupKind{Group: c.Spec.Group, Kind: c.Spec.Names.Kind}] = Established(c)
	}
	return func(gk schema.GroupKind) CRDPresence {
		ready, ok := byGK[gk]
		switch {
		case !ok:
			return CRDAbsent
		case ready:
			return CRDEstablished
		}
		return CRDPending
	}
}
