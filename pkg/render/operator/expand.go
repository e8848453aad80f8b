package operator

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Expansion is what the Operator would generate from one ResourceSet.
type Expansion struct {
	// Steps holds the objects of each step, in order: one step for a
	// ResourceSet without spec.steps. The Operator applies a step, and
	// waits for its objects to be ready, before the next.
	Steps []Step
	// DependsOn is spec.dependsOn: the Operator reconciles nothing before
	// these objects exist (and, with Ready, are ready).
	DependsOn []Dependency
	// Wait is spec.wait: the ResourceSet is Ready only once every object
	// it applies is.
	Wait bool
	// Notes say what the offline expansion could not know; nil when it is
	// complete.
	Notes []string
}

// Step is the objects of one step; Name is "" for a ResourceSet without
// spec.steps.
type Step struct {
	Name    string
	Objects []*unstructured.Unstructured
}

// Expand generates the objects of the ResourceSet u as the Operator's
// reconcile would, from what the object itself holds. An error is what
// the Operator would stall the ResourceSet on (a spec the API server
// rejects, a template that fails, a duplicate across steps): it applies
// nothing.
func Expand(u *unstructured.Unstructured) (*Expansion, error) {
	s, err := decodeSpec(u)
	if err != nil {
		return nil, err
	}
	x := &Expansion{DependsOn: s.DependsOn, Wait: s.Wait}
	if strings.ToLower(u.GetAnnotations()[reconcileKey]) == disabledValue {
		x.Notes = append(x.Notes, fmt.Sprintf("its %s annotation is %q: the Operator reconciles nothing of it", reconcileKey, disabledValue))
		return x, nil
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	inputs, known, note, err := combine(s, u.GetName(), u.GetNamespace())
	if err != nil {
		return nil, fmt.Errorf("failed to compute inputs: %w", err)
	}
	if note != "" {
		x.Notes = append(x.Notes, note)
	}
	if !known {
		return x, nil
	}
	steps := s.Steps
	if len(steps) == 0 {
		steps = []step{{Resources: s.Resources, ResourcesTemplate: s.ResourcesTemplate}}
	}
	stepOf := map[string]string{}
	for _, st := range steps {
		objs, err := buildSet(st.ResourcesTemplate, st.Resources, inputs)
		if err != nil {
			return nil, stepError(st.Name, err)
		}
		for _, obj := range objs {
			key := objectKey(obj)
			if prev, found := stepOf[key]; found && prev != st.Name {
				return nil, fmt.Errorf("duplicate resource %s in step %q, already defined in step %q", describe(obj), st.Name, prev)
			}
			stepOf[key] = st.Name
		}
		x.Steps = append(x.Steps, Step{Name: st.Name, Objects: objs})
	}
	x.label(u, s)
	return x, nil
}

// stepError names the step of a build failure, when there are steps.
func stepError(name string, err error) error {
	if name == "" {
		return fmt.Errorf("build failed: %w", err)
	}
	return fmt.Errorf("build failed: step %q: %w", name, err)
}

// combine returns the input sets the objects are built with, and whether
// they are known offline: inputs from spec.inputsFrom are not. With
// Flatten the in-line inputs are some of the input sets and are built
// (note says the rest is unknown); with Permute every input set holds a
// provider's inputs, so none is known. Without inputsFrom an empty list
// builds each template once, with no inputs, as the Operator does.
func combine(s *spec, name, namespace string) ([]map[string]any, bool, string, error) {
	static, err := staticInputs(s, name, namespace)
	if err != nil {
		return nil, false, "", err
	}
	strategy := s.strategy()
	if strategy != strategyFlatten && strategy != strategyPermute {
		return nil, false, "", fmt.Errorf("unknown input strategy: '%s'", strategy)
	}
	if len(s.InputsFrom) > 0 {
		from := fmt.Sprintf("its inputs from %s (spec.inputsFrom) are not known offline: the Operator reads them from each provider's status, which the provider fills at run time (from a Git host's API, an OCI registry, a service)", s.providers(namespace))
		switch {
		case strategy == strategyPermute:
			return nil, false, from + ": with the Permute strategy every input set holds them, so nothing is expanded", nil
		case len(static) == 0:
			return nil, false, from + ", and it has no in-line inputs: nothing is expanded", nil
		}
		return static, true, fmt.Sprintf("%s: only its %d in-line input set(s) are expanded", from, len(static)), nil
	}
	if strategy == strategyPermute {
		sets, err := permute([]provider{{name: name, inputs: static}}, s.includeEmpty())
		return sets, true, "", err
	}
	return static, true, "", nil
}

// buildSet builds the objects of one step (BuildResourceSet): each entry of
// resources for each input set, then the template for each input set;
// objects whose reconcile annotation is disabled are left out, and an
// object of the same group, kind, namespace and name as one before it is
// dropped, so resources take precedence over the template. With no input
// sets each is built once, without inputs, and resources are not
// deduplicated among themselves.
func buildSet(text string, resources []json.RawMessage, inputs []map[string]any) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	seen := map[string]bool{}
	add := func(obj *unstructured.Unstructured, dedup bool) {
		key := objectKey(obj)
		if dedup && seen[key] {
			return
		}
		seen[key] = true
		objs = append(objs, obj)
	}
	for i, raw := range resources {
		if len(inputs) == 0 {
			obj, err := buildResource(raw, nil)
			if err != nil {
				return nil, fmt.Errorf("failed to build resource: %w", err)
			}
			add(obj, false)
			continue
		}
		for _, in := range inputs {
			obj, err := buildResource(raw, in)
			if err != nil {
				return nil, fmt.Errorf("failed to build resources[%d]: %w", i, err)
			}
			if !disabled(obj) {
				add(obj, true)
			}
		}
	}
	if text == "" {
		return objs, nil
	}
	runs := inputs
	if len(runs) == 0 {
		runs = []map[string]any{nil}
	}
	for _, in := range runs {
		built, err := buildTemplate(text, in)
		if err != nil {
			return nil, fmt.Errorf("failed to build resources: %w", err)
		}
		for _, obj := range built {
			if !disabled(obj) {
				add(obj, true)
			}
		}
	}
	return objs, nil
}

