package check

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

const (
	revOld = "main@sha1:1111111111111111111111111111111111111111"
	revNew = "main@sha1:2222222222222222222222222222222222222222"
	// dryRunMessage is what kustomize-controller v1.9 writes for the seed's deadlock.
	dryRunMessage = "StorageProfile/longhorn dry-run failed: no matches for kind \"StorageProfile\" in version \"cdi.kubevirt.io/v1beta1\"\n"
	// seedBundle is the CRD bundle of the seed's deadlocked example repository.
	seedBundle = "../../examples/homelab-deadlock/bootstrap/crds"
)

var fluxSource = tiers.ID{Kind: "GitRepository", Namespace: "flux-system", Name: "flux-system"}

func crdOf(name, version string, established bool) *apiextensionsv1.CustomResourceDefinition {
	st := apiextensionsv1.ConditionTrue
	if !established {
		st = apiextensionsv1.ConditionFalse
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       apiextensionsv1.CustomResourceDefinitionSpec{Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: version, Served: true, Storage: true}}},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{Conditions: []apiextensionsv1.CustomResourceDefinitionCondition{
			{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue},
			{Type: apiextensionsv1.Established, Status: st, Reason: "Installing", Message: "the initial names have not been accepted"},
		}},
	}
}

// ks is a Kustomization in flux-system: ready at rev, or failing with message.
func ks(name string, ready bool, reason, message, rev string) flux.Object {
	o := flux.Object{
		Node:      tiers.Node{ID: tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: name}},
		SourceRef: fluxSource, Generation: 1, ObservedGeneration: 1, LastAppliedRevision: rev,
		Ready: &flux.Condition{Status: "False", Reason: reason, Message: message},
	}
	if ready {
		o.Ready = &flux.Condition{Status: "True", Reason: "ReconciliationSucceeded", Message: "Applied revision: " + rev}
	}
	return o
}

func deployment(name string, available bool) unstructured.Unstructured {
	d := unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "namespace": "flux-system", "generation": int64(1)},
		"spec":     map[string]any{"replicas": int64(1)},
		"status": map[string]any{
			"observedGeneration": int64(1), "replicas": int64(1), "updatedReplicas": int64(1),
			"readyReplicas": int64(1), "availableReplicas": int64(1),
			"conditions": []any{map[string]any{"type": "Available", "status": "True"}},
		},
	}}
	if !available {
		_ = unstructured.SetNestedField(d.Object, int64(0), "status", "availableReplicas")
		_ = unstructured.SetNestedField(d.Object, int64(0), "status", "readyReplicas")
		_ = unstructured.SetNestedSlice(d.Object, []any{map[string]any{"type": "Available", "status": "False"}}, "status", "conditions")
	}
	return d
}

// healthy is a cluster where every check holds.
func healthy() Facts {
	return Facts{
		CRDs: map[string]*apiextensionsv1.CustomResourceDefinition{
			flux.KustomizationCRD:             crdOf(flux.KustomizationCRD, "v1", true),
			"storageprofiles.cdi.kubevirt.io": crdOf("storageprofiles.cdi.kubevirt.io", "v1beta1", true),
		},
		Kustomizations: []flux.Object{ks("platform", true, "", "", revNew), ks("platform-config", true, "", "", revNew)},
		Sources:        map[tiers.ID]SourceRevision{fluxSource: {Revision: revNew}},
	}
}
