package flux

import (
	"fmt"
	"sort"

	"github.com/fluxcd/cli-utils/pkg/object"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/tiers"
)

const (
	// CRDGroup is the API group of a CustomResourceDefinition.
	CRDGroup = "apiextensions.k8s.io"
	// CRDKind is the kind of a CustomResourceDefinition.
	CRDKind = "CustomResourceDefinition"
)

// InventoryEntry is one parsed status.inventory entry of a Kustomization.
type InventoryEntry struct {
	Namespace string
	Name      string
	Group     string
	Kind      string
}

// GroupKind returns the entry's group and kind.
func (e InventoryEntry) GroupKind() schema.GroupKind {
	return schema.GroupKind{Group: e.Group, Kind: e.Kind}
}

// IsCRD reports whether the entry is a CustomResourceDefinition.
func (e InventoryEntry) IsCRD() bool {
	return e.Group == CRDGroup && e.Kind == CRDKind
}

// String renders the entry as Kind/namespace/name, or Kind/name when it is
// cluster-scoped, the form kustomize-controller uses in its messages.
func (e InventoryEntry) String() string {
	if e.Namespace == "" {
		return e.Kind + "/" + e.Name
	}
	return e.Kind + "/" + e.Namespace + "/" + e.Name
}

// ParseInventoryID parses an inventory entry id of the form
// <namespace>_<name>_<group>_<kind>, as kustomize-controller writes it
// (e.g. _storageprofiles.cdi.kubevirt.io_apiextensions.k8s.io_CustomResourceDefinition,
// default_cm1__ConfigMap).
//
// It resolves the ambiguity of the underscore separator the way
// kustomize-controller does, through fluxcd/cli-utils object.ParseObjMetadata:
// the namespace ends at the first underscore, the kind and the group are the
// last two fields, and what is left is the name, in which a double underscore
// stands for a colon (RBAC names such as system:controller:x).
func ParseInventoryID(id string) (InventoryEntry, error) {
	m, err := object.ParseObjMetadata(id)
	if err != nil {
		return InventoryEntry{}, fmt.Errorf("inventory entry %q: %w", id, err)
	}
	e := InventoryEntry{Namespace: m.Namespace, Name: m.Name, Group: m.GroupKind.Group, Kind: m.GroupKind.Kind}
	switch {
	case e.Kind == "":
		return InventoryEntry{}, fmt.Errorf("inventory entry %q: kind is empty", id)
	case e.Name == "":
		return InventoryEntry{}, fmt.Errorf("inventory entry %q: name is empty", id)
	}
	return e, nil
}

// CRDsInInventory returns the names of the CustomResourceDefinitions listed in
// the inventory entry ids, sorted and without duplicates. Ids that do not parse
// are skipped: an inventory that kustomize-controller wrote always parses.
func CRDsInInventory(ids []string) []string {
	seen := map[string]bool{}
	var names []string
	for _, id := range ids {
		e, err := ParseInventoryID(id)
		if err != nil || !e.IsCRD() || seen[e.Name] {
			continue
		}
		seen[e.Name] = true
		names = append(names, e.Name)
	}
	sort.Strings(names)
	return names
}

// KustomizationsInInventory returns the Kustomizations listed in the
// inventory entry ids, in inventory order: the children a Kustomization
// applied, which join a walk as they appear. Ids that do not parse are
// skipped, as in CRDsInInventory.
func KustomizationsInInventory(ids []string) []tiers.ID {
	var out []tiers.ID
	for _, id := range NodesInInventory(ids) {
		if id.Kind == KindKustomization {
			out = append(out, id)
		}
	}
	return out
}

// NodesInInventory returns the Kustomizations, HelmReleases and ResourceSets listed in
// the inventory entry ids, in inventory order. Ids that do not parse are
// skipped, as in CRDsInInventory.
func NodesInInventory(ids []string) []tiers.ID {
	var out []tiers.ID
	for _, id := range ids {
		e, err := ParseInventoryID(id)
		if err != nil {
			continue
		}
		if (e.Group == KustomizeGroup && e.Kind == KindKustomization) || (e.Group == HelmGroup && e.Kind == KindHelmRelease) ||
			(e.Group == OperatorGroup && e.Kind == KindResourceSet) {
			out = append(out, tiers.ID{Kind: e.Kind, Namespace: e.Namespace, Name: e.Name})
		}
	}
	return out
}
