package flux

import (
	"slices"

	"github.com/kubestandup/standup/pkg/tiers"
)

// LinkApplied sets the AppliedBy of each object of objs that has none to
// the Kustomization or ResourceSet of objs whose inventory lists it (NodesInInventory),
// the first by ID when two do. kustomize-controller's owner labels, read
// when the object was listed, are left as they are: they say the same,
// and the inventory speaks for an object that lost its labels. A
// Kustomization is never its own applier.
func LinkApplied(objs []Object) {
	var appliers []*Object
	for i := range objs {
		if (objs[i].ID.Kind == KindKustomization || objs[i].ID.Kind == KindResourceSet) && len(objs[i].Inventory) > 0 {
			appliers = append(appliers, &objs[i])
		}
	}
	slices.SortFunc(appliers, func(a, b *Object) int {
		switch {
		case a.ID.Less(b.ID):
			return -1
		case b.ID.Less(a.ID):
			return 1
		}
		return 0
	})
	by := map[tiers.ID]tiers.ID{}
	for _, ks := range appliers {
		for _, id := range NodesInInventory(ks.Inventory) {
			if _, seen := by[id]; !seen && id != ks.ID {
				by[id] = ks.ID
			}
		}
	}
	for i := range objs {
		if ks, ok := by[objs[i].ID]; ok && objs[i].AppliedBy == nil {
			objs[i].AppliedBy = &ks
		}
	}
}
