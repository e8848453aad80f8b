package audit

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/catalog"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

const (
	crdGroup = "apiextensions.k8s.io"
	crdKind  = "CustomResourceDefinition"
	hrGroup  = "helm.toolkit.fluxcd.io"
	hrKind   = "HelmRelease"
)

// placed is one rendered object and the Kustomization that applies it.
type placed struct {
	ks   tiers.ID
	obj  Object
	file string
	// line is where the object's document starts in file; 0 when unknown.
	line int
	// cluster is where the object lands: its Kustomization's target
	// cluster, or for a HelmRelease with spec.kubeConfig, the release's.
	cluster string
	// stage is the apply stage of the object within ks.
	stage int
	// release holds what a HelmRelease says about its chart.
	release *releaseInfo
	// pkg is a Crossplane Provider's spec.package.
	pkg string
}

// releaseInfo is what the audit reads from a HelmRelease.
type releaseInfo struct {
	// chart is the chart reference: spec.chart.spec.chart, or the URL of the
	// OCIRepository (or the chart of the HelmChart) spec.chartRef names.
	chart string
	// values are spec.values; valuesFrom is set when spec.valuesFrom adds
	// values the checkout cannot see.
	values     map[string]any
	valuesFrom bool
	// skipCRDs is spec.install.crds: Skip: Helm leaves the chart's crds/
	// directory out of the install.
	skipCRDs bool
	// suspended is spec.suspend: helm-controller installs nothing.
	suspended bool
	// noTakeOwnership is spec.install.disableTakeOwnership: Helm then
	// refuses to install over an object that lacks its ownership metadata.
	noTakeOwnership bool
	// chartRef is the source spec.chartRef names, resolved once every
	// object is indexed.
	chartRef *NamespacedName
	refKind  string
}

// index holds what the audit looks up while it classifies kinds: who applies
// each CRD, each trigger object and each HelmRelease, what the
// Kustomizations, standup.yaml, the bootstrap and the catalog say.
type index struct {
	res *render.Result
	cfg *Config
	cat *catalog.Catalog
	// clusterScoped holds the kinds a rendered CRD declares cluster-scoped.
	clusterScoped map[GroupKind]bool
	objs          map[tiers.ID]flux.Object
	// order lists the rendered Kustomizations, sorted.
	order []tiers.ID
	// crds maps a kind to the CRDs defining it, by Kustomization order.
	crds map[GroupKind][]placed
	// byKind maps a kind that may trigger an operator (standup.yaml's
	// triggers, the catalog's) to the objects of that kind.
	byKind map[GroupKind][]placed
	// releases maps a HelmRelease to where it is applied.
	releases map[NamespacedName][]placed
	// remote lists the remote resources each Kustomization's build left out
	// that the catalog knows.
	remote []remoteManifest
	// xrds maps the composite and claim kinds of the repository's
	// Crossplane XRDs to the XRDs that define them.
	xrds map[GroupKind][]placed
	// runtime maps a runtime kind to its trigger kind (standup.yaml).
	runtime map[GroupKind]GroupKind
	// charts maps a chart kind to the HelmReleases declared to install it
	// (one per cluster, in hub-and-spoke repositories).
	charts map[GroupKind][]NamespacedName
	// external maps a kind to the unrendered Kustomizations declared to
	// apply its CRD.
	external map[GroupKind][]tiers.ID
	// custom holds standup.yaml's customApplyStageKinds.
	custom map[GroupKind]bool
	// boot says which kinds are installed before Flux, and how it is known.
	boot *bootKinds
	// postBuildBy names the release of a webhook that gives every
	// Kustomization a postBuild (postBuildInjectors), "" for none.
	postBuildBy string
	// sources maps an OCIRepository or HelmChart to its chart reference, a
	// GitRepository to its URL ("Kind/namespace/name").
	sources map[string]string
	// includes maps a GitRepository to the paths its spec.ignore brings
	// back ("!/charts/x/crds"): the only files it serves.
	includes map[string][]string
	// opaque lists the Kustomizations the checkout does not render, that
	// neither the catalog nor standup.yaml says anything of: they may apply
	// any CRD.
	opaque []tiers.ID
	// cluster maps a Kustomization to the cluster it applies to: "" for the
	// cluster it lives in, else its spec.kubeConfig reference.
	cluster map[tiers.ID]string
	graph   *ancestry
	// memo caches the origin candidates of a kind, per cluster.
	memo map[originKey]originSet
	// kinds holds the kind and apply stage of each rendered object, in the
	// order of res.Rendered[ks]: read once, used by every pass.
	kinds map[tiers.ID][]objectKind
	// gates maps a kind to the Kustomizations whose health checks wait for
	// its CRD.
	gates map[GroupKind][]crdGate
}

