package audit

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

// ks describes one Kustomization of an in-memory render.Result.
type ks struct {
	name      string
	namespace string // default flux-system
	deps      []string
	wait      bool
	// checks are healthChecks entries, "apiVersion Kind namespace/name" or
	// "apiVersion Kind name".
	checks    []string
	postBuild bool
	// kubeConfig is the name of the spec.kubeConfig Secret: the Kustomization
	// applies to another cluster (hub and spoke).
	kubeConfig string
	// unrendered marks a Kustomization render.Load leaves unrendered (it
	// builds from another source); objects must be empty.
	unrendered bool
	// appliedBy names the Kustomization (same namespace) whose build holds
	// this one.
	appliedBy string
	// remote is what its build left out offline (render.Result.Remote).
	remote []string
	// objects are what the Kustomization applies (see obj and crd).
	objects []*unstructured.Unstructured
}

// obj makes an object; name is namespace/name or name.
func obj(apiVersion, kind, name string, fields ...any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	if ns, n, ok := strings.Cut(name, "/"); ok {
		u.SetNamespace(ns)
		u.SetName(n)
	} else {
		u.SetName(name)
	}
	for i := 0; i+1 < len(fields); i += 2 {
		u.Object[fields[i].(string)] = fields[i+1]
	}
	return u
}

// crd makes the CustomResourceDefinition of group/kind.
func crd(group, kind string) *unstructured.Unstructured {
	return obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", strings.ToLower(kind)+"s."+group,
		"spec", map[string]any{"group": group, "names": map[string]any{"kind": kind}})
}

// result assembles a render.Result the way render.Load does.
func result(kss ...ks) *render.Result {
	res := &render.Result{Path: "clusters/test", Definitions: map[tiers.ID]render.Manifest{}, Rendered: map[tiers.ID][]render.Manifest{}}
	for _, k := range kss {
		if k.namespace == "" {
			k.namespace = "flux-system"
		}
		id := tiers.ID{Kind: "Kustomization", Namespace: k.namespace, Name: k.name}
		o := flux.Object{Node: tiers.Node{ID: id}, Wait: k.wait, HasHealthChecks: len(k.checks) > 0, File: "clusters/test/" + k.name + ".yaml"}
		if k.appliedBy != "" {
			o.AppliedBy = &tiers.ID{Kind: "Kustomization", Namespace: k.namespace, Name: k.appliedBy}
		}
		for _, d := range k.deps {
			dep := tiers.ID{Kind: "Kustomization", Namespace: k.namespace, Name: d}
			if ns, n, ok := strings.Cut(d, "/"); ok {
				dep.Namespace, dep.Name = ns, n
			}
			o.DependsOn = append(o.DependsOn, tiers.Dependency{ID: dep})
		}
		res.Objects = append(res.Objects, o)
		res.Definitions[id] = render.Manifest{Object: definition(k), File: o.File}
		var out []render.Manifest
		for _, u := range k.objects {
			out = append(out, render.Manifest{Object: u, File: fmt.Sprintf("%s/%s-%s.yaml", k.name, strings.ToLower(u.GetKind()), u.GetName())})
		}
		if !k.unrendered {
			res.Rendered[id] = out
		}
		if len(k.remote) > 0 {
			if res.Remote == nil {
				res.Remote = map[tiers.ID][]string{}
			}
			res.Remote[id] = k.remote
		}
	}
	return res
}

// definition is the Kustomization object of k.
func definition(k ks) *unstructured.Unstructured {
	spec := map[string]any{"path": "./" + k.name, "wait": k.wait}
	if k.kubeConfig != "" {
		spec["kubeConfig"] = map[string]any{"secretRef": map[string]any{"name": k.kubeConfig}}
	}
	if k.postBuild {
		spec["postBuild"] = map[string]any{"substitute": map[string]any{"X": "y"}}
	}
	var checks []any
	for _, c := range k.checks {
		f := strings.Fields(c)
		ref := map[string]any{"apiVersion": f[0], "kind": f[1], "name": f[2]}
		if ns, n, ok := strings.Cut(f[2], "/"); ok {
			ref["namespace"], ref["name"] = ns, n
		}
		checks = append(checks, ref)
	}
	if checks != nil {
		spec["healthChecks"] = checks
	}
	return obj("kustomize.toolkit.fluxcd.io/v1", "Kustomization", k.namespace+"/"+k.name, "spec", spec)
}

