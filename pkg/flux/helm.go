package flux

import (
	"context"
	"fmt"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/kube"
	"github.com/kubestandup/standup/pkg/tiers"
)

// ErrHelmNotInstalled is returned when the cluster serves no HelmRelease API.
var ErrHelmNotInstalled = fmt.Errorf("the cluster serves no %s API (helm-controller not installed)", HelmReleaseGVK.GroupVersion())

// ListHelmReleases lists HelmReleases in namespace ("" for all) as Objects:
// their dependsOn, suspend, Ready condition, and the Kustomization that
// applied them (from kustomize-controller's owner labels).
func ListHelmReleases(ctx context.Context, c client.Reader, namespace string) ([]Object, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(HelmReleaseGVK.GroupVersion().WithKind(KindHelmRelease + "List"))
	if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
		if apimeta.IsNoMatchError(err) {
			return nil, ErrHelmNotInstalled
		}
		return nil, kube.Explain(err, "list", HelmReleaseResource)
	}
	objs := make([]Object, 0, len(list.Items))
	for i := range list.Items {
		u := &list.Items[i]
		obj, err := FromHelmRelease(u)
		if err != nil {
			return nil, fmt.Errorf("HelmRelease/%s/%s: %w", u.GetNamespace(), u.GetName(), err)
		}
		labels := u.GetLabels()
		if name := labels[kustomizationNameLabel]; name != "" {
			obj.AppliedBy = &tiers.ID{Kind: KindKustomization, Namespace: labels[kustomizationNamespaceLabel], Name: name}
		}
		if conds, found, _ := unstructured.NestedSlice(u.Object, "status", "conditions"); found {
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if m["type"] == "Ready" {
					obj.Ready = &Condition{Status: fmt.Sprint(m["status"]), Reason: fmt.Sprint(m["reason"]), Message: fmt.Sprint(m["message"])}
				}
			}
		}
		obj.Generation = u.GetGeneration()
		objs = append(objs, obj)
	}
	return objs, nil
}

// FromHelmRelease reads what the graph needs of a HelmRelease from its
// unstructured form: dependsOn (namespaces default to the HelmRelease's own),
// suspend and the chart's source.
func FromHelmRelease(u *unstructured.Unstructured) (Object, error) {
	id := tiers.ID{Kind: KindHelmRelease, Namespace: u.GetNamespace(), Name: u.GetName()}
	obj := Object{Node: tiers.Node{ID: id}}
	deps, _, err := unstructured.NestedSlice(u.Object, "spec", "dependsOn")
	if err != nil {
		return obj, fmt.Errorf("spec.dependsOn: %w", err)
	}
	for i, d := range deps {
		entry, ok := d.(map[string]any)
		if !ok {
			return obj, fmt.Errorf("spec.dependsOn[%d]: not an object", i)
		}
		name, _, _ := unstructured.NestedString(entry, "name")
		ns, _, _ := unstructured.NestedString(entry, "namespace")
		expr, _, _ := unstructured.NestedString(entry, "readyExpr")
		if name == "" {
			return obj, fmt.Errorf("spec.dependsOn[%d]: name is empty", i)
		}
		if ns == "" {
			ns = id.Namespace
		}
		obj.DependsOn = append(obj.DependsOn, tiers.Dependency{
			ID:        tiers.ID{Kind: KindHelmRelease, Namespace: ns, Name: name},
			ReadyExpr: expr,
		})
	}
	obj.Suspended, _, _ = unstructured.NestedBool(u.Object, "spec", "suspend")
	obj.SourceRef = helmSourceRef(u, id.Namespace)
	return obj, nil
}

// helmSourceRef returns spec.chart.spec.sourceRef, else spec.chartRef, with
// the namespace defaulted to the HelmRelease's.
func helmSourceRef(u *unstructured.Unstructured, namespace string) tiers.ID {
	ref, found, _ := unstructured.NestedMap(u.Object, "spec", "chart", "spec", "sourceRef")
	if !found {
		ref, found, _ = unstructured.NestedMap(u.Object, "spec", "chartRef")
	}
	if !found {
		return tiers.ID{}
	}
	kind, _, _ := unstructured.NestedString(ref, "kind")
	name, _, _ := unstructured.NestedString(ref, "name")
	ns, _, _ := unstructured.NestedString(ref, "namespace")
	if ns == "" {
		ns = namespace
	}
	return tiers.ID{Kind: kind, Namespace: ns, Name: name}
}
