package audit

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/pkg/catalog"
	"github.com/kubestandup/standup/pkg/config"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

// TriggerPlaceholder is the trigger kind a skeleton entry carries
// (config.TriggerPlaceholder): config.Parse refuses it.
const TriggerPlaceholder = config.TriggerPlaceholder

// Labels and annotations that tell who applied a live CRD.
const (
	kustomizeNameLabel      = "kustomize.toolkit.fluxcd.io/name"
	kustomizeNamespaceLabel = "kustomize.toolkit.fluxcd.io/namespace"
	helmNameLabel           = "helm.toolkit.fluxcd.io/name"
	helmNamespaceLabel      = "helm.toolkit.fluxcd.io/namespace"
	helmReleaseAnnotation   = "meta.helm.sh/release-name"
	helmNamespaceAnnotation = "meta.helm.sh/release-namespace"
	// preAppliedAnnotation has the value of crds.PreAppliedForAnnotation
	// (a test holds them equal): audit stays free of the cluster-side packages.
	preAppliedAnnotation = "standup.kubestandup.io/pre-applied-for"
)

// ClusterCRD is what --from-cluster needs to know about one live CRD.
type ClusterCRD struct {
	// Name is the CRD's name (plural.group).
	Name string
	// Defines is the kind the CRD serves.
	Defines GroupKind
	// Labels and Annotations are the CRD's own.
	Labels, Annotations map[string]string
	// Owners are the kinds and names of the CRD's ownerReferences, controller
	// first.
	Owners []Object
	// Managers are the field managers that wrote the CRD's spec or
	// metadata, in the order of its managedFields (the creator is usually
	// first).
	Managers []string
}

// ClusterCRDOf extracts what Skeleton reads from a live CRD.
func ClusterCRDOf(crd *apiextensionsv1.CustomResourceDefinition) ClusterCRD {
	c := ClusterCRD{
		Name:        crd.Name,
		Defines:     GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind},
		Labels:      crd.Labels,
		Annotations: crd.Annotations,
	}
	for _, o := range crd.OwnerReferences {
		owner := Object{APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name}
		if o.Controller != nil && *o.Controller {
			c.Owners = slices.Insert(c.Owners, 0, owner)
		} else {
			c.Owners = append(c.Owners, owner)
		}
	}
	for _, m := range crd.ManagedFields {
		// The API server's own status writes (Established) say nothing of
		// who created the CRD.
		if m.Subresource == "status" {
			continue
		}
		if m.Manager != "" && !slices.Contains(c.Managers, m.Manager) {
			c.Managers = append(c.Managers, m.Manager)
		}
	}
	return c
}

// CRDSource says where a live CRD that the checkout does not render came
// from, as far as the cluster tells.
type CRDSource string

const (
	// SourceRuntime is a CRD no Kustomization or chart applied: an operator
	// created it (or standup pre-applied it for one).
	SourceRuntime CRDSource = "runtime"
	// SourceChart is a CRD a Helm release installed.
	SourceChart CRDSource = "chart"
	// SourceKustomization is a CRD a live Kustomization applied that the
	// checkout does not render (another repository, or a path outside it).
	SourceKustomization CRDSource = "kustomization"
	// SourceDeclared is a CRD whose kind standup.yaml already declares.
	SourceDeclared CRDSource = "declared"
)

// CRDFinding is one live CRD that no Kustomization of the checkout produces.
type CRDFinding struct {
	// CRD is the CRD's name.
	CRD string `json:"crd"`
	// Defines is the kind it serves.
	Defines GroupKind `json:"defines"`
	// Source is where it came from.
	Source CRDSource `json:"source"`
	// Trigger is the trigger kind of a runtime CRD; Kind is
	// TriggerPlaceholder when the cluster does not tell.
	Trigger *GroupKind `json:"trigger,omitempty"`
	// HelmRelease is the HelmRelease of a chart CRD.
	HelmRelease *NamespacedName `json:"helmRelease,omitempty"`
	// Kustomization is the live Kustomization that applied a CRD the
	// checkout does not render.
	Kustomization *NamespacedName `json:"kustomization,omitempty"`
	// Reason says how the source, trigger or HelmRelease was inferred.
	Reason string `json:"reason"`
}

// Skeleton is the answer of `standup audit --from-cluster`: a standup.yaml
// that declares the live CRDs the checkout does not produce, and why.
type Skeleton struct {
	// Path is the directory rendered, relative to the repository root.
	Path string `json:"path"`
	// Config declares every runtime and chart finding; entries whose
	// trigger is unknown carry TriggerPlaceholder.
	Config Config `json:"config"`
	// Findings are the live CRDs the checkout does not produce, sorted by
	// source, then name. Flux's own CRDs are left out.
	Findings []CRDFinding `json:"findings"`
	// Produced counts the live CRDs a Kustomization of the checkout applies.
	Produced int `json:"produced"`
	// Placeholders counts the entries whose trigger must be filled in.
	Placeholders int `json:"placeholders"`
}

