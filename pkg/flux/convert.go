package flux

import (
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubestandup/standup/pkg/tiers"
)

// KustomizationSource returns the source a Kustomization builds from, its
// namespace defaulted to the Kustomization's own as Flux resolves it. It is
// FromKustomization's SourceRef without the rest of the conversion, whose
// Raw copy costs a render a tenth of its time.
func KustomizationSource(ks *kustomizev1.Kustomization) tiers.ID {
	src := ks.Spec.SourceRef
	ns := src.Namespace
	if ns == "" {
		ns = ks.Namespace
	}
	return tiers.ID{Kind: src.Kind, Namespace: ns, Name: src.Name}
}

// FromKustomization converts a typed Kustomization into an Object. It resolves
// dependsOn namespaces (defaulting to the dependent's own) and the sourceRef
// namespace the same way kustomize-controller does, and the object that
// applied it from its owner labels (kustomize-controller's or the Flux
// Operator's, appliedByLabels).
func FromKustomization(ks *kustomizev1.Kustomization) Object {
	id := tiers.ID{Kind: KindKustomization, Namespace: ks.Namespace, Name: ks.Name}
	obj := Object{
		Node:                   tiers.Node{ID: id},
		Path:                   ks.Spec.Path,
		Wait:                   ks.Spec.Wait,
		HasHealthChecks:        len(ks.Spec.HealthChecks) > 0,
		Prune:                  ks.Spec.Prune,
		TargetNamespace:        ks.Spec.TargetNamespace,
		Suspended:              ks.Spec.Suspend,
		LastAppliedRevision:    ks.Status.LastAppliedRevision,
		Generation:             ks.Generation,
		ObservedGeneration:     ks.Status.ObservedGeneration,
		RequestedAt:            ks.GetAnnotations()[ReconcileRequestAnnotation],
		LastHandledReconcileAt: ks.Status.LastHandledReconcileAt,
		Timeout:                ks.GetTimeout(),
	}
	for _, dep := range ks.Spec.DependsOn {
		ns := dep.Namespace
		if ns == "" {
			ns = ks.Namespace
		}
		obj.DependsOn = append(obj.DependsOn, tiers.Dependency{
			ID:        tiers.ID{Kind: KindKustomization, Namespace: ns, Name: dep.Name},
			ReadyExpr: dep.ReadyExpr,
		})
	}
	obj.SourceRef = KustomizationSource(ks)
	if kc := ks.Spec.KubeConfig; kc != nil && kc.SecretRef != nil && kc.SecretRef.Name != "" {
		obj.KubeConfig = &KubeConfigRef{SecretName: kc.SecretRef.Name, Key: kc.SecretRef.Key}
	} else if kc != nil && kc.ConfigMapRef != nil {
		obj.KubeConfigMap = kc.ConfigMapRef.Name
	}
	obj.AppliedBy = appliedByLabels(ks.GetLabels())
	if c := apimeta.FindStatusCondition(ks.Status.Conditions, meta.ReadyCondition); c != nil {
		obj.Ready = &Condition{Status: string(c.Status), Reason: c.Reason, Message: c.Message}
	}
	if c := apimeta.FindStatusCondition(ks.Status.Conditions, meta.StalledCondition); c != nil {
		obj.Stalled = &Condition{Status: string(c.Status), Reason: c.Reason, Message: c.Message}
	}
	if c := apimeta.FindStatusCondition(ks.Status.Conditions, meta.ReconcilingCondition); c != nil {
		obj.Reconciling = &Condition{Status: string(c.Status), Reason: c.Reason, Message: c.Message}
	}
	if raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ks); err == nil {
		obj.Raw = raw
	}
	if ks.Status.Inventory != nil {
		for _, e := range ks.Status.Inventory.Entries {
			obj.Inventory = append(obj.Inventory, e.ID)
		}
	}
	return obj
}
