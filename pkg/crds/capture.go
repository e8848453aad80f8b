package crds

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubestandup/standup/pkg/flux"
)

// StripForCapture returns a copy of a live CRD fit to be replayed on another
// cluster: without status, managedFields, uid, resourceVersion,
// creationTimestamp, generation, deletion fields, the kubectl last-applied
// annotation, ownerReferences (their uids would not exist on the other
// cluster, and the garbage collector would delete the CRD) and the conversion
// webhook's caBundle (cluster-specific; the operator injects its own, and
// fluxcd/pkg/ssa strips it before applying too). The input is not modified.
func StripForCapture(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	if crd == nil {
		return nil
	}
	out := crd.DeepCopy()
	out.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	m := &out.ObjectMeta
	m.ManagedFields = nil
	m.UID = ""
	m.ResourceVersion = ""
	m.CreationTimestamp = metav1.Time{}
	m.Generation = 0
	m.DeletionTimestamp = nil
	m.DeletionGracePeriodSeconds = nil
	m.OwnerReferences = nil
	m.SelfLink = ""
	if m.Annotations != nil {
		delete(m.Annotations, corev1.LastAppliedConfigAnnotation)
		// A replayed CRD is pre-applied afresh, for its own reason.
		delete(m.Annotations, PreAppliedForAnnotation)
		if len(m.Annotations) == 0 {
			m.Annotations = nil
		}
	}
	if c := out.Spec.Conversion; c != nil && c.Webhook != nil && c.Webhook.ClientConfig != nil {
		c.Webhook.ClientConfig.CABundle = nil
	}
	return out
}

// MarshalCRD renders a CRD as YAML with apiVersion and kind set and without
// the status and creationTimestamp stanzas that an empty Go struct would
// otherwise print.
func MarshalCRD(crd *apiextensionsv1.CustomResourceDefinition) ([]byte, error) {
	if crd == nil {
		return nil, fmt.Errorf("marshal crd: nil CustomResourceDefinition")
	}
	c := crd.DeepCopy()
	c.APIVersion = apiextensionsv1.SchemeGroupVersion.String()
	c.Kind = "CustomResourceDefinition"
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition/%s marshal failed: %w", crd.Name, err)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition/%s marshal failed: %w", crd.Name, err)
	}
	if isEmptyStatus(crd.Status) {
		delete(obj, "status")
	}
	if meta, ok := obj["metadata"].(map[string]any); ok && crd.CreationTimestamp.IsZero() {
		delete(meta, "creationTimestamp")
	}
	out, err := yaml.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition/%s marshal failed: %w", crd.Name, err)
	}
	return out, nil
}

// isEmptyStatus reports whether a CRD status holds nothing.
func isEmptyStatus(s apiextensionsv1.CustomResourceDefinitionStatus) bool {
	return len(s.Conditions) == 0 && len(s.StoredVersions) == 0 &&
		s.AcceptedNames.Kind == "" && s.AcceptedNames.Plural == ""
}

// RuntimeCRDs returns the names among all (CRD names) that no Kustomization
// inventory lists, sorted and without duplicates: the CRDs that an operator
// created at runtime rather than Flux. Each inventory is a list of
// status.inventory entry ids.
func RuntimeCRDs(all []string, inventories [][]string) []string {
	applied := map[string]bool{}
	for _, inv := range inventories {
		for _, name := range flux.CRDsInInventory(inv) {
			applied[name] = true
		}
	}
	var out []string
	for _, name := range all {
		if !applied[name] {
			applied[name] = true // also drops duplicates in all
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// IsFluxCRD reports whether crd is one of Flux's own: of an API group
// ending in .toolkit.fluxcd.io, or labelled app.kubernetes.io/part-of=flux
// as flux install labels what it installs.
func IsFluxCRD(crd *apiextensionsv1.CustomResourceDefinition) bool {
	return strings.HasSuffix(crd.Spec.Group, flux.ToolkitGroupSuffix) || crd.Labels[flux.PartOfLabel] == flux.PartOfValue
}

// SelectRuntime returns the live CRDs of the given API groups (all groups
// when groups is empty) that no Kustomization of objs lists in its
// inventory, sorted by name: what `standup crds capture` writes. Flux's own
// CRDs (IsFluxCRD) are left out: `flux install` creates them outside any
// inventory, and a stuck cluster has them already. fluxOwn names those
// left out, sorted.
func SelectRuntime(live []*apiextensionsv1.CustomResourceDefinition, groups []string, objs []flux.Object) (runtime []*apiextensionsv1.CustomResourceDefinition, fluxOwn []string) {
	byName := make(map[string]*apiextensionsv1.CustomResourceDefinition, len(live))
	var names []string
	for _, c := range live {
		if len(groups) == 0 || slices.Contains(groups, c.Spec.Group) {
			byName[c.Name] = c
			names = append(names, c.Name)
		}
	}
	inventories := make([][]string, 0, len(objs))
	for _, o := range objs {
		inventories = append(inventories, o.Inventory)
	}
	for _, n := range RuntimeCRDs(names, inventories) {
		if IsFluxCRD(byName[n]) {
			fluxOwn = append(fluxOwn, n)
			continue
		}
		runtime = append(runtime, byName[n])
	}
	return runtime, fluxOwn
}