// disabled reports whether obj's reconcile annotation excludes it.
func disabled(obj *unstructured.Unstructured) bool {
	return obj.GetAnnotations()[reconcileKey] == disabledValue
}

// objectKey identifies an object on the cluster: group, kind, namespace and
// name, the version aside (builder.objectKey).
func objectKey(obj *unstructured.Unstructured) string {
	return strings.Join([]string{obj.GroupVersionKind().Group, obj.GetKind(), obj.GetNamespace(), obj.GetName()}, "/")
}

// describe names obj as Kind/namespace/name.
func describe(obj *unstructured.Unstructured) string {
	if obj.GetNamespace() == "" {
		return obj.GetKind() + "/" + obj.GetName()
	}
	return obj.GetKind() + "/" + obj.GetNamespace() + "/" + obj.GetName()
}

// label sets on every object the owner labels the Operator's apply sets
// (resourceset.fluxcd.controlplane.io/name and /namespace), then
// spec.commonMetadata's labels and annotations, which override.
func (x *Expansion) label(u *unstructured.Unstructured, s *spec) {
	owner := map[string]string{ownerLabelGroup + "/name": u.GetName(), ownerLabelGroup + "/namespace": u.GetNamespace()}
	var labels, annotations map[string]string
	if s.CommonMetadata != nil {
		labels, annotations = s.CommonMetadata.Labels, s.CommonMetadata.Annotations
	}
	for _, st := range x.Steps {
		for _, obj := range st.Objects {
			setMetadata(obj, owner, nil)
			setMetadata(obj, labels, annotations)
		}
	}
}

// setMetadata adds labels and annotations to obj, overriding its own
// (fluxcd/pkg/ssa utils.SetCommonMetadata).
func setMetadata(obj *unstructured.Unstructured, labels, annotations map[string]string) {
	if len(labels) > 0 {
		l := obj.GetLabels()
		if l == nil {
			l = map[string]string{}
		}
		for k, v := range labels {
			l[k] = v
		}
		obj.SetLabels(l)
	}
	if len(annotations) > 0 {
		a := obj.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		for k, v := range annotations {
			a[k] = v
		}
		obj.SetAnnotations(a)
	}
}