// objectKind is the kind and apply stage of one rendered object.
type objectKind struct {
	gk    GroupKind
	stage int
}

// remoteManifest is a remote resource of a Kustomization's build that a
// catalog entry knows, or the source of an unrendered Kustomization that
// one knows: the CRDs it holds are applied by that Kustomization.
type remoteManifest struct {
	ks    tiers.ID
	file  string
	url   string
	entry *catalog.Entry
	// source is set when url is the Kustomization's own source.
	source bool
}

// newIndex indexes res, cfg and what the bootstrap installs.
func newIndex(res *render.Result, cfg *Config, boot *Bootstrap, cat *catalog.Catalog) *index {
	ix := &index{
		res:      res,
		cfg:      cfg,
		cat:      cat,
		objs:     make(map[tiers.ID]flux.Object, len(res.Objects)),
		crds:     map[GroupKind][]placed{},
		byKind:   map[GroupKind][]placed{},
		releases: map[NamespacedName][]placed{},
		runtime:  map[GroupKind]GroupKind{},
		xrds:     map[GroupKind][]placed{},
		charts:   map[GroupKind][]NamespacedName{},
		cluster:  map[tiers.ID]string{},
		external: map[GroupKind][]tiers.ID{},
		custom:   map[GroupKind]bool{},
		sources:  map[string]string{},
		includes: map[string][]string{},
		memo:     map[originKey]originSet{},
		kinds:    make(map[tiers.ID][]objectKind, len(res.Rendered)),
		graph:    newAncestry(res.Objects),
	}
	ix.clusterScoped = clusterScopedCRDs(res)
	for _, o := range res.Objects {
		ix.objs[o.ID] = o
		if def, ok := res.Definitions[o.ID]; ok && o.ID.Kind == render.KindKustomization {
			ix.cluster[o.ID] = targetCluster(def.Object)
		}
	}
	for _, gk := range cfg.CustomApplyStageKinds {
		ix.custom[gk] = true
	}
	for _, r := range cfg.RuntimeCRDs {
		ix.byKind[r.Trigger] = nil
		for _, gk := range r.Kinds {
			ix.runtime[gk] = r.Trigger
		}
	}
	for _, e := range cat.Entries {
		for _, r := range e.Runtime {
			ix.byKind[GroupKind(r.Trigger)] = nil
		}
	}
	// Crossplane's package kinds and OLM's Subscription install CRDs at
	// runtime, whatever the catalog holds (installerKinds).
	for _, gk := range installerKinds {
		ix.byKind[gk] = nil
	}
	for _, c := range cfg.ChartCRDs {
		for _, gk := range c.Kinds {
			ix.charts[gk] = append(ix.charts[gk], c.HelmRelease)
		}
	}
	for _, k := range cfg.KustomizationCRDs {
		id := tiers.ID{Kind: render.KindKustomization, Namespace: k.Kustomization.Namespace, Name: k.Kustomization.Name}
		for _, gk := range k.Kinds {
			ix.external[gk] = append(ix.external[gk], id)
		}
	}
	for id := range res.Rendered {
		ix.order = append(ix.order, id)
	}
	slices.SortFunc(ix.order, compareIDs)
	for _, id := range ix.order {
		kinds := make([]objectKind, len(res.Rendered[id]))
		for i, m := range res.Rendered[id] {
			kinds[i] = ix.add(id, m)
		}
		ix.kinds[id] = kinds
		ix.addRemote(id)
	}
	ix.resolveCharts()
	ix.addUnrendered()
	ix.boot = ix.bootstrapKinds(boot)
	ix.postBuildBy = ix.postBuildInjector(boot)
	ix.operatorBootstrap() // a FluxInstance the render syncs from (operator.go)
	ix.gates = ix.crdGates()
	return ix
}