// BuildSkeleton compares the live CRDs with what the checkout renders (res)
// and what standup.yaml (cfg, nil for none) declares. inventories maps a
// live Kustomization to the CRDs its status.inventory lists, so a CRD a
// Kustomization applied from outside the checkout is not taken for a runtime
// one. It is pure: the cluster was read by the caller. Its error is the
// built-in catalog's (catalog.Default).
func BuildSkeleton(res *render.Result, cfg *Config, live []ClusterCRD, inventories map[tiers.ID][]string) (*Skeleton, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	ix := newIndex(res, cfg, nil, cat)
	appliedBy := map[string]tiers.ID{}
	for _, id := range slices.SortedFunc(maps.Keys(inventories), compareIDs) {
		for _, name := range inventories[id] {
			if _, ok := appliedBy[name]; !ok {
				appliedBy[name] = id
			}
		}
	}
	releases := releasesOf(res)
	sk := &Skeleton{Path: res.Path, Config: Config{APIVersion: config.APIVersion, Kind: config.Kind}}
	for _, c := range live {
		gk := c.Defines
		switch {
		case len(ix.crds[gk]) > 0:
			sk.Produced++
			continue
		case isFlux(gk):
			continue
		}
		f := CRDFinding{CRD: c.Name, Defines: gk}
		if trigger, ok := ix.runtime[gk]; ok {
			f.Source, f.Reason = SourceDeclared, "standup.yaml declares it created at runtime by "+trigger.String()
		} else if hrs, ok := ix.charts[gk]; ok {
			f.Source, f.Reason = SourceDeclared, "standup.yaml declares it installed by the chart of HelmRelease/"+hrs[0].String()
		} else if kss, ok := ix.external[gk]; ok {
			f.Source, f.Reason = SourceDeclared, "standup.yaml declares it applied by "+kss[0].String()
		} else if ks, ok := appliedByKustomization(c, appliedBy); ok {
			f.Source, f.Reason = SourceKustomization, "applied by Kustomization/"+ks.Namespace+"/"+ks.Name+", which this checkout does not render"
			f.Kustomization = &NamespacedName{Namespace: ks.Namespace, Name: ks.Name}
		} else if hr, reason, ok := chartOf(c, releases); ok {
			f.Source, f.HelmRelease, f.Reason = SourceChart, &hr, reason
		} else {
			trigger, reason := triggerOf(c, gk, ix)
			f.Source, f.Trigger, f.Reason = SourceRuntime, &trigger, reason
		}
		sk.Findings = append(sk.Findings, f)
	}
	slices.SortFunc(sk.Findings, func(a, b CRDFinding) int {
		return cmp.Or(cmp.Compare(sourceRank(a.Source), sourceRank(b.Source)), cmp.Compare(a.CRD, b.CRD))
	})
	sk.Config.RuntimeCRDs, sk.Config.ChartCRDs, sk.Config.KustomizationCRDs = declarations(sk.Findings)
	for _, r := range sk.Config.RuntimeCRDs {
		if r.Trigger.Kind == TriggerPlaceholder {
			sk.Placeholders++
		}
	}
	return sk, nil
}

func sourceRank(s CRDSource) int {
	return slices.Index([]CRDSource{SourceRuntime, SourceChart, SourceKustomization, SourceDeclared}, s)
}

// declarations groups runtime findings by trigger, chart findings by
// HelmRelease and Kustomization findings by Kustomization, in the order of
// their first finding.
func declarations(findings []CRDFinding) ([]RuntimeCRD, []ChartCRD, []KustomizationCRD) {
	var runtime []RuntimeCRD
	triggers, byTrigger := groupKinds(findings, SourceRuntime, func(f CRDFinding) GroupKind { return *f.Trigger })
	for _, t := range triggers {
		runtime = append(runtime, RuntimeCRD{Trigger: t, Kinds: byTrigger[t]})
	}
	var charts []ChartCRD
	releases, byRelease := groupKinds(findings, SourceChart, func(f CRDFinding) NamespacedName { return *f.HelmRelease })
	for _, hr := range releases {
		charts = append(charts, ChartCRD{HelmRelease: hr, Kinds: byRelease[hr]})
	}
	var kss []KustomizationCRD
	appliers, byApplier := groupKinds(findings, SourceKustomization, func(f CRDFinding) NamespacedName { return *f.Kustomization })
	for _, ks := range appliers {
		kss = append(kss, KustomizationCRD{Kustomization: ks, Kinds: byApplier[ks]})
	}
	return runtime, charts, kss
}

// groupKinds groups the kinds of the findings from source by key, and
// returns the keys in the order of their first finding.
func groupKinds[K comparable](findings []CRDFinding, source CRDSource, key func(CRDFinding) K) ([]K, map[K][]GroupKind) {
	var keys []K
	kinds := map[K][]GroupKind{}
	for _, f := range findings {
		if f.Source != source {
			continue
		}
		k := key(f)
		if _, seen := kinds[k]; !seen {
			keys = append(keys, k)
		}
		kinds[k] = append(kinds[k], f.Defines)
	}
	return keys, kinds
}

