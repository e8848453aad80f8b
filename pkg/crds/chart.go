package crds

import (
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// The chart form of the cold-start deadlock: a Kustomization holds a
// HelmRelease and a custom resource of a kind the release's chart
// installs. Its dry-run fails on that kind, so the HelmRelease is never
// applied and the chart's CRD never comes. The repair is the same as for a
// runtime CRD (prove it, pre-apply the bundle's CRD); what differs is what
// follows: the chart installs over the pre-applied CRD, and Helm refuses
// to when the chart ships it in templates/, the release does not take
// ownership (install.disableTakeOwnership) and the CRD lacks Helm's
// ownership metadata for the release.

// HelmReleaseOf returns the Helm release a CRD's ownership metadata names
// ("namespace/name"), or "" when it carries none: a bundle CRD captured
// where a chart's release owned it (standup crds capture keeps the
// metadata) says which release installs it.
func HelmReleaseOf(crd *apiextensionsv1.CustomResourceDefinition) string {
	if crd == nil || crd.Labels[HelmManagedByLabel] != HelmManagedByValue {
		return ""
	}
	name, ns := crd.Annotations[HelmReleaseNameAnnotation], crd.Annotations[HelmReleaseNamespaceAnnotation]
	if name == "" || ns == "" {
		return ""
	}
	return ns + "/" + name
}

// ChartRelease is a HelmRelease that a repaired Kustomization applied in
// the pass its pre-applied CRDs unblocked, and whose chart installs one of
// them: the deadlock was the chart form.
type ChartRelease struct {
	// HelmRelease is the release's HelmRelease.
	HelmRelease tiers.ID `json:"helmRelease"`
	// CRDs are the pre-applied CRDs its chart installs, sorted: its
	// inventory lists them, or Helm refused to take them into the release.
	CRDs []string `json:"crds"`
	// Ready says the release installed over them: Ready at its generation.
	Ready bool `json:"ready"`
	// Message is its Ready condition's message.
	Message string `json:"message,omitempty"`
	// Refused is set when Helm refused to take a pre-applied CRD into the
	// release: what finishes the repair.
	Refused *HelmRefusal `json:"refused,omitempty"`
}

// HelmRefusal is Helm refusing to install a release over a CRD standup
// pre-applied without the release's ownership metadata, and what a person
// runs to finish the repair.
type HelmRefusal struct {
	// Object is the object Helm would not take into the release.
	Object ObjectRef `json:"object"`
	// Commands are HelmOwnershipFailure.Commands: give the object Helm's
	// ownership metadata, then reconcile the HelmRelease with a reset.
	Commands []string `json:"commands"`
	// Advice is HelmOwnershipFailure.Explain: why, and the same commands,
	// in one paragraph for a person, as resume says it.
	Advice string `json:"advice"`
}

// ChartReleases returns, sorted, the HelmReleases among releases that ks
// applied (their AppliedBy) and whose chart installs one of the CRDs
// created for it (by name): listed in the release's inventory, which
// holds its chart's CRDs, crds/ and templates/ alike, or named by Helm's
// refusal to take it into the release.
func ChartReleases(ks tiers.ID, created []string, releases []flux.Object) []ChartRelease {
	var out []ChartRelease
	for _, hr := range releases {
		if hr.ID.Kind != flux.KindHelmRelease || hr.AppliedBy == nil || *hr.AppliedBy != ks {
			continue
		}
		r := ChartRelease{HelmRelease: hr.ID}
		for _, name := range flux.CRDsInInventory(hr.Inventory) {
			if slices.Contains(created, name) {
				r.CRDs = append(r.CRDs, name)
			}
		}
		if hr.Ready != nil {
			r.Message = hr.Ready.Message
			r.Ready = hr.ReadyAtGeneration()
			if f, ok := ParseHelmOwnershipFailure(hr.Ready.Message); ok && f.Object.Kind == flux.CRDKind && slices.Contains(created, f.Object.Name) {
				r.Refused = &HelmRefusal{Object: f.Object, Commands: f.Commands(hr.ID), Advice: f.Explain(hr.ID, hr.Ready.Message, &ks)}
				if !slices.Contains(r.CRDs, f.Object.Name) {
					r.CRDs = append(r.CRDs, f.Object.Name)
				}
			}
		}
		if len(r.CRDs) == 0 {
			continue
		}
		slices.Sort(r.CRDs)
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b ChartRelease) int { return strings.Compare(a.HelmRelease.String(), b.HelmRelease.String()) })
	return out
}