// add indexes one rendered object of Kustomization ks, and returns its
// kind and stage.
func (ix *index) add(ks tiers.ID, m render.Manifest) objectKind {
	gk := groupKindOf(m.Object)
	stage := applyStage(m.Object, ix.custom)
	switch gk {
	case GroupKind{Group: crdGroup, Kind: crdKind}, GroupKind{Group: hrGroup, Kind: hrKind},
		GroupKind{Group: "source.toolkit.fluxcd.io", Kind: "OCIRepository"},
		GroupKind{Group: "source.toolkit.fluxcd.io", Kind: "GitRepository"},
		GroupKind{Group: "source.toolkit.fluxcd.io", Kind: "HelmChart"}, xrdKind:
	default:
		if _, trigger := ix.byKind[gk]; !trigger {
			return objectKind{gk: gk, stage: stage}
		}
	}
	p := placed{ks: ks, obj: ix.objectOf(m.Object), file: m.File, line: m.Line, cluster: ix.cluster[ks], stage: stage}
	switch gk {
	case GroupKind{Group: crdGroup, Kind: crdKind}:
		group, _, _ := unstructured.NestedString(m.Object.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(m.Object.Object, "spec", "names", "kind")
		defined := GroupKind{Group: group, Kind: kind}
		ix.crds[defined] = append(ix.crds[defined], p)
	case GroupKind{Group: hrGroup, Kind: hrKind}:
		if c := targetCluster(m.Object); c != "" {
			p.cluster = c
		}
		p.release = releaseOf(m.Object)
		nn := NamespacedName{Namespace: p.obj.Namespace, Name: p.obj.Name}
		ix.releases[nn] = append(ix.releases[nn], p)
	case GroupKind{Group: "source.toolkit.fluxcd.io", Kind: "OCIRepository"}:
		url, _, _ := unstructured.NestedString(m.Object.Object, "spec", "url")
		ix.sources["OCIRepository/"+p.obj.Namespace+"/"+p.obj.Name] = url
	case GroupKind{Group: "source.toolkit.fluxcd.io", Kind: "GitRepository"}:
		url, _, _ := unstructured.NestedString(m.Object.Object, "spec", "url")
		ix.sources["GitRepository/"+p.obj.Namespace+"/"+p.obj.Name] = url
		ignore, _, _ := unstructured.NestedString(m.Object.Object, "spec", "ignore")
		ix.includes["GitRepository/"+p.obj.Namespace+"/"+p.obj.Name] = includedPaths(ignore)
	case GroupKind{Group: "source.toolkit.fluxcd.io", Kind: "HelmChart"}:
		chart, _, _ := unstructured.NestedString(m.Object.Object, "spec", "chart")
		ix.sources["HelmChart/"+p.obj.Namespace+"/"+p.obj.Name] = chart
	case xrdKind:
		for _, defined := range xrdKinds(m.Object) {
			ix.xrds[defined] = append(ix.xrds[defined], p)
		}
	case providerKind:
		p.pkg, _, _ = unstructured.NestedString(m.Object.Object, "spec", "package")
	}
	if _, ok := ix.byKind[gk]; ok {
		ix.byKind[gk] = append(ix.byKind[gk], p)
	}
	return objectKind{gk: gk, stage: stage}
}

// addRemote indexes the remote resources ks's build left out that the
// catalog knows ("file: remote resource URL", render.Result.Remote).
func (ix *index) addRemote(ks tiers.ID) {
	for _, what := range ix.res.Remote[ks] {
		file, url, ok := remoteResource(what)
		if !ok {
			continue
		}
		if e := ix.cat.Manifest(url); e != nil {
			ix.remote = append(ix.remote, remoteManifest{ks: ks, file: file, url: url, entry: e})
		}
	}
}

// addUnrendered looks at the Kustomizations the checkout does not render
// (they build from another source): one whose source is a repository the
// catalog knows, at a path that holds CRDs (spec.path, or a path its
// GitRepository's ignore brings back: the "CRDs from the chart's own
// repository" layout), applies those CRDs, as a remote resource would. The
// others are opaque.
func (ix *index) addUnrendered() {
	declared := map[tiers.ID]bool{}
	for _, k := range ix.cfg.KustomizationCRDs {
		declared[tiers.ID{Kind: render.KindKustomization, Namespace: k.Kustomization.Namespace, Name: k.Kustomization.Name}] = true
	}
	for _, o := range ix.res.Objects {
		if _, rendered := ix.res.Rendered[o.ID]; rendered || o.ID.Kind != render.KindKustomization {
			continue
		}
		def, ok := ix.res.Definitions[o.ID]
		known := declared[o.ID]
		if ok {
			for _, u := range ix.unrenderedURLs(def.Object) {
				if e := ix.cat.Manifest(u); e != nil {
					ix.remote = append(ix.remote, remoteManifest{ks: o.ID, file: def.File, url: u, entry: e, source: true})
					known = true
					break
				}
			}
		}
		if !known {
			ix.opaque = append(ix.opaque, o.ID)
		}
	}
}

// unrenderedURLs are the URLs of what an unrendered Kustomization applies:
// its GitRepository's URL joined with spec.path and with each path the
// repository's ignore brings back.
func (ix *index) unrenderedURLs(def *unstructured.Unstructured) []string {
	kind, _, _ := unstructured.NestedString(def.Object, "spec", "sourceRef", "kind")
	name, _, _ := unstructured.NestedString(def.Object, "spec", "sourceRef", "name")
	ns, _, _ := unstructured.NestedString(def.Object, "spec", "sourceRef", "namespace")
	if ns == "" {
		ns = def.GetNamespace()
	}
	key := kind + "/" + ns + "/" + name
	base := ix.sources[key]
	if base == "" || kind == "HelmChart" {
		return nil
	}
	base = strings.TrimSuffix(base, "/")
	var out []string
	if p, _, _ := unstructured.NestedString(def.Object, "spec", "path"); strings.Trim(p, "./") != "" {
		out = append(out, base+"/"+strings.TrimPrefix(path.Clean("/"+p), "/"))
	} else {
		out = append(out, base)
	}
	for _, inc := range ix.includes[key] {
		out = append(out, base+"/"+strings.TrimPrefix(inc, "/"))
	}
	return out
}

// includedPaths are the paths a GitRepository's ignore (gitignore syntax)
// brings back with "!": "!/charts/x/crds" is "/charts/x/crds".
func includedPaths(ignore string) []string {
	var out []string
	for _, line := range strings.Split(ignore, "\n") {
		line = strings.TrimSpace(line)
		if inc, ok := strings.CutPrefix(line, "!"); ok && strings.Trim(inc, "/*") != "" {
			out = append(out, strings.TrimSuffix(inc, "/"))
		}
	}
	return out
}

// remoteResource splits render's "file: remote resource URL"; a remote
// file of a generator or a patch cannot hold a CRD, so it is not one.
func remoteResource(what string) (file, url string, ok bool) {
	file, rest, found := cutLast(what, ": remote resource ")
	if !found {
		return "", "", false
	}
	return file, rest, true
}

func cutLast(s, sep string) (string, string, bool) {
	for i := len(s) - len(sep); i >= 0; i-- {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}

// releaseOf reads what the audit needs from a HelmRelease.
func releaseOf(u *unstructured.Unstructured) *releaseInfo {
	r := &releaseInfo{}
	r.chart, _, _ = unstructured.NestedString(u.Object, "spec", "chart", "spec", "chart")
	if name, _, _ := unstructured.NestedString(u.Object, "spec", "chartRef", "name"); name != "" && r.chart == "" {
		ns, _, _ := unstructured.NestedString(u.Object, "spec", "chartRef", "namespace")
		if ns == "" {
			ns = u.GetNamespace()
		}
		r.refKind, _, _ = unstructured.NestedString(u.Object, "spec", "chartRef", "kind")
		r.chartRef = &NamespacedName{Namespace: ns, Name: name}
	}
	if v, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "values"); ok {
		r.values, _ = v.(map[string]any)
	}
	if vf, _, _ := nestedSlice(u.Object, "spec", "valuesFrom"); len(vf) > 0 {
		r.valuesFrom = true
	}
	policy, _, _ := unstructured.NestedString(u.Object, "spec", "install", "crds")
	r.skipCRDs = policy == "Skip"
	r.suspended, _, _ = unstructured.NestedBool(u.Object, "spec", "suspend")
	r.noTakeOwnership, _, _ = unstructured.NestedBool(u.Object, "spec", "install", "disableTakeOwnership")
	return r
}

// resolveCharts gives each HelmRelease with a chartRef the chart of the
// OCIRepository or HelmChart it names, wherever that is rendered.
func (ix *index) resolveCharts() {
	for _, ps := range ix.releases {
		for _, p := range ps {
			if r := p.release; r.chartRef != nil {
				kind := r.refKind
				if kind == "" {
					kind = "OCIRepository"
				}
				r.chart = ix.sources[kind+"/"+r.chartRef.Namespace+"/"+r.chartRef.Name]
			}
		}
	}
}

// entryOf is the catalog entry of a HelmRelease's chart, or nil.
func (ix *index) entryOf(p placed) *catalog.Entry {
	if p.release == nil || p.release.chart == "" {
		return nil
	}
	return ix.cat.Chart(p.release.chart)
}

// targetCluster names the cluster a Flux object applies to: "" for the one
// it lives in, else the Secret or ConfigMap its spec.kubeConfig refers to,
// which Flux reads from the object's own namespace, named as tiers names
// it (flux.Object.TargetCluster): namespace/name for the Secret,
// ConfigMap/namespace/name for the workload-identity form.
func targetCluster(u *unstructured.Unstructured) string {
	if name, _, _ := unstructured.NestedString(u.Object, "spec", "kubeConfig", "secretRef", "name"); name != "" {
		return u.GetNamespace() + "/" + name
	}
	if name, _, _ := unstructured.NestedString(u.Object, "spec", "kubeConfig", "configMapRef", "name"); name != "" {
		return "ConfigMap/" + u.GetNamespace() + "/" + name
	}
	return ""
}

// LocalCluster names, in Report.Clusters, the cluster Flux runs in (the
// hub of a hub-and-spoke fleet): the one an object without
// spec.kubeConfig applies to. No other name can be it: the others hold a
// slash.
const LocalCluster = "local"

// clusterName is the name of a cluster key in a report: LocalCluster for
// "".
func clusterName(cluster string) string {
	if cluster == "" {
		return LocalCluster
	}
	return cluster
}

// clusters names the clusters the audited objects land in, LocalCluster
// first, then sorted: each audited Kustomization's, and each HelmRelease's
// spec.kubeConfig target, which its chart is installed into.
func (ix *index) clusters() []string {
	seen := map[string]bool{}
	for _, ks := range ix.order {
		seen[ix.cluster[ks]] = true
	}
	for _, ps := range ix.releases {
		for _, p := range ps {
			seen[p.cluster] = true
		}
	}
	out := make([]string, 0, len(seen))
	for c := range seen {
		if c != "" {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	if seen[""] {
		out = append([]string{LocalCluster}, out...)
	}
	return out
}

// sameCluster keeps the placements that land in cluster.
func sameCluster(ps []placed, cluster string) []placed {
	var out []placed
	for _, p := range ps {
		if p.cluster == cluster {
			out = append(out, p)
		}
	}
	return out
}

// groupKindOf returns the group and kind of u.
func groupKindOf(u *unstructured.Unstructured) GroupKind {
	return GroupKind{Group: groupOf(u.GetAPIVersion()), Kind: u.GetKind()}
}

// groupOf returns the group of an apiVersion ("" for v1).
func groupOf(apiVersion string) string {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	return gv.Group
}

// nestedSlice is unstructured.NestedSlice, without its deep copy.
func nestedSlice(obj map[string]any, fields ...string) ([]any, bool, error) {
	v, found, err := unstructured.NestedFieldNoCopy(obj, fields...)
	if !found || err != nil {
		return nil, found, err
	}
	s, ok := v.([]any)
	if !ok {
		return nil, true, fmt.Errorf("%v accessor error: %v is of the type %T, expected []any", fields, v, v)
	}
	return s, true, nil
}

// objectOf names u.
func objectOf(u *unstructured.Unstructured) Object {
	return Object{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}
}

// compareIDs is the three-way form of tiers.ID.Less.
func compareIDs(a, b tiers.ID) int {
	switch {
	case a == b:
		return 0
	case a.Less(b):
		return -1
	default:
		return 1
	}
}