// cdiConfig is examples/homelab's standup.yaml, plus a chart.
var cdiConfig = &Config{
	RuntimeCRDs: []RuntimeCRD{{
		Trigger: GroupKind{Group: "cdi.kubevirt.io", Kind: "CDI"},
		Kinds:   []GroupKind{{Group: "cdi.kubevirt.io", Kind: "StorageProfile"}, {Group: "cdi.kubevirt.io", Kind: "DataVolume"}},
	}},
	ChartCRDs: []ChartCRD{{
		HelmRelease: NamespacedName{Namespace: "cert-manager", Name: "cert-manager"},
		Kinds:       []GroupKind{{Group: "cert-manager.io", Kind: "ClusterIssuer"}},
	}},
}

// Shorthands for the objects of the tests.
func cdiCR() *unstructured.Unstructured { return obj("cdi.kubevirt.io/v1beta1", "CDI", "cdi") }
func volume() *unstructured.Unstructured {
	return obj("cdi.kubevirt.io/v1beta1", "DataVolume", "vms/disk")
}
func issuer() *unstructured.Unstructured {
	return obj("cert-manager.io/v1", "ClusterIssuer", "letsencrypt")
}
func widget() *unstructured.Unstructured    { return obj("example.com/v1", "Widget", "default/w") }
func cdiCRD() *unstructured.Unstructured    { return crd("cdi.kubevirt.io", "CDI") }
func widgetCRD() *unstructured.Unstructured { return crd("example.com", "Widget") }
func release() *unstructured.Unstructured {
	return obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "cert-manager/cert-manager")
}

// spokeRelease is a HelmRelease of the hub, in namespace spoke, that installs
// its chart into that spoke through spec.kubeConfig.
func spokeRelease(spoke string) *unstructured.Unstructured {
	return obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", spoke+"/cert-manager",
		"spec", map[string]any{"kubeConfig": map[string]any{"secretRef": map[string]any{"name": "kubeconfig"}}})
}

// kyvernoConfig declares ClusterPolicy applied by the unrendered
// Kustomization flux-system/kyverno (flux2-multi-tenancy's layout).
var kyvernoConfig = &Config{KustomizationCRDs: []KustomizationCRD{{
	Kustomization: NamespacedName{Namespace: "flux-system", Name: "kyverno"},
	Kinds:         []GroupKind{{Group: "kyverno.io", Kind: "ClusterPolicy"}},
}}}

func policy() *unstructured.Unstructured {
	return obj("kyverno.io/v1", "ClusterPolicy", "require-labels")
}

// hubConfig declares cert-manager's chart kinds once per spoke.
var hubConfig = &Config{ChartCRDs: []ChartCRD{
	{HelmRelease: NamespacedName{Namespace: "staging", Name: "cert-manager"}, Kinds: []GroupKind{{Group: "cert-manager.io", Kind: "ClusterIssuer"}}},
	{HelmRelease: NamespacedName{Namespace: "production", Name: "cert-manager"}, Kinds: []GroupKind{{Group: "cert-manager.io", Kind: "ClusterIssuer"}}},
}}

func profile(name string) *unstructured.Unstructured {
	return obj("cdi.kubevirt.io/v1beta1", "StorageProfile", name)
}

func cmap(data map[string]any) *unstructured.Unstructured {
	return obj("v1", "ConfigMap", "default/cm", "data", data)
}

// helmRelease is a HelmRelease of chart (spec.chart.spec.chart) with values.
func helmRelease(name, chart string, values map[string]any) *unstructured.Unstructured {
	spec := map[string]any{"chart": map[string]any{"spec": map[string]any{"chart": chart}}}
	if values != nil {
		spec["values"] = values
	}
	return obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", name, "spec", spec)
}

// certManager is cert-manager's HelmRelease with its CRDs switched on.
func certManager() *unstructured.Unstructured {
	return helmRelease("cert-manager/cert-manager", "cert-manager", map[string]any{"crds": map[string]any{"enabled": true}})
}
