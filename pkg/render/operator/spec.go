package operator

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The Flux Operator's API group, version and kinds.
const (
	Group             = "fluxcd.controlplane.io"
	APIVersion        = Group + "/v1"
	KindResourceSet   = "ResourceSet"
	KindFluxInstance  = "FluxInstance"
	KindInputProvider = "ResourceSetInputProvider"
	reconcileKey      = Group + "/reconcile"
	disabledValue     = "disabled"
	ownerLabelGroup   = "resourceset." + Group
	strategyFlatten   = "Flatten"
	strategyPermute   = "Permute"
	maxPermutations   = 10000
	crdAPIGroup       = "apiextensions.k8s.io"
	crdKind           = "CustomResourceDefinition"
	kustomizeAPIGroup = "kustomize.toolkit.fluxcd.io"
	helmAPIGroup      = "helm.toolkit.fluxcd.io"
	kindKustomization = "Kustomization"
	kindHelmRelease   = "HelmRelease"
	sourceAPIGroup    = "source.toolkit.fluxcd.io"
)

// IsResourceSet reports whether u is a Flux Operator ResourceSet.
func IsResourceSet(u *unstructured.Unstructured) bool {
	return u.GroupVersionKind().Group == Group && u.GetKind() == KindResourceSet
}

// IsFluxInstance reports whether u is a Flux Operator FluxInstance.
func IsFluxInstance(u *unstructured.Unstructured) bool {
	return u.GroupVersionKind().Group == Group && u.GetKind() == KindFluxInstance
}

// Dependency is one entry of a ResourceSet's spec.dependsOn (api/v1
// Dependency). The Operator reads the object with the namespace as
// written; with Ready it also waits for it to be ready: ReadyExpr when
// set (evaluated only then), else kstatus (a CRD is ready once
// Established), or for a ResourceSet or ResourceSetInputProvider its Ready
// condition at its generation (internal/controller
// resourceset_controller.go, checkDependencies).
type Dependency struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Namespace  string `json:"namespace,omitempty"`
	Ready      bool   `json:"ready,omitempty"`
	ReadyExpr  string `json:"readyExpr,omitempty"`
}

// Group returns the API group of the dependency's apiVersion.
func (d Dependency) Group() string {
	group, _, found := strings.Cut(d.APIVersion, "/")
	if !found {
		return ""
	}
	return group
}

// IsCRD reports whether the dependency is a CustomResourceDefinition.
func (d Dependency) IsCRD() bool { return d.Group() == crdAPIGroup && d.Kind == crdKind }

// FluxKind returns the kind of node the dependency names, as the render
// calls it (Kustomization, HelmRelease, ResourceSet), or "" for any other
// object.
func (d Dependency) FluxKind() string {
	switch {
	case d.Group() == kustomizeAPIGroup && d.Kind == kindKustomization:
		return kindKustomization
	case d.Group() == helmAPIGroup && d.Kind == kindHelmRelease:
		return kindHelmRelease
	case d.Group() == Group && d.Kind == KindResourceSet:
		return KindResourceSet
	}
	return ""
}

// spec is what Expand reads of a ResourceSet's spec (api/v1
// ResourceSetSpec).
type spec struct {
	CommonMetadata *struct {
		Annotations map[string]string `json:"annotations,omitempty"`
		Labels      map[string]string `json:"labels,omitempty"`
	} `json:"commonMetadata,omitempty"`
	InputStrategy *struct {
		Name                  string `json:"name,omitempty"`
		IncludeEmptyProviders bool   `json:"includeEmptyProviders,omitempty"`
	} `json:"inputStrategy,omitempty"`
	Inputs            []map[string]json.RawMessage `json:"inputs,omitempty"`
	InputsFrom        []providerRef                `json:"inputsFrom,omitempty"`
	Resources         []json.RawMessage            `json:"resources,omitempty"`
	ResourcesTemplate string                       `json:"resourcesTemplate,omitempty"`
	Steps             []step                       `json:"steps,omitempty"`
	DependsOn         []Dependency                 `json:"dependsOn,omitempty"`
	Wait              bool                         `json:"wait,omitempty"`
}

