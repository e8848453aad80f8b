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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
	// KubeConfigSecret, when set, is spec.kubeConfig.secretRef.name: the
	// Kustomization applies to the cluster that Secret's kubeconfig names
	// (a spoke, World.NewSpoke).
	KubeConfigSecret string
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
	if k.KubeConfigSecret != "" {
		ks.Spec.KubeConfig = &meta.KubeConfigReference{SecretRef: &meta.SecretKeyReference{Name: k.KubeConfigSecret}}
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

// HR describes a HelmRelease for a test to create. Its chart comes from the
// HelmRepository Repository ("charts" when empty) in its namespace: no such
// repository needs to exist, since the world plays source-controller for the
// HelmChart helm-controller makes of it (World.PublishChart).
type HR struct {
	Namespace, Name string
	// Chart and Version name the chart; an empty Version asks for any.
	Chart, Version string
	Repository     string
	DependsOn      []meta.NamespacedObjectReference
	// TargetNamespace and ReleaseName are spec.targetNamespace and spec.releaseName.
	TargetNamespace, ReleaseName string
	Suspend                      bool
	Interval, Timeout            time.Duration
	// CRDs is spec.install.crds (Skip, Create, CreateReplace); empty is
	// helm-controller's default, Create.
	CRDs string
	// DisableTakeOwnership is spec.install.disableTakeOwnership: Helm then
	// refuses to install over an object that lacks its ownership metadata.
	DisableTakeOwnership bool
	Values               map[string]any
}

// HelmReleaseGVK is the HelmRelease API the test world serves.
var HelmReleaseGVK = schema.GroupVersionKind{Group: "helm.toolkit.fluxcd.io", Version: "v2", Kind: "HelmRelease"}

// HelmRelease builds the object.
func (h HR) HelmRelease() *unstructured.Unstructured {
	interval := h.Interval
	if interval == 0 {
		interval = 10 * time.Minute
	}
	chartSpec := map[string]any{
		"chart":     h.Chart,
		"sourceRef": map[string]any{"kind": sourcev1.HelmRepositoryKind, "name": orDefault(h.Repository, "charts")},
	}
	if h.Version != "" {
		chartSpec["version"] = h.Version
	}
	spec := map[string]any{
		"interval": interval.String(),
		"chart":    map[string]any{"spec": chartSpec},
	}
	if h.Suspend {
		spec["suspend"] = true
	}
	if h.TargetNamespace != "" {
		spec["targetNamespace"] = h.TargetNamespace
	}
	if h.ReleaseName != "" {
		spec["releaseName"] = h.ReleaseName
	}
	if h.Timeout > 0 {
		spec["timeout"] = h.Timeout.String()
	}
	install := map[string]any{}
	if h.CRDs != "" {
		install["crds"] = h.CRDs
	}
	if h.DisableTakeOwnership {
		install["disableTakeOwnership"] = true
	}
	if len(install) > 0 {
		spec["install"] = install
	}
	if len(h.Values) > 0 {
		spec["values"] = h.Values
	}
	if len(h.DependsOn) > 0 {
		var deps []any
		for _, d := range h.DependsOn {
			dep := map[string]any{"name": d.Name}
			if d.Namespace != "" {
				dep["namespace"] = d.Namespace
			}
			deps = append(deps, dep)
		}
		spec["dependsOn"] = deps
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(HelmReleaseGVK)
	u.SetNamespace(h.Namespace)
	u.SetName(h.Name)
	return u
}

// YAML renders the HelmRelease for a tree a Kustomization applies.
func (h HR) YAML() ([]byte, error) {
	return yaml.Marshal(h.HelmRelease().Object)
}
