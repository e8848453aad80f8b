package flux

import (
	"strings"
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

// TestKubeconfigFromSecret: Flux's precedence (fluxcd/pkg/runtime/client
// Impersonator.getRESTConfigFromSecret): a named key alone, else value,
// else value.yaml.
func TestKubeconfigFromSecret(t *testing.T) {
	tests := []struct {
		name          string
		data          map[string][]byte
		key           string
		want, wantKey string
		wantErr       string
	}{
		{name: "value", data: map[string][]byte{"value": []byte("a"), "value.yaml": []byte("b")}, want: "a", wantKey: "value"},
		{name: "value.yaml when value is absent", data: map[string][]byte{"value.yaml": []byte("b")}, want: "b", wantKey: "value.yaml"},
		{name: "a named key wins", data: map[string][]byte{"value": []byte("a"), "prod": []byte("c")}, key: "prod", want: "c", wantKey: "prod"},
		{name: "a named key absent: no fallback", data: map[string][]byte{"value": []byte("a")}, key: "prod", wantErr: `Secret/hub/spoke has no key "prod"`},
		{name: "neither key", data: map[string][]byte{"config": []byte("a")}, wantErr: `Secret/hub/spoke has no key "value" or "value.yaml"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, key, err := KubeconfigFromSecret(tt.data, "hub/spoke", tt.key)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want || key != tt.wantKey {
				t.Fatalf("got %q from %q, %v; want %q from %q", got, key, err, tt.want, tt.wantKey)
			}
		})
	}
}
