package flux

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/fluxcd/pkg/apis/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/render/operator"
	"github.com/kubestandup/standup/pkg/tiers"
)

// The Flux Operator's ResourceSet, as the live graph reads it
// (controlplaneio-fluxcd/flux-operator api/v1, v0.58).
const (
	// OperatorGroup is the Flux Operator's API group.
	OperatorGroup = operator.Group
	// KindResourceSet is the kind of a ResourceSet.
	KindResourceSet = operator.KindResourceSet
	// ResourceSetResource is the plural.group of ResourceSets, also its CRD's name.
	ResourceSetResource = resourceSetsPlural + "." + OperatorGroup
	resourceSetsPlural  = "resourcesets"

	// OperatorReconcileAnnotation is the Operator's own switch:
	// "disabled" pauses a ResourceSet (IsDisabled), as spec.suspend
	// pauses a Kustomization; `flux-operator resume` sets it to
	// "enabled".
	OperatorReconcileAnnotation = OperatorGroup + "/reconcile"
	operatorDisabled            = "disabled"
	operatorEnabled             = "enabled"

	// The Operator's owner labels on the objects a ResourceSet applies.
	resourceSetNameLabel      = "resourceset." + OperatorGroup + "/name"
	resourceSetNamespaceLabel = "resourceset." + OperatorGroup + "/namespace"
)

var (
	// ResourceSetGVK is the ResourceSet API standup reads (fluxcd.controlplane.io/v1).
	ResourceSetGVK = schema.GroupVersionKind{Group: OperatorGroup, Version: "v1", Kind: KindResourceSet}
	// ResourceSetGVR is the ResourceSet API standup watches and patches.
	ResourceSetGVR = ResourceSetGVK.GroupVersion().WithResource(resourceSetsPlural)
)

// ErrOperatorNotInstalled is returned when the cluster serves no ResourceSet API.
var ErrOperatorNotInstalled = fmt.Errorf("the cluster serves no %s API (the Flux Operator not installed)", ResourceSetGVK.GroupVersion())

// Requirement is a ResourceSet's dependsOn entry on an object that is no
// node of the graph (a CRD, a Secret, any kind): the Operator reads it
// with the namespace as written, and reconciles the ResourceSet only once
// it exists and, with Ready, is ready: ReadyExpr when set, else kstatus
// (a CRD: Established).
type Requirement struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	Ready      bool   `json:"ready,omitempty"`
	ReadyExpr  string `json:"readyExpr,omitempty"`
}

// IsCRD reports whether r names a CustomResourceDefinition.
func (r Requirement) IsCRD() bool {
	return operator.Dependency{APIVersion: r.APIVersion, Kind: r.Kind}.IsCRD()
}

func (r Requirement) String() string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}

// ListResourceSets lists ResourceSets in namespace ("" for all) as Objects
// (FromResourceSet). A cluster without the Flux Operator's CRDs is
// ErrOperatorNotInstalled.
func ListResourceSets(ctx context.Context, c client.Reader, namespace string) ([]Object, error) {
	return listObjects(ctx, c, namespace, ResourceSetGVK, KindResourceSet, ResourceSetResource, ErrOperatorNotInstalled, FromResourceSet)
}

