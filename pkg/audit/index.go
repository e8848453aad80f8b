package audit

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

const (
	crdGroup = "apiextensions.k8s.io"
	crdKind  = "CustomResourceDefinition"
	hrGroup  = "helm.toolkit.fluxcd.io"
	hrKind   = "HelmRelease"
)

// placed is one rendered object and the Kustomization that applies it.
type placed struct {
	ks   tiers.ID
	obj  Object
	file string
	// cluster is where the object lands: its Kustomization's target
	// cluster, or for a HelmRelease with spec.kubeConfig, the release's.
	cluster string
	// chart is a HelmRelease's chart name (spec.chart.spec.chart, else
	// spec.chartRef.name).
	chart string
}

// index holds what the audit looks up while it classifies kinds: who applies
// each CRD, each trigger object and each HelmRelease, and what the
// Kustomizations and standup.yaml say.
type index struct {
	res *render.Result
	// clusterScoped holds the kinds a rendered CRD declares cluster-scoped.
	clusterScoped map[GroupKind]bool
	objs          map[tiers.ID]flux.Object
	// order lists the rendered Kustomizations, sorted.
	order []tiers.ID
	// crds maps a kind to the CRDs defining it, by Kustomization order.
	crds map[GroupKind][]placed
	// triggers maps a trigger kind to the objects of that kind.
	triggers map[GroupKind][]placed
	// releases maps a HelmRelease to where it is applied.
	releases map[NamespacedName][]placed
	// runtime maps a runtime kind to its trigger kind.
	runtime map[GroupKind]GroupKind
	// charts maps a chart kind to the HelmReleases declared to install it
	// (one per cluster, in hub-and-spoke repositories).
	charts map[GroupKind][]NamespacedName
	// external maps a kind to the unrendered Kustomizations declared to
	// apply its CRD.
	external map[GroupKind][]tiers.ID
	// cluster maps a Kustomization to the cluster it applies to: "" for the
	// cluster it lives in, else its spec.kubeConfig reference.
	cluster map[tiers.ID]string
	graph   *ancestry
}

// newIndex indexes res and cfg.
func newIndex(res *render.Result, cfg *Config) *index {
	ix := &index{
		res:      res,
		objs:     make(map[tiers.ID]flux.Object, len(res.Objects)),
		crds:     map[GroupKind][]placed{},
		triggers: map[GroupKind][]placed{},
		releases: map[NamespacedName][]placed{},
		runtime:  map[GroupKind]GroupKind{},
		charts:   map[GroupKind][]NamespacedName{},
		cluster:  map[tiers.ID]string{},
		external: map[GroupKind][]tiers.ID{},
		graph:    newAncestry(res.Objects),
	}
	ix.clusterScoped = clusterScopedCRDs(res)
	for _, o := range res.Objects {
		ix.objs[o.ID] = o
		if def, ok := res.Definitions[o.ID]; ok && o.ID.Kind == render.KindKustomization {
			ix.cluster[o.ID] = targetCluster(def.Object)
		}
	}
	for _, r := range cfg.RuntimeCRDs {
		ix.triggers[r.Trigger] = nil
		for _, gk := range r.Kinds {
			ix.runtime[gk] = r.Trigger
		}
	}
	for _, c := range cfg.ChartCRDs {
		for _, gk := range c.Kinds {
			ix.charts[gk] = append(ix.charts[gk], c.HelmRelease)
		}
	}
	for _, k := range cfg.KustomizationCRDs {
		id := tiers.ID{Kind: render.KindKustomization, Namespace: k.Kustomization.Namespace, Name: k.Kustomization.Name}
		for _, gk := range k.Kinds {
			ix.external[gk] = append(ix.external[gk], id)
		}
	}
	for id := range res.Rendered {
		ix.order = append(ix.order, id)
	}
	slices.SortFunc(ix.order, compareIDs)
	for _, id := range ix.order {
		for _, m := range res.Rendered[id] {
			ix.add(id, m)
		}
	}
	return ix
}

// add indexes one rendered object of Kustomization ks.
func (ix *index) add(ks tiers.ID, m render.Manifest) {
	gk := groupKindOf(m.Object)
	p := placed{ks: ks, obj: ix.objectOf(m.Object), file: m.File, cluster: ix.cluster[ks]}
	switch gk {
	case GroupKind{Group: crdGroup, Kind: crdKind}:
		group, _, _ := unstructured.NestedString(m.Object.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(m.Object.Object, "spec", "names", "kind")
		defined := GroupKind{Group: group, Kind: kind}
		ix.crds[defined] = append(ix.crds[defined], p)
	case GroupKind{Group: hrGroup, Kind: hrKind}:
		if c := targetCluster(m.Object); c != "" {
			p.cluster = c
		}
		p.chart, _, _ = unstructured.NestedString(m.Object.Object, "spec", "chart", "spec", "chart")
		if p.chart == "" {
			p.chart, _, _ = unstructured.NestedString(m.Object.Object, "spec", "chartRef", "name")
		}
		nn := NamespacedName{Namespace: p.obj.Namespace, Name: p.obj.Name}
		ix.releases[nn] = append(ix.releases[nn], p)
	}
	if _, ok := ix.triggers[gk]; ok {
		ix.triggers[gk] = append(ix.triggers[gk], p)
	}
}

// targetCluster names the cluster a Flux object applies to: "" for the one
// it lives in, else the Secret or ConfigMap its spec.kubeConfig refers to,
// which Flux reads from the object's own namespace.
func targetCluster(u *unstructured.Unstructured) string {
	for _, ref := range []struct{ field, kind string }{{"secretRef", "Secret"}, {"configMapRef", "ConfigMap"}} {
		if name, _, _ := unstructured.NestedString(u.Object, "spec", "kubeConfig", ref.field, "name"); name != "" {
			return ref.kind + "/" + u.GetNamespace() + "/" + name
		}
	}
	return ""
}

// sameCluster keeps the placements that land in cluster.
func sameCluster(ps []placed, cluster string) []placed {
	var out []placed
	for _, p := range ps {
		if p.cluster == cluster {
			out = append(out, p)
		}
	}
	return out
}

// groupKindOf returns the group and kind of u.
func groupKindOf(u *unstructured.Unstructured) GroupKind {
	return GroupKind{Group: groupOf(u.GetAPIVersion()), Kind: u.GetKind()}
}

// groupOf returns the group of an apiVersion ("" for v1).
func groupOf(apiVersion string) string {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	return gv.Group
}

// nestedSlice is unstructured.NestedSlice, without its deep copy.
func nestedSlice(obj map[string]any, fields ...string) ([]any, bool, error) {
	v, found, err := unstructured.NestedFieldNoCopy(obj, fields...)
	if !found || err != nil {
		return nil, found, err
	}
	s, ok := v.([]any)
	if !ok {
		return nil, true, fmt.Errorf("%v accessor error: %v is of the type %T, expected []any", fields, v, v)
	}
	return s, true, nil
}

// objectOf names u.
func objectOf(u *unstructured.Unstructured) Object {
	return Object{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}
}

// compareIDs is the three-way form of tiers.ID.Less.
func compareIDs(a, b tiers.ID) int {
	switch {
	case a == b:
		return 0
	case a.Less(b):
		return -1
	default:
		return 1
	}
}
