package flux

import (
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestTargetOfKustomizationAndHelmRelease(t *testing.T) {
	tests := []struct {
		name               string
		kubeConfig         *meta.KubeConfigReference
		hr                 map[string]any // spec.kubeConfig of the HelmRelease twin
		wantTarget, secret string
		wantKey            string
		wantCluster        string
	}{
		{name: "the hub itself"},
		{name: "a spoke", kubeConfig: &meta.KubeConfigReference{SecretRef: &meta.SecretKeyReference{Name: "spoke-kubeconfig"}},
			hr: map[string]any{"secretRef": map[string]any{"name": "spoke-kubeconfig"}}, wantTarget: "spoke-kubeconfig", secret: "hub/spoke-kubeconfig", wantCluster: "hub/spoke-kubeconfig"},
		{name: "a key", kubeConfig: &meta.KubeConfigReference{SecretRef: &meta.SecretKeyReference{Name: "prod", Key: "value.yaml"}},
			hr: map[string]any{"secretRef": map[string]any{"name": "prod", "key": "value.yaml"}}, wantTarget: "prod", secret: "hub/prod", wantKey: "value.yaml", wantCluster: "hub/prod"},
		{name: "workload identity names no Secret", kubeConfig: &meta.KubeConfigReference{ConfigMapRef: &meta.LocalObjectReference{Name: "aks"}},
			hr: map[string]any{"configMapRef": map[string]any{"name": "aks"}}, wantCluster: "ConfigMap/hub/aks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ks := &kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Namespace: "hub", Name: "apps"}}
			ks.Spec.KubeConfig = tt.kubeConfig
			spec := map[string]any{"chart": map[string]any{"spec": map[string]any{"chart": "c", "sourceRef": map[string]any{"kind": "HelmRepository", "name": "r"}}}}
			if tt.hr != nil {
				spec["kubeConfig"] = tt.hr
			}
			u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
				"metadata": map[string]any{"namespace": "hub", "name": "apps"}, "spec": spec}}
			hr, err := FromHelmRelease(u)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range []Object{FromKustomization(ks), hr} {
				if o.Target() != tt.wantTarget || o.TargetSecret() != tt.secret {
					t.Errorf("%s: Target %q, TargetSecret %q; want %q, %q", o.ID.Kind, o.Target(), o.TargetSecret(), tt.wantTarget, tt.secret)
				}
				if got := o.TargetCluster(); got != tt.wantCluster {
					t.Errorf("%s: TargetCluster %q, want %q", o.ID.Kind, got, tt.wantCluster)
				}
				if o.KubeConfig != nil && o.KubeConfig.Key != tt.wantKey {
					t.Errorf("%s: key %q, want %q", o.ID.Kind, o.KubeConfig.Key, tt.wantKey)
				}
			}
		})
	}
}