// FromResourceSet reads a ResourceSet as the Operator's
// ResourceSetReconciler does:
//   - spec.dependsOn entries naming a Kustomization, a HelmRelease or a
//     ResourceSet are edges, with the namespace as written (the Operator
//     does not default it); an entry without ready asks only that the
//     object exist (Dependency.ExistsOnly), one with ready and a
//     readyExpr keeps the expression;
//   - every other entry (a CRD, any object) is a Requirement;
//   - the fluxcd.controlplane.io/reconcile annotation at "disabled" is
//     Suspended;
//   - Ready, Stalled and Reconciling, and ObservedGeneration from the Ready
//     condition's observedGeneration (a ResourceSet's status has no
//     observedGeneration of its own: the Operator's health check,
//     HealthCheckExpr, compares the condition's);
//   - status.lastAppliedRevision (the digest of what it applied),
//     lastHandledReconcileAt and the inventory, whose entries are ids as
//     kustomize-controller writes them;
//   - the Kustomization that applied it (kustomize-controller's owner
//     labels) or the ResourceSet (the Operator's).
func FromResourceSet(u *unstructured.Unstructured) (Object, error) {
	id := tiers.ID{Kind: KindResourceSet, Namespace: u.GetNamespace(), Name: u.GetName()}
	obj := Object{Node: tiers.Node{ID: id}}
	deps, _, err := operator.Dependencies(u)
	if err != nil {
		return obj, fmt.Errorf("spec: %w", err)
	}
	for _, d := range deps {
		kind := d.FluxKind()
		if kind == "" {
			obj.Requires = append(obj.Requires, Requirement{APIVersion: d.APIVersion, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name, Ready: d.Ready, ReadyExpr: d.ReadyExpr})
			continue
		}
		dep := tiers.Dependency{ID: tiers.ID{Kind: kind, Namespace: d.Namespace, Name: d.Name}, ExistsOnly: !d.Ready}
		if d.Ready {
			dep.ReadyExpr = d.ReadyExpr
		}
		obj.DependsOn = append(obj.DependsOn, dep)
	}
	obj.Wait, _, _ = unstructured.NestedBool(u.Object, "spec", "wait")
	obj.Suspended = strings.EqualFold(u.GetAnnotations()[OperatorReconcileAnnotation], operatorDisabled)
	obj.AppliedBy = appliedByLabels(u.GetLabels())
	obj.Generation = u.GetGeneration()
	obj.RequestedAt = u.GetAnnotations()[ReconcileRequestAnnotation]
	status, _, _ := unstructured.NestedMap(u.Object, "status")
	if status == nil {
		return obj, nil
	}
	obj.LastAppliedRevision, _, _ = unstructured.NestedString(status, "lastAppliedRevision")
	obj.LastHandledReconcileAt, _, _ = unstructured.NestedString(status, "lastHandledReconcileAt")
	conds, _, _ := unstructured.NestedSlice(status, "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		cond := &Condition{Status: fmt.Sprint(m["status"]), Reason: fmt.Sprint(m["reason"]), Message: fmt.Sprint(m["message"])}
		switch m["type"] {
		case meta.ReadyCondition:
			obj.Ready = cond
			obj.ObservedGeneration, _, _ = unstructured.NestedInt64(m, "observedGeneration")
		case meta.StalledCondition:
			obj.Stalled = cond
		case meta.ReconcilingCondition:
			obj.Reconciling = cond
		}
	}
	entries, _, _ := unstructured.NestedSlice(status, "inventory", "entries")
	for _, e := range entries {
		m, _ := e.(map[string]any)
		if id, ok := m["id"].(string); ok {
			obj.Inventory = append(obj.Inventory, id)
		}
	}
	obj.Raw = u.Object
	return obj, nil
}

// appliedByLabels is the applier the owner labels on an object name:
// kustomize-controller's (a Kustomization), else the Operator's (a
// ResourceSet); nil when neither is there.
func appliedByLabels(labels map[string]string) *tiers.ID {
	if name := labels[kustomizationNameLabel]; name != "" {
		return &tiers.ID{Kind: KindKustomization, Namespace: labels[kustomizationNamespaceLabel], Name: name}
	}
	if name := labels[resourceSetNameLabel]; name != "" {
		return &tiers.ID{Kind: KindResourceSet, Namespace: labels[resourceSetNamespaceLabel], Name: name}
	}
	return nil
}

// ResumeField is the field a resume of a node of kind sets, as an event
// names it: spec.suspend=false, or for a ResourceSet, which has no
// spec.suspend, the Operator's annotation
// (fluxcd.controlplane.io/reconcile=enabled).
func ResumeField(kind string) string {
	if kind == KindResourceSet {
		return OperatorReconcileAnnotation + "=" + operatorEnabled
	}
	return "spec.suspend=false"
}

// resourceSetReconcilePatch is ReconcilePatch for a ResourceSet: the
// reconcile request annotation, which the Operator's ResourceSet
// controller watches (AnnotationChangedPredicate) and copies to
// status.lastHandledReconcileAt (finalizeObjectStatus), as `flux-operator
// reconcile resourceset` sets it; unsuspend sets
// fluxcd.controlplane.io/reconcile to "enabled", as `flux-operator resume
// resourceset` does.
func resourceSetReconcilePatch(token string, unsuspend bool) []byte {
	annotations := map[string]string{ReconcileRequestAnnotation: token}
	if unsuspend {
		annotations[OperatorReconcileAnnotation] = operatorEnabled
	}
	data, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}}) // strings only
	return data
}
