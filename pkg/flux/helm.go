package flux

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/kube"
	"github.com/kubestandup/standup/pkg/tiers"
)

// ErrHelmNotInstalled is returned when the cluster serves no HelmRelease API.
var ErrHelmNotInstalled = fmt.Errorf("the cluster serves no %s API (helm-controller not installed)", HelmReleaseGVK.GroupVersion())

// ListHelmReleases lists HelmReleases in namespace ("" for all) as Objects
// (FromHelmRelease), with the Kustomization that applied each (from
// kustomize-controller's owner labels).
func ListHelmReleases(ctx context.Context, c client.Reader, namespace string) ([]Object, error) {
	return listObjects(ctx, c, namespace, HelmReleaseGVK, KindHelmRelease, HelmReleaseResource, ErrHelmNotInstalled, FromHelmRelease)
}

// defaultHelmTimeout is helm-controller's default spec.timeout, the
// timeout of each Helm action.
const defaultHelmTimeout = 5 * time.Minute

// FromHelmRelease reads a HelmRelease from its unstructured form: dependsOn
// (namespaces default to the HelmRelease's own), suspend, the chart's
// source, and what the walk needs of a live one: the Kustomization that
// applied it (kustomize-controller's owner labels, or the Flux Operator's
// for a ResourceSet), generation, Ready and
// Stalled, Reconciling, status.lastAttemptedRevision (as LastAppliedRevision: the chart
// version helm-controller last attempted, which Ready=True says succeeded),
// the chart artifact it came from (Chart), the reconcile request and its
// handling, the inventory (the release's objects and the chart's CRDs),
// spec.timeout (helm-controller's default, 5m, when unset) and Raw.
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
	obj.KubeConfig = kubeConfigOf(u.Object)
	obj.KubeConfigMap = kubeConfigMapOf(u.Object)
	obj.Timeout = defaultHelmTimeout
	if s, ok, _ := unstructured.NestedString(u.Object, "spec", "timeout"); ok {
		if d, err := time.ParseDuration(s); err == nil && d > 0 {
			obj.Timeout = d
		}
	}
	obj.AppliedBy = appliedByLabels(u.GetLabels())
	obj.Generation = u.GetGeneration()
	obj.RequestedAt = u.GetAnnotations()[ReconcileRequestAnnotation]
	readHelmStatus(u, &obj)
	if u.Object["status"] != nil {
		obj.Raw = u.Object
	}
	return obj, nil
}

// readHelmStatus reads the status fields of a live HelmRelease into obj.
func readHelmStatus(u *unstructured.Unstructured, obj *Object) {
	status, _, _ := unstructured.NestedMap(u.Object, "status")
	if status == nil {
		return
	}
	obj.ObservedGeneration, _, _ = unstructured.NestedInt64(status, "observedGeneration")
	obj.LastAppliedRevision, _, _ = unstructured.NestedString(status, "lastAttemptedRevision")
	obj.LastHandledReconcileAt, _, _ = unstructured.NestedString(status, "lastHandledReconcileAt")
	conds, _, _ := unstructured.NestedSlice(status, "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		cond := &Condition{Status: fmt.Sprint(m["status"]), Reason: fmt.Sprint(m["reason"]), Message: fmt.Sprint(m["message"])}
		switch m["type"] {
		case meta.ReadyCondition:
			obj.Ready = cond
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
	obj.Chart = helmChartOf(u, status)
}

// helmChartOf is the source whose artifact a HelmRelease installs: the
// HelmChart helm-controller made of spec.chart (status.helmChart,
// "namespace/name"), else spec.chartRef; zero before either is known.
func helmChartOf(u *unstructured.Unstructured, status map[string]any) tiers.ID {
	if ref, ok, _ := unstructured.NestedString(status, "helmChart"); ok && ref != "" {
		ns, name, found := strings.Cut(ref, "/")
		if found {
			return tiers.ID{Kind: HelmChartKind, Namespace: ns, Name: name}
		}
	}
	if _, found, _ := unstructured.NestedMap(u.Object, "spec", "chartRef"); found {
		return helmSourceRef(u, u.GetNamespace())
	}
	return tiers.ID{}
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

// listObjects lists one Flux kind served as unstructured (HelmReleases,
// ResourceSets) in namespace and converts each item; notInstalled is the
// error when the API server does not serve the kind at all.
func listObjects(ctx context.Context, c client.Reader, namespace string, gvk schema.GroupVersionKind, kind, resource string, notInstalled error, convert func(*unstructured.Unstructured) (Object, error)) ([]Object, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(kind + "List"))
	if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
		if apimeta.IsNoMatchError(err) {
			return nil, notInstalled
		}
		return nil, kube.Explain(err, "list", resource)
	}
	objs := make([]Object, 0, len(list.Items))
	for i := range list.Items {
		u := &list.Items[i]
		obj, err := convert(u)
		if err != nil {
			return nil, fmt.Errorf("%s/%s/%s: %w", kind, u.GetNamespace(), u.GetName(), err)
		}
		objs = append(objs, obj)
	}
	return objs, nil
}
