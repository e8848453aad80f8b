package crds

import (
	"fmt"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// UnresolvedError reports missing kinds that the bundle cannot supply.
type UnresolvedError struct {
	Diagnosis Diagnosis
	Missing   []MissingType
	// NoBundle says there was no bundle at all (a diagnosis without one).
	NoBundle bool
}

// Error names the Kustomization, the kinds, and what to do.
func (e *UnresolvedError) Error() string {
	if e.NoBundle {
		return fmt.Sprintf("%s: no CRD bundle to supply %s: pass --crds DIR holding their CRDs (standup crds capture writes them from a cluster that has them), or move those objects into their own Kustomization with dependsOn and wait: true; see %s",
			e.Diagnosis.Kustomization, joinTypes(e.Missing), RunbookPath)
	}
	return fmt.Sprintf("%s: the CRD bundle has no CRD for %s; move those objects into their own Kustomization with dependsOn and wait: true, or add the CRD to the bundle (standup crds capture); see %s",
		e.Diagnosis.Kustomization, joinTypes(e.Missing), RunbookPath)
}

// PlanPreApply resolves every missing kind of d to a bundle entry, sorted by
// CRD name. It fails, naming every kind the bundle lacks, before anything is
// created; with no bundle (nil), it fails on every missing kind.
func PlanPreApply(d Diagnosis, bundle *Bundle) ([]BundleEntry, error) {
	var out []BundleEntry
	var unresolved []MissingType
	for _, t := range d.Missing {
		e, ok := lookupType(bundle, t)
		if !ok {
			unresolved = append(unresolved, t)
			continue
		}
		out = append(out, e)
	}
	if len(unresolved) > 0 {
		return nil, &UnresolvedError{Diagnosis: d, Missing: unresolved, NoBundle: bundle == nil}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CRD.Name < out[j].CRD.Name })
	return out, nil
}

func lookupType(bundle *Bundle, t MissingType) (BundleEntry, bool) {
	if bundle == nil {
		return BundleEntry{}, false
	}
	if t.GroupKnown {
		crd, file, ok := bundle.Lookup(t.Group, t.Kind)
		return BundleEntry{CRD: crd, File: file}, ok
	}
	if entries := bundle.LookupKind(t.Kind); len(entries) == 1 {
		return entries[0], true
	}
	return BundleEntry{}, false
}

// Plan is what a pre-apply will do, decided from one fresh list of the
// cluster's CRDs: create the absent bundle CRDs, leave the others alone.
type Plan struct {
	// Create holds the bundle entries whose CRD is absent, sorted by name.
	Create []BundleEntry
	// Existing names the bundle CRDs already on the cluster, sorted: left alone.
	Existing []string
}

// PlanCreate splits entries into the CRDs to create and those that exist
// (by name). It refuses with a *ConflictError, planning nothing, when any
// absent CRD would reuse the names of an existing CRD of its group: the API
// server would store it but never accept its names.
func PlanCreate(entries []BundleEntry, existing []*apiextensionsv1.CustomResourceDefinition) (Plan, error) {
	present := make(map[string]bool, len(existing))
	for _, c := range existing {
		present[c.Name] = true
	}
	var p Plan
	seen := map[string]bool{}
	for _, e := range entries {
		switch name := e.CRD.Name; {
		case seen[name]:
		case present[name]:
			p.Existing = append(p.Existing, name)
		default:
			p.Create = append(p.Create, e)
		}
		seen[e.CRD.Name] = true
	}
	if err := CheckConflicts(p.Create, existing); err != nil {
		return Plan{}, err
	}
	sort.Slice(p.Create, func(i, j int) bool { return p.Create[i].CRD.Name < p.Create[j].CRD.Name })
	sort.Strings(p.Existing)
	return p, nil
}
