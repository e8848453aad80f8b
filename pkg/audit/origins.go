package audit

import (
	"fmt"
	"slices"

	"github.com/kubestandup/standup/pkg/catalog"
	"github.com/kubestandup/standup/pkg/tiers"
)

// source says what kind of thing makes a kind's CRD exist.
type source int

const (
	// srcCRD is a CustomResourceDefinition a Kustomization applies.
	srcCRD source = iota
	// srcManifest is a remote resource of a Kustomization's build that the
	// catalog knows holds the CRD (applied in its first stage, like a CRD).
	srcManifest
	// srcKustomization is an unrendered Kustomization standup.yaml declares
	// in kustomizationCRDs.
	srcKustomization
	// srcChart is a HelmRelease whose chart installs the CRD once
	// helm-controller has reconciled it.
	srcChart
	// srcRuntime is a trigger object: an operator creates the CRD once it
	// has reconciled it.
	srcRuntime
)

// origin is one candidate origin of a kind, as seen from one cluster.
type origin struct {
	src source
	// at is the CRD, HelmRelease or trigger object and the Kustomization
	// applying it; for srcManifest and srcKustomization, the Kustomization.
	at placed
	// trigger is the trigger's kind (a HelmRelease for a chart).
	trigger GroupKind
	// entry is the catalog entry the fact comes from; nil when the
	// repository or standup.yaml says it.
	entry *catalog.Entry
	// url is a srcManifest's remote resource, or the source an unrendered
	// Kustomization builds from (fromSource).
	url        string
	fromSource bool
	// declared is set for standup.yaml's facts.
	declared bool
	// via words how a runtime origin's trigger makes the CRD exist, where
	// "once a Kind is reconciled" does not say it (Crossplane); derived
	// names the repository fact it was derived from, for KindUse.
	via, derived string
	// assumed is set for a chart whose values, completed by valuesFrom,
	// may or may not switch its CRDs on.
	assumed bool
}

// secondOrder reports whether the CRD appears only after a controller has
// reconciled the origin (a chart, a trigger), not when it is applied.
func (o origin) secondOrder() bool { return o.src == srcChart || o.src == srcRuntime }

// originKey identifies a kind in one cluster.
type originKey struct {
	gk      GroupKind
	cluster string
}

// originSet is every candidate origin of a kind in one cluster.
type originSet struct {
	candidates []origin
	// declared is set when standup.yaml declares the kind (runtimeCRDs,
	// chartCRDs, kustomizationCRDs): its declarations replace the catalog's.
	declared bool
	// elsewhere is set when candidates exist only in other clusters.
	elsewhere bool
	// absent is the Kustomization kustomizationCRDs names for the kind when
	// none it names is in the graph.
	absent *tiers.ID
	// release is the HelmRelease chartCRDs names (for messages).
	release *NamespacedName
	// disabled is a HelmRelease whose chart could install the kind but
	// whose values switch its CRDs off, and the values that would.
	disabled *placed
	switches []string
}

// origins gathers the candidate origins of gk in cluster: the CRDs the
// repository applies (always facts); then standup.yaml's declarations when
// there are any, else what the catalog knows of the repository's remote
// manifests, HelmReleases and trigger objects.
func (ix *index) origins(gk GroupKind, cluster string) originSet {
	key := originKey{gk: gk, cluster: cluster}
	if set, ok := ix.memo[key]; ok {
		return set
	}
	var set originSet
	anywhere := false
	add := func(o origin) {
		anywhere = true
		if o.at.cluster == cluster {
			set.candidates = append(set.candidates, o)
		}
	}
	for _, p := range ix.crds[gk] {
		add(origin{src: srcCRD, at: p})
	}
	trigger, isRuntime := ix.runtime[gk]
	hrs, isChart := ix.charts[gk]
	kss, isExternal := ix.external[gk]
	set.declared = isRuntime || isChart || isExternal
	ix.crossplaneOrigins(gk, set.declared, add)
	switch {
	case isRuntime:
		for _, p := range ix.byKind[trigger] {
			add(origin{src: srcRuntime, at: p, trigger: trigger, declared: true})
		}
	case isChart:
		release := hrs[0]
		found := false
		for _, nn := range hrs {
			for _, p := range ix.releases[nn] {
				add(origin{src: srcChart, at: p, trigger: GroupKind{Group: hrGroup, Kind: hrKind}, declared: true})
				if p.cluster == cluster && !found {
					release, found = nn, true
				}
			}
		}
		set.release = &release
	case isExternal:
		defined := false
		for _, id := range kss {
			if _, ok := ix.objs[id]; !ok {
				continue
			}
			defined = true
			add(origin{src: srcKustomization, at: placed{ks: id, file: ix.objs[id].File, cluster: ix.cluster[id], stage: stageDefinitions}, declared: true})
		}
		if !defined {
			set.absent = &kss[0]
		}
	default:
		ix.catalogOrigins(gk, add, &set, cluster)
	}
	set.elsewhere = len(set.candidates) == 0 && anywhere
	ix.memo[key] = set
	return set
}

