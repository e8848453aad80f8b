package audit

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/kubestandup/standup/pkg/catalog"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

// Origin says where the CRD of a kind comes from, as seen from the
// Kustomization that applies an object of that kind.
type Origin string

// The origins.
const (
	// OriginBuiltin is a kind every Kubernetes API server serves.
	OriginBuiltin Origin = "builtin"
	// OriginFlux is one of Flux's own kinds (*.toolkit.fluxcd.io), installed
	// with Flux.
	OriginFlux Origin = "flux"
	// OriginBootstrap is a kind installed before Flux starts: the
	// repository's bootstrap says so (a helmfile, CRD files, a remote
	// manifest), or standup.yaml's bootstrapCRDs.
	OriginBootstrap Origin = "bootstrap"
	// OriginPlatform is a kind the Kubernetes distribution serves before
	// Flux starts (the catalog's platforms: Talos).
	OriginPlatform Origin = "platform"
	// OriginSamePass is a CRD in the same Kustomization's output. Fine:
	// kustomize-controller applies CRDs, and waits for them, before the rest.
	OriginSamePass Origin = "crd-same-kustomization"
	// OriginAncestor is a CRD in the output of a Kustomization Ready first.
	OriginAncestor Origin = "crd-ancestor"
	// OriginRuntime is a kind whose CRD an operator creates once it has
	// reconciled a trigger object (standup.yaml runtimeCRDs, or the
	// catalog).
	OriginRuntime Origin = "runtime"
	// OriginChart is a kind whose CRD a HelmRelease's chart installs
	// (standup.yaml chartCRDs, or the catalog).
	OriginChart Origin = "chart"
	// OriginKustomization is a kind declared in standup.yaml
	// kustomizationCRDs: a Kustomization the checkout does not render applies
	// its CRD. Fine from that Kustomization or an ancestor, as a CRD is.
	OriginKustomization Origin = "kustomization"
	// OriginUnordered is a CRD in the output of a Kustomization that is not
	// Ready first (a MISSING_EDGE).
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
	// Evidence says who says so, when it is not the rendered objects
	// themselves: "standup.yaml", "catalog: cert-manager", a bootstrap file.
	Evidence string `json:"evidence,omitempty"`
	// Objects counts the objects of the kind the Kustomization applies.
	Objects int `json:"objects"`
}

// verdict is the classification of one kind in one Kustomization.
type verdict struct {
	origin Origin
	// via is the origin chosen among the candidates.
	via *origin
	// evidence is KindUse.Evidence.
	evidence string
	// stage is the apply stage of the kind's objects.
	stage int
	// rank orders verdicts: see rankOf.
	rank int
	// set is every candidate origin (for messages and hints).
	set originSet
	// guarded is set when the provider's Kustomization already waits for
	// it (wait: true or a health check), so a fix need not ask for that.
	guarded bool
	// gate is the health check on the kind's CRD, in a Kustomization Ready
	// before the consumer, that makes an origin nothing else orders first
	// exist in time (gateFor); the convergence check then asks whether the
	// gate itself ever turns Ready.
	gate *crdGate
	// cycle is the chain by which the provider waits for the consumer.
	cycle []tiers.ID
	// created is the chain of Kustomizations the consumer itself creates in
	// the pass that fails, each applying the next, down to the provider: a
	// same-pass deadlock one Kustomization (or more) removed.
	created []tiers.ID
	// opaque is a Kustomization the checkout does not render that could
	// act without the consumer: if it applies the CRD, what would be a
	// deadlock converges on a retry, so the finding is only a warning.
	opaque *tiers.ID
	// blocked is set when the origin never appears on a cold start for a
	// reason of its own (another finding), not the consumer's, and that
	// finding is an error that stands: the origin never appears either
	// when every deadlock downgraded to a warning converges
	// (convergence.standsBlocked).
	blocked bool
	// likely is a HelmRelease whose chart probably installs an unknown
	// kind's CRD: its name or chart names a label of the kind's group.
	likely *placed
	// known are the catalog entries that would provide an unknown kind.
	known []*catalog.Entry
	// installer is an object applied in the same pass as an unknown kind
	// that installs CRDs at runtime (a Crossplane package, an OLM
	// Subscription, a trigger of the catalog or standup.yaml): the kind is
	// likely one of them, a second-order kind in the pass of its trigger.
	installer *placed
	// unrendered is an ancestor Kustomization the checkout does not render,
	// which may apply an unknown kind's CRD.
	unrendered *tiers.ID
	// remote is the Kustomization (ks or one Ready before it) whose build
	// left out a remote resource, which may hold an unknown kind's CRD.
	remote *remoteLeftOut
	// code and severity are the finding every object of the kind has, if any.
	code     Code
	severity Severity
}