// appliedByKustomization finds the live Kustomization that applied c: its
// inventory first, kustomize-controller's owner labels second.
func appliedByKustomization(c ClusterCRD, appliedBy map[string]tiers.ID) (tiers.ID, bool) {
	if id, ok := appliedBy[c.Name]; ok {
		return id, true
	}
	name, ns := c.Labels[kustomizeNameLabel], c.Labels[kustomizeNamespaceLabel]
	if name == "" || ns == "" {
		return tiers.ID{}, false
	}
	return tiers.ID{Kind: "Kustomization", Namespace: ns, Name: name}, true
}

// chartRelease is a HelmRelease of the checkout as Helm names its release.
type chartRelease struct {
	hr              NamespacedName
	name, namespace string
}

// releasesOf lists the checkout's HelmReleases with the release name and
// namespace helm-controller gives them: spec.releaseName, else
// [targetNamespace-]name; spec.targetNamespace, else the object's namespace.
func releasesOf(res *render.Result) []chartRelease {
	var out []chartRelease
	for _, id := range slices.SortedFunc(maps.Keys(res.Rendered), compareIDs) {
		for _, m := range res.Rendered[id] {
			if groupKindOf(m.Object) != (GroupKind{Group: hrGroup, Kind: hrKind}) {
				continue
			}
			u := m.Object
			target, _, _ := unstructured.NestedString(u.Object, "spec", "targetNamespace")
			name, _, _ := unstructured.NestedString(u.Object, "spec", "releaseName")
			if name == "" {
				name = u.GetName()
				if target != "" {
					name = target + "-" + name
				}
			}
			ns := cmp.Or(target, u.GetNamespace())
			out = append(out, chartRelease{hr: NamespacedName{Namespace: u.GetNamespace(), Name: u.GetName()}, name: name, namespace: ns})
		}
	}
	return out
}

// chartOf finds the HelmRelease whose chart installed c: helm-controller's
// owner labels name it; Helm's own annotations name the release, which is
// matched with the checkout's HelmReleases.
func chartOf(c ClusterCRD, releases []chartRelease) (NamespacedName, string, bool) {
	if name, ns := c.Labels[helmNameLabel], c.Labels[helmNamespaceLabel]; name != "" && ns != "" {
		return NamespacedName{Namespace: ns, Name: name}, "labelled by helm-controller as installed by HelmRelease/" + ns + "/" + name, true
	}
	name, ns := c.Annotations[helmReleaseAnnotation], c.Annotations[helmNamespaceAnnotation]
	if name == "" || ns == "" {
		return NamespacedName{}, "", false
	}
	for _, r := range releases {
		if r.name == name && r.namespace == ns {
			return r.hr, fmt.Sprintf("installed by Helm release %s/%s, which is HelmRelease/%s in this checkout", ns, name, r.hr), true
		}
	}
	return NamespacedName{Namespace: ns, Name: name}, fmt.Sprintf("installed by Helm release %s/%s; no HelmRelease of this checkout has that release name, so check the HelmRelease's name", ns, name), true
}

// triggerOf infers the trigger kind of a runtime CRD: the CRD's owner if it
// is a custom resource; else the one kind of the same API group whose CRD the
// checkout ships (CDI for cdi.kubevirt.io); else TriggerPlaceholder.
func triggerOf(c ClusterCRD, gk GroupKind, ix *index) (GroupKind, string) {
	by := ""
	if pre := c.Annotations[preAppliedAnnotation]; pre != "" {
		by = "; standup pre-applied it for " + pre
	} else if len(c.Managers) > 0 {
		by = "; written by field manager " + strings.Join(c.Managers, ", ")
	}
	for _, o := range c.Owners {
		owner := GroupKind{Group: groupOf(o.APIVersion), Kind: o.Kind}
		if owner.Group != "" && !isBuiltin(owner) {
			return owner, fmt.Sprintf("no Kustomization or chart applied it; it is owned by %s/%s%s", o.Kind, o.Name, by)
		}
	}
	var candidates []GroupKind
	for shipped := range ix.crds {
		if shipped.Group == gk.Group && !slices.Contains(candidates, shipped) {
			candidates = append(candidates, shipped)
		}
	}
	slices.SortFunc(candidates, func(a, b GroupKind) int { return cmp.Compare(a.Kind, b.Kind) })
	switch len(candidates) {
	case 1:
		return candidates[0], fmt.Sprintf("no Kustomization or chart applied it; the trigger is a guess: %s is the only kind of group %s whose CRD this checkout ships%s", candidates[0], gk.Group, by)
	case 0:
		return GroupKind{Group: gk.Group, Kind: TriggerPlaceholder}, fmt.Sprintf("no Kustomization or chart applied it, and nothing tells which object makes the operator create it: name the trigger kind%s", by)
	}
	names := make([]string, len(candidates))
	for i, k := range candidates {
		names[i] = k.Kind
	}
	return GroupKind{Group: gk.Group, Kind: TriggerPlaceholder}, fmt.Sprintf("no Kustomization or chart applied it; the trigger is one of %s (this checkout ships their CRDs): name it%s", strings.Join(names, ", "), by)
}