// providerRef is one of spec.inputsFrom (api/v1 InputProviderReference):
// the ResourceSetInputProvider of the ResourceSet's namespace by that name,
// or those its label selector matches.
type providerRef struct {
	Name     string `json:"name,omitempty"`
	Selector *struct {
		MatchLabels      map[string]string `json:"matchLabels,omitempty"`
		MatchExpressions []json.RawMessage `json:"matchExpressions,omitempty"`
	} `json:"selector,omitempty"`
}

// describe names the providers ref stands for, in namespace: an object
// (ResourceSetInputProvider/namespace/name), or those of a selector.
func (ref providerRef) describe(namespace string) string {
	if ref.Name != "" || ref.Selector == nil {
		return KindInputProvider + "/" + namespace + "/" + ref.Name
	}
	var labels []string
	for k, v := range ref.Selector.MatchLabels {
		labels = append(labels, k+"="+v)
	}
	slices.Sort(labels)
	what := "the " + KindInputProvider + "s of " + namespace + " that its selector matches"
	if len(labels) > 0 && len(ref.Selector.MatchExpressions) == 0 {
		what = "the " + KindInputProvider + "s of " + namespace + " labelled " + strings.Join(labels, ",")
	}
	return what
}

// providers names every provider of spec.inputsFrom, in order.
func (s *spec) providers(namespace string) string {
	names := make([]string, len(s.InputsFrom))
	for i, ref := range s.InputsFrom {
		names[i] = ref.describe(namespace)
	}
	return strings.Join(names, ", ")
}

// step is one of spec.steps (api/v1 ResourceSetStep).
type step struct {
	Name              string            `json:"name"`
	Resources         []json.RawMessage `json:"resources,omitempty"`
	ResourcesTemplate string            `json:"resourcesTemplate,omitempty"`
}

// decodeSpec decodes u's spec, as the API server would accept it.
func decodeSpec(u *unstructured.Unstructured) (*spec, error) {
	raw, err := json.Marshal(u.Object["spec"])
	if err != nil {
		return nil, fmt.Errorf("decode failed: %w", err)
	}
	var s spec
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("decode failed: %w", err)
	}
	return &s, nil
}

// strategy is spec.inputStrategy.name, Flatten when unset
// (ResourceSet.GetInputStrategy).
func (s *spec) strategy() string {
	if s.InputStrategy == nil || s.InputStrategy.Name == "" {
		return strategyFlatten
	}
	return s.InputStrategy.Name
}

// includeEmpty is spec.inputStrategy.includeEmptyProviders, which applies
// to Permute only (ResourceSet.GetIncludeEmptyProviders).
func (s *spec) includeEmpty() bool {
	return s.InputStrategy != nil && s.InputStrategy.Name == strategyPermute && s.InputStrategy.IncludeEmptyProviders
}

// validate mirrors the Operator's rules on steps (the CRD's CEL rules and
// builder.ValidateResourceSetSpec).
func (s *spec) validate() error {
	switch {
	case len(s.Steps) > 0 && (len(s.Resources) > 0 || s.ResourcesTemplate != ""):
		return fmt.Errorf("spec.steps is mutually exclusive with spec.resources and spec.resourcesTemplate")
	case len(s.Steps) == 0 && len(s.Resources) == 0 && s.ResourcesTemplate == "":
		return fmt.Errorf("at least one of spec.steps, spec.resources or spec.resourcesTemplate must be set")
	}
	for _, st := range s.Steps {
		if len(st.Resources) == 0 && st.ResourcesTemplate == "" {
			return fmt.Errorf("step %q: at least one of resources or resourcesTemplate must be set", st.Name)
		}
	}
	return nil
}

// Dependencies returns spec.dependsOn of the ResourceSet u and spec.wait,
// for a ResourceSet that Expand refused: it is a node still.
func Dependencies(u *unstructured.Unstructured) ([]Dependency, bool, error) {
	s, err := decodeSpec(u)
	if err != nil {
		return nil, false, err
	}
	return s.DependsOn, s.Wait, nil
}
