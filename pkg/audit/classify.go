package audit

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

// Origin says where the CRD of a kind comes from, as seen from the
// Kustomization that applies an object of that kind.
type Origin string

// The origins, in the order Audit tries them.
const (
	// OriginBuiltin is a kind every Kubernetes API server serves.
	OriginBuiltin Origin = "builtin"
	// OriginFlux is one of Flux's own kinds (*.toolkit.fluxcd.io), installed
	// with Flux.
	OriginFlux Origin = "flux"
	// OriginSamePass is a CRD in the same Kustomization's output. Fine:
	// kustomize-controller applies CRDs, and waits for them, before the rest.
	OriginSamePass Origin = "crd-same-kustomization"
	// OriginAncestor is a CRD in the output of an ancestor through dependsOn.
	OriginAncestor Origin = "crd-ancestor"
	// OriginRuntime is a kind declared in standup.yaml runtimeCRDs, whose CRD
	// an operator creates once it has reconciled a trigger object.
	OriginRuntime Origin = "runtime"
	// OriginChart is a kind declared in standup.yaml chartCRDs, whose CRD a
	// HelmRelease's chart installs.
	OriginChart Origin = "chart"
	// OriginKustomization is a kind declared in standup.yaml
	// kustomizationCRDs: a Kustomization the checkout does not render applies
	// its CRD. Fine from that Kustomization or an ancestor, as a CRD is.
	OriginKustomization Origin = "kustomization"
	// OriginUnordered is a CRD in the output of a Kustomization that is not an
	// ancestor (a MISSING_EDGE).
	OriginUnordered Origin = "crd-not-ancestor"
	// OriginUnknown is nothing found (an UNKNOWN_KIND).
	OriginUnknown Origin = "unknown"
)

// KindUse is one kind applied by one Kustomization, and where its CRD comes from.
type KindUse struct {
	// Kustomization applies the objects.
	Kustomization tiers.ID `json:"kustomization"`
	// Group and Kind name the kind.
	Group string `json:"group"`
	Kind  string `json:"kind"`
	// Origin is where the kind's CRD comes from.
	Origin Origin `json:"origin"`
	// Provider is the Kustomization that applies the CRD, the trigger or the
	// HelmRelease, when there is one.
	Provider *tiers.ID `json:"provider,omitempty"`
	// Objects counts the objects of the kind the Kustomization applies.
	Objects int `json:"objects"`
}

// verdict is the classification of one kind in one Kustomization.
type verdict struct {
	origin Origin
	// provider is the CRD, trigger object or HelmRelease the kind needs, and
	// the Kustomization applying it.
	provider *placed
	// trigger is the kind of what makes the CRD appear (second-order kinds).
	trigger *GroupKind
	// release is the HelmRelease whose chart installs the CRD (chart kinds).
	release *NamespacedName
	// absent is the Kustomization kustomizationCRDs names for the kind when
	// none it names is in the graph.
	absent *tiers.ID
	// guarded is set when the provider's Kustomization already waits for
	// it (wait: true or a health check), so a fix need not ask for that.
	guarded bool
	// elsewhere is set when what the kind needs exists, but lands in
	// another cluster than the Kustomization's (spec.kubeConfig).
	elsewhere bool
	// likely is a HelmRelease whose chart probably installs an unknown
	// kind's CRD: its name or chart names a label of the kind's group.
	likely *placed
	// unrendered is an ancestor Kustomization the checkout does not render,
	// which may apply an unknown kind's CRD.
	unrendered *tiers.ID
	// remote is the Kustomization (ks or one Ready before it) whose build
	// left out something remote, which may hold an unknown kind's CRD.
	remote *remoteLeftOut
	// code is the hazard every object of the kind has, if any.
	code Code
}

// classify finds the origin of gk as applied by ks.
func (ix *index) classify(ks tiers.ID, gk GroupKind) verdict {
	switch {
	case isBuiltin(gk):
		return verdict{origin: OriginBuiltin}
	case isFlux(gk):
		return verdict{origin: OriginFlux}
	}
	// A CRD, trigger or chart serves only the cluster it lands in: in a
	// hub-and-spoke repository each spoke is audited against its own.
	cluster := ix.cluster[ks]
	crds := sameCluster(ix.crds[gk], cluster)
	if p := first(crds, func(p placed) bool { return p.ks == ks }); p != nil {
		return verdict{origin: OriginSamePass, provider: p}
	}
	if p := first(crds, func(p placed) bool { return ix.graph.readyBefore(ks, p.ks) }); p != nil {
		return verdict{origin: OriginAncestor, provider: p}
	}
	if trigger, ok := ix.runtime[gk]; ok {
		all := ix.triggers[trigger]
		v := ix.secondOrder(ks, OriginRuntime, trigger, sameCluster(all, cluster))
		v.elsewhere = v.provider == nil && len(all) > 0
		return v
	}
	if hrs, ok := ix.charts[gk]; ok {
		hr := hrs[0]
		var releases []placed
		anywhere := false
		for _, r := range hrs {
			anywhere = anywhere || len(ix.releases[r]) > 0
			if here := sameCluster(ix.releases[r], cluster); len(here) > 0 {
				if releases == nil {
					hr = r
				}
				releases = append(releases, here...)
			}
		}
		v := ix.secondOrder(ks, OriginChart, GroupKind{Group: hrGroup, Kind: hrKind}, releases)
		v.release = &hr
		v.elsewhere = v.provider == nil && anywhere
		return v
	}
	if kss, ok := ix.external[gk]; ok {
		return ix.fromKustomization(ks, kss, cluster)
	}
	if len(crds) > 0 {
		return verdict{origin: OriginUnordered, provider: &crds[0], code: CodeMissingEdge}
	}
	return verdict{origin: OriginUnknown, code: CodeUnknownKind, elsewhere: len(ix.crds[gk]) > 0,
		likely: ix.likelyRelease(gk, cluster), unrendered: ix.unrenderedAncestor(ks), remote: ix.remoteBuild(ks)}
}

