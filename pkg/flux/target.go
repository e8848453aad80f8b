package flux

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// KubeConfigRef is a Kustomization's or a HelmRelease's
// spec.kubeConfig.secretRef: the Secret, in the object's own namespace,
// whose kubeconfig the controller applies with, to a remote cluster.
type KubeConfigRef struct {
	// SecretName is spec.kubeConfig.secretRef.name.
	SecretName string `json:"secretName"`
	// Key is spec.kubeConfig.secretRef.key; "" means Flux's default
	// ("value", else "value.yaml").
	Key string `json:"key,omitempty"`
}

// Target is the name of the cluster o applies to: the name of its kubeConfig
// Secret (spec.kubeConfig.secretRef.name), "" for the cluster o lives in.
// tiers shows it, and resume reaches the cluster through the Secret.
func (o Object) Target() string {
	if o.KubeConfig == nil {
		return ""
	}
	return o.KubeConfig.SecretName
}

// TargetSecret is the kubeConfig Secret as namespace/name (the object's
// namespace: Flux reads it there), "" for the cluster o lives in. Two
// objects of different namespaces naming the same Secret name target
// different Secrets, which this tells apart and Target does not.
func (o Object) TargetSecret() string {
	if o.KubeConfig == nil {
		return ""
	}
	return o.ID.Namespace + "/" + o.KubeConfig.SecretName
}

// TargetCluster names the cluster o applies to as standup prints it
// (tiers, audit): TargetSecret for a kubeConfig Secret,
// ConfigMap/namespace/name for the workload-identity form, "" for the
// cluster o lives in.
func (o Object) TargetCluster() string {
	switch {
	case o.KubeConfig != nil:
		return o.TargetSecret()
	case o.KubeConfigMap != "":
		return "ConfigMap/" + o.ID.Namespace + "/" + o.KubeConfigMap
	}
	return ""
}

// kubeConfigMapOf reads spec.kubeConfig.configMapRef.name of an
// unstructured Flux object, "" without one.
func kubeConfigMapOf(u map[string]any) string {
	name, _, _ := unstructured.NestedString(u, "spec", "kubeConfig", "configMapRef", "name")
	return name
}

// kubeConfigOf reads spec.kubeConfig.secretRef of an unstructured Flux
// object; nil without one (a configMapRef, for a cloud provider's workload
// identity, names no Secret standup could read: nil too).
func kubeConfigOf(u map[string]any) *KubeConfigRef {
	name, _, _ := unstructured.NestedString(u, "spec", "kubeConfig", "secretRef", "name")
	if name == "" {
		return nil
	}
	key, _, _ := unstructured.NestedString(u, "spec", "kubeConfig", "secretRef", "key")
	return &KubeConfigRef{SecretName: name, Key: key}
}

// KubeconfigKeys are the keys of a kubeConfig Secret Flux reads when
// secretRef names none, in its order (fluxcd/pkg/runtime/client's
// Impersonator): "value", else "value.yaml".
var KubeconfigKeys = []string{"value", "value.yaml"}

// KubeconfigFromSecret returns the kubeconfig of a kubeConfig Secret's
// data as kustomize-controller and helm-controller read it: the key
// secretRef names, else the first of KubeconfigKeys the Secret holds. It
// returns the key read, and an error naming the Secret (namespace/name)
// and the keys looked for when there is none.
func KubeconfigFromSecret(data map[string][]byte, secret, key string) ([]byte, string, error) {
	if key != "" {
		if v := data[key]; v != nil {
			return v, key, nil
		}
		return nil, "", fmt.Errorf("Secret/%s has no key %q with a kubeconfig (spec.kubeConfig.secretRef.key)", secret, key)
	}
	for _, k := range KubeconfigKeys {
		if v := data[k]; v != nil {
			return v, k, nil
		}
	}
	return nil, "", fmt.Errorf("Secret/%s has no key %q or %q with a kubeconfig", secret, KubeconfigKeys[0], KubeconfigKeys[1])
}