// catalogOrigins adds what the catalog knows: remote manifests of the
// repository's builds, HelmReleases of known charts whose values let the
// chart install its CRDs, and trigger objects of known operators.
func (ix *index) catalogOrigins(gk GroupKind, add func(origin), set *originSet, cluster string) {
	cgk := catalog.GroupKind(gk)
	for _, r := range ix.remote {
		if r.entry.Installs(cgk) != nil {
			add(origin{src: srcManifest, at: placed{ks: r.ks, file: r.file, cluster: ix.cluster[r.ks], stage: stageDefinitions}, entry: r.entry, url: r.url, fromSource: r.source})
		}
	}
	for _, nn := range sortedReleases(ix.releases) {
		for _, p := range ix.releases[nn] {
			e := ix.entryOf(p)
			if e == nil {
				continue
			}
			in := e.Installs(cgk)
			if in == nil {
				continue
			}
			installs, assumed := releaseInstalls(*in, p.release)
			if !installs {
				byValues := !p.release.suspended && !(in.From == catalog.FromCRDs && p.release.skipCRDs)
				if byValues && p.cluster == cluster && set.disabled == nil {
					q := p
					set.disabled, set.switches = &q, in.EnabledBy
				}
				continue
			}
			add(origin{src: srcChart, at: p, trigger: GroupKind{Group: hrGroup, Kind: hrKind}, entry: e, assumed: assumed})
		}
	}
	for i := range ix.cat.Entries {
		e := &ix.cat.Entries[i]
		r := e.Creates(cgk)
		if r == nil || len(e.Packages) > 0 {
			// A package's entry is read by its Provider's spec.package
			// (crossplaneOrigins), not by any object of its trigger kind.
			continue
		}
		for _, p := range ix.byKind[GroupKind(r.Trigger)] {
			add(origin{src: srcRuntime, at: p, trigger: GroupKind(r.Trigger), entry: e})
		}
	}
}

// sortedReleases lists the HelmReleases in a stable order.
func sortedReleases(m map[NamespacedName][]placed) []NamespacedName {
	out := make([]NamespacedName, 0, len(m))
	for nn := range m {
		out = append(out, nn)
	}
	slices.SortFunc(out, compareNamespacedNames)
	return out
}

// releaseInstalls reports whether a HelmRelease installs an install set of
// its chart: the values switch it on (or say nothing, and it is on by
// default), a crds/ directory is not skipped by install.crds: Skip, and the
// release is not suspended.
// assumed is set when only spec.valuesFrom, which the checkout cannot see,
// may switch it on.
func releaseInstalls(in catalog.Install, r *releaseInfo) (installs, assumed bool) {
	if r.suspended || (in.From == catalog.FromCRDs && r.skipCRDs) {
		return false, false
	}
	if enabled, _ := in.Enabled(r.values); enabled {
		return true, false
	}
	return r.valuesFrom, r.valuesFrom
}

// describe words an origin for a message: what makes the CRD exist.
func (o origin) describe(gk GroupKind) string {
	switch o.src {
	case srcCRD:
		return fmt.Sprintf("the CRD of %s is applied by %s (%s)", gk, o.at.ks, fileOrUnknown(o.at.file))
	case srcManifest:
		if o.fromSource {
			return fmt.Sprintf("the CRD of %s is applied by %s (%s), which builds from %s (catalog: %s)", gk, o.at.ks, o.at.file, o.url, o.entry.Name)
		}
		return fmt.Sprintf("the CRD of %s is in %s, a remote resource of %s (%s; catalog: %s)", gk, o.url, o.at.ks, o.at.file, o.entry.Name)
	case srcKustomization:
		return fmt.Sprintf("%s's CRD is applied by %s (%s kustomizationCRDs)", gk, o.at.ks, configFile)
	case srcChart:
		chart := ""
		if o.at.release != nil && o.at.release.chart != "" {
			chart = ", chart " + catalog.ChartName(o.at.release.chart)
		}
		if o.entry != nil {
			chart += ", catalog: " + o.entry.Name
		}
		return fmt.Sprintf("%s's CRD is installed by the chart of HelmRelease %s/%s (%s%s) once helm-controller has installed it",
			gk, o.at.obj.Namespace, o.at.obj.Name, fileOrUnknown(o.at.file), chart)
	}
	via := ""
	if o.entry != nil {
		via = " (catalog: " + o.entry.Name + ")"
	}
	if o.via != "" {
		return fmt.Sprintf("%s's CRD is created at runtime, %s%s", gk, o.via, via)
	}
	return fmt.Sprintf("%s's CRD is created at runtime, once a %s is reconciled%s", gk, o.trigger.Kind, via)
}

// evidence says where an origin fact comes from, for KindUse.
func (o origin) evidence() string {
	switch {
	case o.declared:
		return configFile
	case o.entry != nil:
		return "catalog: " + o.entry.Name
	case o.derived != "":
		return o.derived
	}
	return ""
}
