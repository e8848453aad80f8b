package audit

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/pkg/catalog"
	"github.com/kubestandup/standup/pkg/render"
)

// builtinClusterScoped is every built-in kind an API server serves
// cluster-scoped. Kustomize already leaves their namespace alone, but a file
// may still set one, and the API server drops it on create: the object never
// lives in a namespace, so naming one would point to an object that does not
// exist.
var builtinClusterScoped = map[GroupKind]bool{
	{Kind: "Namespace"}:        true,
	{Kind: "Node"}:             true,
	{Kind: "PersistentVolume"}: true,
	{Kind: "ComponentStatus"}:  true,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:                         true,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}:                  true,
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}:                 true,
	{Group: "apiregistration.k8s.io", Kind: "APIService"}:                             true,
	{Group: "storage.k8s.io", Kind: "StorageClass"}:                                   true,
	{Group: "storage.k8s.io", Kind: "CSIDriver"}:                                      true,
	{Group: "storage.k8s.io", Kind: "CSINode"}:                                        true,
	{Group: "storage.k8s.io", Kind: "VolumeAttachment"}:                               true,
	{Group: "storage.k8s.io", Kind: "VolumeAttributesClass"}:                          true,
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}:                               true,
	{Group: "networking.k8s.io", Kind: "IngressClass"}:                                true,
	{Group: "networking.k8s.io", Kind: "IPAddress"}:                                   true,
	{Group: "networking.k8s.io", Kind: "ServiceCIDR"}:                                 true,
	{Group: "node.k8s.io", Kind: "RuntimeClass"}:                                      true,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}:   true,
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}:     true,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"}:        true,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"}: true,
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicy"}:          true,
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicyBinding"}:   true,
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "FlowSchema"}:                       true,
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "PriorityLevelConfiguration"}:       true,
	{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}:                 true,
	{Group: "certificates.k8s.io", Kind: "ClusterTrustBundle"}:                        true,
	{Group: "policy", Kind: "PodSecurityPolicy"}:                                      true,
	{Group: "resource.k8s.io", Kind: "DeviceClass"}:                                   true,
	{Group: "resource.k8s.io", Kind: "ResourceSlice"}:                                 true,
}

// clusterScopedCRDs returns the kinds that a CRD of res declares with
// scope: Cluster. Kustomize does not know them and gives their objects the
// namespace of the kustomization (or of the Flux Kustomization's
// targetNamespace); the API server drops it.
func clusterScopedCRDs(res *render.Result) map[GroupKind]bool {
	out := map[GroupKind]bool{}
	for _, ms := range res.Rendered {
		for _, m := range ms {
			if groupKindOf(m.Object) != (GroupKind{Group: crdGroup, Kind: crdKind}) {
				continue
			}
			if scope, _, _ := unstructured.NestedString(m.Object.Object, "spec", "scope"); scope != "Cluster" {
				continue
			}
			group, _, _ := unstructured.NestedString(m.Object.Object, "spec", "group")
			kind, _, _ := unstructured.NestedString(m.Object.Object, "spec", "names", "kind")
			out[GroupKind{Group: group, Kind: kind}] = true
		}
	}
	return out
}

// objectOf names u as the API server stores it: without a namespace when its
// kind is cluster-scoped.
func (ix *index) objectOf(u *unstructured.Unstructured) Object {
	o := objectOf(u)
	if ix.isClusterScoped(groupKindOf(u)) {
		o.Namespace = ""
	}
	return o
}

// isClusterScoped reports whether gk is a built-in cluster-scoped kind, one
// a rendered CRD declares cluster-scoped, or one the catalog knows is.
func (ix *index) isClusterScoped(gk GroupKind) bool {
	return builtinClusterScoped[gk] || ix.clusterScoped[gk] || ix.cat.ClusterScoped(catalog.GroupKind(gk))
}