// The ranks of a candidate origin, best first.
const (
	rankGuaranteed  = iota // exists before the stage is dry-run, first time
	rankUnguarded          // ordered, but the provider does not wait for it
	rankEarlierStep        // same Kustomization, an earlier stage
	rankUnordered          // nothing orders the provider first
	rankDeadlock           // same Kustomization, same or later stage
)

// classify finds the origin of gk as applied by ks in stage, from every
// candidate: the best one decides. The severity of a second choice waits
// for the convergence check (Audit).
func (ix *index) classify(ks tiers.ID, gk GroupKind, stage int) verdict {
	switch {
	case isBuiltin(gk):
		return verdict{origin: OriginBuiltin}
	case isFlux(gk):
		return verdict{origin: OriginFlux}
	}
	cluster := ix.cluster[ks]
	set := ix.origins(gk, cluster)
	if use, ok := ix.boot.lookup(gk, cluster); ok && (!set.declared || ix.boot.declaredKinds[gk] || ix.boot.declaredGroups[gk.Group]) {
		v := verdict{origin: OriginBootstrap, evidence: use.evidence(), stage: stage, set: set}
		if use.File == "" {
			v.origin = OriginPlatform
		}
		return v
	}
	v := verdict{stage: stage, set: set, rank: rankDeadlock + 1}
	for i := range set.candidates {
		o := &set.candidates[i]
		if r := ix.rankOf(ks, stage, o); r < v.rank {
			v.rank, v.via = r, o
		}
	}
	if v.via == nil {
		return ix.withoutOrigin(ks, gk, v)
	}
	v.evidence = v.via.evidence()
	if v.rank == rankUnguarded || v.rank == rankUnordered {
		// Not in the same pass: a CRD gate on the way guarantees the kind.
		if v.gate = ix.gateFor(ks, gk); v.gate != nil {
			v.rank = rankGuaranteed
			v.evidence = strings.TrimPrefix(v.evidence+"; "+v.gate.evidence(), "; ")
		}
	}
	v.origin = originOf(*v.via, v.rank, ks)
	v.guarded = v.via.secondOrder() && ix.guards(&v.via.at)
	switch v.rank {
	case rankUnguarded:
		v.code, v.severity = CodeUnguardedProvider, SeverityWarning
	case rankEarlierStep:
		v.code, v.severity = CodeSecondOrderSamePass, SeverityWarning
	case rankUnordered:
		v.code, v.severity = CodeMissingEdge, SeverityWarning
	case rankDeadlock:
		v.code, v.severity = CodeSecondOrderSamePass, SeverityError
	}
	return v
}

// rankOf ranks one candidate origin of a kind ks applies in stage.
func (ix *index) rankOf(ks tiers.ID, stage int, o *origin) int {
	same := o.at.ks == ks
	before := !same && ix.graph.readyBefore(ks, o.at.ks)
	switch {
	case !o.secondOrder() && (same || before):
		// CRDs are applied, and waited for, in the first stage.
		return rankGuaranteed
	case !o.secondOrder():
		return rankUnordered
	case same && o.at.stage < stage:
		return rankEarlierStep
	case same:
		return rankDeadlock
	case before && ix.guards(&o.at):
		return rankGuaranteed
	case before:
		return rankUnguarded
	}
	return rankUnordered
}

// originOf is the Origin a chosen candidate gives the kind.
func originOf(o origin, rank int, ks tiers.ID) Origin {
	switch o.src {
	case srcChart:
		return OriginChart
	case srcRuntime:
		return OriginRuntime
	case srcKustomization:
		return OriginKustomization
	}
	switch {
	case o.at.ks == ks:
		return OriginSamePass
	case rank == rankGuaranteed:
		return OriginAncestor
	}
	return OriginUnordered
}

