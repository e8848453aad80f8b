package render

import (
	"fmt"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

const (
	// KindKustomization selects Flux Kustomizations in Options.Kinds.
	KindKustomization = flux.KindKustomization
	// KindHelmRelease selects Flux HelmReleases in Options.Kinds.
	KindHelmRelease = "HelmRelease"

	kustomizeGroup = "kustomize.toolkit.fluxcd.io"
	helmGroup      = "helm.toolkit.fluxcd.io"
)

// fluxKind returns the Flux kind an object is (KindKustomization or
// KindHelmRelease), or "" for anything else, including kustomize's own
// kustomize.config.k8s.io Kustomization.
func fluxKind(u *unstructured.Unstructured) string {
	group := u.GroupVersionKind().Group
	switch {
	case group == kustomizeGroup && u.GetKind() == KindKustomization:
		return KindKustomization
	case group == helmGroup && u.GetKind() == KindHelmRelease:
		return KindHelmRelease
	}
	return ""
}

// idOf returns the graph ID of a Flux object.
func idOf(kind string, u *unstructured.Unstructured) tiers.ID {
	return tiers.ID{Kind: kind, Namespace: u.GetNamespace(), Name: u.GetName()}
}

// toKustomization converts an unstructured Flux Kustomization (any
// kustomize.toolkit.fluxcd.io version) into the typed v1 object.
func toKustomization(u *unstructured.Unstructured) (*kustomizev1.Kustomization, error) {
	var ks kustomizev1.Kustomization
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &ks); err != nil {
		return nil, fmt.Errorf("decode failed: %w", err)
	}
	return &ks, nil
}

// toObject converts a discovered Flux object into the node standup reasons
// about, the same way the live source does.
func toObject(kind string, u *unstructured.Unstructured) (flux.Object, error) {
	if kind == KindHelmRelease {
		return helmReleaseObject(u)
	}
	ks, err := toKustomization(u)
	if err != nil {
		return flux.Object{}, err
	}
	return flux.FromKustomization(ks), nil
}

// helmReleaseObject reads what the graph needs of a HelmRelease from its
// unstructured form: dependsOn (namespaces default to the HelmRelease's own),
// suspend and the chart's source.
func helmReleaseObject(u *unstructured.Unstructured) (flux.Object, error) {
	id := idOf(KindHelmRelease, u)
	obj := flux.Object{Node: tiers.Node{ID: id}}
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

// normalizeKinds validates Options.Kinds and returns it as a set, defaulting
// to Kustomizations only.
func normalizeKinds(kinds []string) (map[string]bool, error) {
	set := map[string]bool{}
	if len(kinds) == 0 {
		set[KindKustomization] = true
		return set, nil
	}
	for _, k := range kinds {
		switch strings.ToLower(k) {
		case strings.ToLower(KindKustomization):
			set[KindKustomization] = true
		case strings.ToLower(KindHelmRelease):
			set[KindHelmRelease] = true
		default:
			return nil, fmt.Errorf("kind %q is not supported: want %s or %s", k, KindKustomization, KindHelmRelease)
		}
	}
	return set, nil
}
