package testenv

import (
	"fmt"
	"os"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// KS describes a Kustomization for a test to create.
type KS struct {
	Namespace, Name, Path string
	// Source is the GitRepository name, in Namespace unless SourceNamespace is set.
	Source, SourceNamespace string
	DependsOn               []meta.NamespacedObjectReference
	Wait, Suspend, Prune    bool
	TargetNamespace         string
	Interval, Timeout       time.Duration
}

// Dep is a dependsOn entry; ns may be empty.
func Dep(ns, name string) meta.NamespacedObjectReference {
	return meta.NamespacedObjectReference{Namespace: ns, Name: name}
}

// Kustomization builds the typed object.
func (k KS) Kustomization() *kustomizev1.Kustomization {
	interval := k.Interval
	if interval == 0 {
		interval = 10 * time.Minute
	}
	ks := &kustomizev1.Kustomization{
		ObjectMeta: metav1.ObjectMeta{Namespace: k.Namespace, Name: k.Name},
		Spec: kustomizev1.KustomizationSpec{
			Interval:        metav1.Duration{Duration: interval},
			Path:            k.Path,
			Prune:           k.Prune,
			Wait:            k.Wait,
			Suspend:         k.Suspend,
			TargetNamespace: k.TargetNamespace,
			SourceRef: kustomizev1.CrossNamespaceSourceReference{
				Kind: sourcev1.GitRepositoryKind, Name: k.Source, Namespace: k.SourceNamespace,
			},
		},
	}
	for _, d := range k.DependsOn {
		ks.Spec.DependsOn = append(ks.Spec.DependsOn, kustomizev1.DependencyReference{Namespace: d.Namespace, Name: d.Name})
	}
	if k.Timeout > 0 {
		ks.Spec.Timeout = &metav1.Duration{Duration: k.Timeout}
	}
	return ks
}

// LoadCRD reads one CustomResourceDefinition from a YAML file.
func LoadCRD(path string) (*apiextensionsv1.CustomResourceDefinition, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return crd, nil
}