// withoutOrigin classifies a kind with no candidate origin in its cluster:
// a declared origin that is absent is an error (it never appears); else
// the kind is unknown, with what hints there are.
func (ix *index) withoutOrigin(ks tiers.ID, gk GroupKind, v verdict) verdict {
	set := v.set
	if set.declared {
		v.code, v.severity = CodeMissingEdge, SeverityError
		switch {
		case set.absent != nil || len(ix.external[gk]) > 0:
			v.origin = OriginKustomization
		case set.release != nil:
			v.origin = OriginChart
		default:
			v.origin = OriginRuntime
		}
		return v
	}
	v.origin, v.code, v.severity = OriginUnknown, CodeUnknownKind, SeverityNotice
	cluster := ix.cluster[ks]
	v.likely = ix.likelyRelease(gk, cluster)
	v.unrendered = ix.unrenderedAncestor(ks)
	v.remote = ix.remoteBuild(ks)
	v.known = ix.cat.Providers(catalog.GroupKind(gk))
	if v.installer = ix.installerInPass(ks, gk); v.installer != nil {
		v.severity = SeverityWarning
	}
	return v
}

// installerKinds install CRDs at runtime whatever the catalog knows of
// them: Crossplane's packages and OLM's Subscription (the operator's
// bundle brings its CRDs once OLM has resolved it).
var installerKinds = append([]GroupKind{{Group: "operators.coreos.com", Kind: "Subscription"}}, func() []GroupKind {
	out := make([]GroupKind, len(catalog.CrossplanePackageKinds))
	for i, gk := range catalog.CrossplanePackageKinds {
		out[i] = GroupKind(gk)
	}
	return out
}()...)

// installerInPass finds an object ks applies that installs CRDs at
// runtime, other than an object of gk: a trigger kind of the catalog or
// standup.yaml, or an installerKinds object. Kinds are tried in a stable
// order, so the finding names the same installer every run.
func (ix *index) installerInPass(ks tiers.ID, gk GroupKind) *placed {
	kinds := slices.SortedFunc(maps.Keys(ix.byKind), func(a, b GroupKind) int {
		return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Kind, b.Kind))
	})
	for _, k := range kinds {
		if k == gk {
			continue
		}
		for i, p := range ix.byKind[k] {
			if p.ks == ks {
				return &ix.byKind[k][i]
			}
		}
	}
	return nil
}

// remoteBuild finds ks, or a Kustomization Ready before it, whose build left
// out a remote resource offline that the catalog does not know: the CRD may
// be in it. Remote files of generators and patches cannot hold one.
func (ix *index) remoteBuild(ks tiers.ID) *remoteLeftOut {
	check := func(id tiers.ID) *remoteLeftOut {
		for _, what := range ix.res.Remote[id] {
			if file, url, ok := remoteResource(what); ok && ix.cat.Manifest(url) == nil {
				return &remoteLeftOut{ks: id, what: file + ": remote resource " + url}
			}
		}
		return nil
	}
	if r := check(ks); r != nil {
		return r
	}
	for _, id := range ix.order {
		if ix.graph.readyBefore(ks, id) {
			if r := check(id); r != nil {
				return r
			}
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

// likelyRelease finds a HelmRelease landing in cluster whose release or
// chart name is a label of gk's group (cert-manager for cert-manager.io,
// kyverno for kyverno.io): the usual way a chart names the API it installs.
func (ix *index) likelyRelease(gk GroupKind, cluster string) *placed {
	labels := strings.Split(gk.Group, ".")
	for _, nn := range slices.SortedFunc(maps.Keys(ix.releases), compareNamespacedNames) {
		for _, p := range sameCluster(ix.releases[nn], cluster) {
			chart := ""
			if p.release != nil && p.release.chart != "" {
				chart = catalog.ChartName(p.release.chart)
			}
			if slices.Contains(labels, p.obj.Name) || (chart != "" && slices.Contains(labels, chart)) {
				return &p
			}
		}
	}
	return nil
}

func compareNamespacedNames(a, b NamespacedName) int {
	return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
}
