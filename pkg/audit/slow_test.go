package audit

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

func TestSlowReconciles(t *testing.T) {
	obj := func(apiVersion, kind, name string, fields map[string]any) render.Manifest {
		o := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name, "namespace": "apps"}}
		for k, v := range fields {
			o[k] = v
		}
		return render.Manifest{Object: &unstructured.Unstructured{Object: o}}
	}
	configMap := obj("v1", "ConfigMap", "settings", nil)
	secret := obj("v1", "Secret", "token", nil)
	role := obj("rbac.authorization.k8s.io/v1", "Role", "reader", nil)
	clusterIP := obj("v1", "Service", "web", map[string]any{"spec": map[string]any{"type": "ClusterIP"}})
	loadBalancer := obj("v1", "Service", "edge", map[string]any{"spec": map[string]any{"type": "LoadBalancer"}})
	deployment := obj("apps/v1", "Deployment", "web", map[string]any{"spec": map[string]any{"replicas": int64(2)}})
	helmRelease := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "podinfo", nil)
	custom := obj("bench.standup.dev/v1", "Delay", "d", nil)
	tests := []struct {
		name     string
		wait, hc bool
		applies  []render.Manifest
		slow     bool
		because  string
	}{
		{"wait on what is Ready as applied", true, false, []render.Manifest{configMap, secret, role, clusterIP}, false, ""},
		{"wait on a Deployment", true, false, []render.Manifest{configMap, deployment}, true, "Deployment/web"},
		{"wait on a HelmRelease", true, false, []render.Manifest{helmRelease}, true, "HelmRelease/podinfo"},
		{"wait on a custom resource", true, false, []render.Manifest{configMap, custom}, true, "Delay/d"},
		{"named by the surest", true, false, []render.Manifest{custom, deployment, helmRelease}, true, "Deployment/web"},
		{"wait on a LoadBalancer Service", true, false, []render.Manifest{loadBalancer}, true, "Service/edge"},
		{"no wait: the apply only", false, false, []render.Manifest{deployment, custom}, false, ""},
		{"health checks", false, true, []render.Manifest{configMap}, true, "spec.healthChecks"},
		{"wait on nothing", true, false, nil, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := tiers.ID{Kind: flux.KindKustomization, Namespace: "flux-system", Name: "apps"}
			other := tiers.ID{Kind: flux.KindKustomization, Namespace: "flux-system", Name: "quick"}
			res := &render.Result{
				Objects: []flux.Object{
					{Node: tiers.Node{ID: id}, Wait: tt.wait, HasHealthChecks: tt.hc},
					{Node: tiers.Node{ID: other}, Wait: true},
				},
				Rendered: map[tiers.ID][]render.Manifest{id: tt.applies, other: {configMap}},
			}
			got := SlowReconciles(res)
			why, slow := got[id]
			if slow != tt.slow || why != tt.because {
				t.Fatalf("SlowReconciles = %v, want slow %v because %q", got, tt.slow, tt.because)
			}
			if _, ok := got[other]; ok {
				t.Fatalf("a Kustomization applying a ConfigMap is slow: %v", got)
			}
		})
	}
}
