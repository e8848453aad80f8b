package flux

import (
	"testing"

	"github.com/kubestandup/standup/pkg/tiers"
)

// TestLinkApplied: a Kustomization's inventory, as kustomize-controller
// writes it, names the applier of the HelmReleases and Kustomizations it
// lists; owner labels already read are kept; the first applier by ID wins;
// an object no inventory lists keeps none.
func TestLinkApplied(t *testing.T) {
	ks := func(ns, name string) tiers.ID { return tiers.ID{Kind: KindKustomization, Namespace: ns, Name: name} }
	hr := func(ns, name string) tiers.ID { return tiers.ID{Kind: KindHelmRelease, Namespace: ns, Name: name} }
	labelled := ks("flux-system", "labelled")
	objs := []Object{
		{Node: tiers.Node{ID: ks("flux-system", "apps")}, Inventory: []string{
			"default_podinfo_helm.toolkit.fluxcd.io_HelmRelease",
			"flux-system_apps-child_kustomize.toolkit.fluxcd.io_Kustomization",
			"flux-system_apps_kustomize.toolkit.fluxcd.io_Kustomization", // itself
			"default_podinfo_apps_Deployment",
			"_widgets.example.com_apiextensions.k8s.io_CustomResourceDefinition",
		}},
		{Node: tiers.Node{ID: ks("flux-system", "zz-other")}, Inventory: []string{
			"default_podinfo_helm.toolkit.fluxcd.io_HelmRelease",
			"monitoring_grafana_helm.toolkit.fluxcd.io_HelmRelease",
		}},
		{Node: tiers.Node{ID: hr("default", "podinfo")}},
		{Node: tiers.Node{ID: ks("flux-system", "apps-child")}},
		{Node: tiers.Node{ID: hr("monitoring", "grafana")}, AppliedBy: &labelled},
		{Node: tiers.Node{ID: hr("monitoring", "loki")}},
	}
	LinkApplied(objs)
	want := map[tiers.ID]string{
		ks("flux-system", "apps"):       "",
		ks("flux-system", "zz-other"):   "",
		hr("default", "podinfo"):        "Kustomization/flux-system/apps",
		ks("flux-system", "apps-child"): "Kustomization/flux-system/apps",
		hr("monitoring", "grafana"):     "Kustomization/flux-system/labelled",
		hr("monitoring", "loki"):        "",
	}
	for _, o := range objs {
		got := ""
		if o.AppliedBy != nil {
			got = o.AppliedBy.String()
		}
		if got != want[o.ID] {
			t.Errorf("%s applied by %q, want %q", o.ID, got, want[o.ID])
		}
	}
}