// remoteBuild finds ks, or a Kustomization Ready before it, whose build left
// out something remote offline: the CRD may be in it.
func (ix *index) remoteBuild(ks tiers.ID) *remoteLeftOut {
	if what := ix.res.Remote[ks]; len(what) > 0 {
		return &remoteLeftOut{ks: ks, what: what[0]}
	}
	for _, id := range ix.order {
		if what := ix.res.Remote[id]; len(what) > 0 && ix.graph.readyBefore(ks, id) {
			return &remoteLeftOut{ks: id, what: what[0]}
		}
	}
	return nil
}

// remoteLeftOut is what a Kustomization's offline build left out
// ("file: remote resource URL").
type remoteLeftOut struct {
	ks   tiers.ID
	what string
}

// fromKustomization classifies a kind declared applied by one of kss,
// Kustomizations the checkout does not render: like a CRD, it is fine from
// ks itself or an ancestor, and a missing edge from anywhere else.
func (ix *index) fromKustomization(ks tiers.ID, kss []tiers.ID, cluster string) verdict {
	v := verdict{origin: OriginKustomization}
	var other *placed
	defined := false
	for _, id := range kss {
		if _, ok := ix.objs[id]; !ok {
			continue
		}
		defined = true
		if ix.cluster[id] != cluster {
			continue
		}
		p := &placed{ks: id, file: ix.objs[id].File, cluster: cluster}
		if id == ks || ix.graph.readyBefore(ks, id) {
			v.provider = p
			return v
		}
		if other == nil {
			other = p
		}
	}
	v.provider, v.code = other, CodeMissingEdge
	v.elsewhere = other == nil && defined
	if !defined {
		v.absent = &kss[0]
	}
	return v
}

// unrenderedAncestor finds an ancestor of ks that the checkout does not
// render (it builds from another source): what it applies is unknown.
func (ix *index) unrenderedAncestor(ks tiers.ID) *tiers.ID {
	for _, o := range ix.res.Objects {
		if _, rendered := ix.res.Rendered[o.ID]; o.ID.Kind == render.KindKustomization && !rendered && ix.graph.readyBefore(ks, o.ID) {
			id := o.ID
			return &id
		}
	}
	return nil
}

// secondOrder classifies a kind whose CRD appears only once one of sources
// (trigger objects, or a HelmRelease) has been reconciled: same pass is a
// deadlock; an ancestor is fine when its readiness covers the source; anything
// else is a missing edge.
func (ix *index) secondOrder(ks tiers.ID, origin Origin, trigger GroupKind, sources []placed) verdict {
	v := verdict{origin: origin, trigger: &trigger}
	if p := first(sources, func(p placed) bool { return p.ks == ks }); p != nil {
		v.provider, v.code, v.guarded = p, CodeSecondOrderSamePass, ix.guards(p)
		return v
	}
	for i := range sources {
		p := &sources[i]
		if !ix.graph.readyBefore(ks, p.ks) {
			continue
		}
		if ix.guards(p) {
			v.provider, v.code = p, ""
			return v
		}
		if v.provider == nil {
			v.provider, v.code = p, CodeUnguardedProvider
		}
	}
	if v.provider == nil {
		v.code = CodeMissingEdge
		if len(sources) > 0 {
			v.provider = &sources[0]
		}
	}
	return v
}

// guards reports whether the Kustomization applying p turns Ready only once
// p is healthy: it has wait: true, or a health check naming p.
func (ix *index) guards(p *placed) bool {
	if ix.objs[p.ks].Wait {
		return true
	}
	def, ok := ix.res.Definitions[p.ks]
	if !ok {
		return false
	}
	checks, _, _ := nestedSlice(def.Object.Object, "spec", "healthChecks")
	want := GroupKind{Group: groupOf(p.obj.APIVersion), Kind: p.obj.Kind}
	for _, c := range checks {
		ref, ok := c.(map[string]any)
		if !ok {
			continue
		}
		apiVersion, _ := ref["apiVersion"].(string)
		kind, _ := ref["kind"].(string)
		name, _ := ref["name"].(string)
		namespace, _ := ref["namespace"].(string)
		if (GroupKind{Group: groupOf(apiVersion), Kind: kind}) == want && name == p.obj.Name && namespace == p.obj.Namespace {
			return true
		}
	}
	return false
}

// first returns a pointer to the first element of ps that ok accepts, or nil.
func first(ps []placed, ok func(placed) bool) *placed {
	for i := range ps {
		if ok(ps[i]) {
			return &ps[i]
		}
	}
	return nil
}

// likelyRelease finds a HelmRelease landing in cluster whose release or
// chart name is a label of gk's group (cert-manager for cert-manager.io,
// kyverno for kyverno.io): the usual way a chart names the API it installs.
func (ix *index) likelyRelease(gk GroupKind, cluster string) *placed {
	labels := strings.Split(gk.Group, ".")
	for _, nn := range slices.SortedFunc(maps.Keys(ix.releases), compareNamespacedNames) {
		for _, p := range sameCluster(ix.releases[nn], cluster) {
			if slices.Contains(labels, p.obj.Name) || (p.chart != "" && slices.Contains(labels, p.chart)) {
				return &p
			}
		}
	}
	return nil
}

func compareNamespacedNames(a, b NamespacedName) int {
	return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
}
