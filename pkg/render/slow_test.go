package render

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

func TestSlowReconciles(t *testing.T) {
	obj := func(apiVersion, kind, name string, fields map[string]any) Manifest {
		o := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name, "namespace": "apps"}}
		for k, v := range fields {
			o[k] = v
		}
		return Manifest{Object: &unstructured.Unstructured{Object: o}}
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
		applies  []Manifest
		slow     bool
		because  string
	}{
		{"wait on what is Ready as applied", true, false, []Manifest{configMap, secret, role, clusterIP}, false, ""},
		{"wait on a Deployment", true, false, []Manifest{configMap, deployment}, true, "Deployment/web"},
		{"wait on a HelmRelease", true, false, []Manifest{helmRelease}, true, "HelmRelease/podinfo"},
		{"wait on a custom resource", true, false, []Manifest{configMap, custom}, true, "Delay/d"},
		{"named by the surest", true, false, []Manifest{custom, deployment, helmRelease}, true, "Deployment/web"},
		{"wait on a LoadBalancer Service", true, false, []Manifest{loadBalancer}, true, "Service/edge"},
		{"no wait: the apply only", false, false, []Manifest{deployment, custom}, false, ""},
		{"health checks", false, true, []Manifest{configMap}, true, "spec.healthChecks"},
		{"wait on nothing", true, false, nil, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := tiers.ID{Kind: flux.KindKustomization, Namespace: "flux-system", Name: "apps"}
			other := tiers.ID{Kind: flux.KindKustomization, Namespace: "flux-system", Name: "quick"}
			res := &Result{
				Objects: []flux.Object{
					{Node: tiers.Node{ID: id}, Wait: tt.wait, HasHealthChecks: tt.hc},
					{Node: tiers.Node{ID: other}, Wait: true},
				},
				Rendered: map[tiers.ID][]Manifest{id: tt.applies, other: {configMap}},
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
