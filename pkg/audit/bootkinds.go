package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubestandup/standup/pkg/catalog"
)

// BootstrapUse is one thing installed before Flux starts, as the audit
// understood it: a helmfile release, a CRD file, a remote manifest, a
// platform, or standup.yaml's bootstrapCRDs.
type BootstrapUse struct {
	// File is where the repository says so, relative to its root
	// (standup.yaml for a declaration; empty for a platform).
	File string `json:"file,omitempty"`
	// What names it: "helmfile release o11y/kube-prometheus-stack",
	// "CRD", "manifest URL", "platform Talos", "bootstrapCRDs".
	What string `json:"what"`
	// Catalog is the catalog entry that says which CRDs it installs; empty
	// when the file says so itself, or when the catalog does not know it.
	Catalog string `json:"catalog,omitempty"`
	// Groups and Kinds are what it installs; both empty when unknown.
	Groups []string    `json:"groups,omitempty"`
	Kinds  []GroupKind `json:"kinds,omitempty"`
	// Unrecognised marks a manifest URL a bootstrap file applies that
	// neither the catalog nor its file name explains: what it installs is
	// unknown, and standup.yaml's bootstrapCRDs can say.
	Unrecognised bool `json:"unrecognised,omitempty"`
	// cluster is where it installs them: "" for the cluster Flux runs in
	// (a bootstrap file), a HelmRelease's target for a CNI; everywhere for
	// standup.yaml's declaration and a platform.
	cluster    string
	anyCluster bool
}

// bootKinds says which kinds exist before Flux starts.
type bootKinds struct {
	uses []BootstrapUse
	// groups and kinds map to the indexes of the uses that install them.
	groups map[string][]int
	kinds  map[GroupKind][]int
	// declared marks the uses from standup.yaml, which override the rest.
	declaredGroups map[string]bool
	declaredKinds  map[GroupKind]bool
}

// lookup returns how gk is known installed before Flux in cluster, if it is.
func (b *bootKinds) lookup(gk GroupKind, cluster string) (BootstrapUse, bool) {
	for _, i := range append(slices.Clone(b.kinds[gk]), b.groups[gk.Group]...) {
		if u := b.uses[i]; u.anyCluster || u.cluster == cluster {
			return u, true
		}
	}
	return BootstrapUse{}, false
}

// evidence words a bootstrap use for a message: where it is said.
func (u BootstrapUse) evidence() string {
	var b strings.Builder
	if u.File != "" {
		b.WriteString(u.File + ": ")
	}
	b.WriteString(u.What)
	if u.Catalog != "" {
		fmt.Fprintf(&b, " (catalog: %s)", u.Catalog)
	}
	return b.String()
}

func (b *bootKinds) add(u BootstrapUse) {
	i := len(b.uses)
	b.uses = append(b.uses, u)
	for _, g := range u.Groups {
		b.groups[g] = append(b.groups[g], i)
	}
	for _, gk := range u.Kinds {
		b.kinds[gk] = append(b.kinds[gk], i)
	}
}

// bootstrapKinds resolves what is installed before Flux: standup.yaml's
// bootstrapCRDs first (they override), then boot's releases (through the
// catalog, the chart found from the repository's HelmRelease of the same
// name when a template computes it), CRDs and manifests, then the
// catalog's platforms.
func (ix *index) bootstrapKinds(boot *Bootstrap) *bootKinds {
	b := &bootKinds{groups: map[string][]int{}, kinds: map[GroupKind][]int{}, declaredGroups: map[string]bool{}, declaredKinds: map[GroupKind]bool{}}
	if d := ix.cfg.BootstrapCRDs; d != nil {
		b.add(BootstrapUse{File: configFile, What: "bootstrapCRDs", Groups: d.Groups, Kinds: d.Kinds, anyCluster: true})
		for _, g := range d.Groups {
			b.declaredGroups[g] = true
		}
		for _, gk := range d.Kinds {
			b.declaredKinds[gk] = true
		}
	}
	if boot != nil {
		for _, r := range boot.Releases {
			b.add(ix.bootstrapRelease(r))
		}
		rendered := ix.renderedFiles()
		for _, c := range boot.CRDs {
			// A CRD file that a Flux Kustomization also applies is Flux's.
			if !rendered[c.File] {
				b.add(BootstrapUse{File: c.File, What: "CRD " + c.Kind.String(), Kinds: []GroupKind{c.Kind}})
			}
		}
		for _, m := range boot.Manifests {
			if use, ok := ix.bootstrapManifest(m); ok {
				b.add(use)
			}
		}
	}
	for _, nn := range sortedReleases(ix.releases) {
		for _, p := range ix.releases[nn] {
			if e := ix.entryOf(p); e != nil && e.BeforeFlux != "" {
				use := BootstrapUse{File: p.file, What: fmt.Sprintf("HelmRelease %s: %s", nn, e.BeforeFlux), Catalog: e.Name, cluster: p.cluster}
				for _, in := range e.Install {
					use.Groups, use.Kinds = appendKinds(use.Groups, use.Kinds, in.Kinds)
				}
				b.add(use)
			}
		}
	}
	for _, e := range ix.cat.Platforms() {
		use := BootstrapUse{What: "platform " + e.Platform, Catalog: e.Name, anyCluster: true}
		for _, in := range e.Install {
			use.Groups, use.Kinds = appendKinds(use.Groups, use.Kinds, in.Kinds)
		}
		b.add(use)
	}
	return b
}

// fluxInstallURLs are Flux's own install manifests, which a bootstrap
// applies to install Flux: its kinds are Flux's (OriginFlux) whatever the
// bootstrap says.
var fluxInstallURLs = []string{"github.com/fluxcd/flux2/manifests/install", "github.com/fluxcd/flux2/manifests/crds",
	"github.com/fluxcd/flux2/releases/download/"}

// bootstrapManifest resolves one remote manifest of a bootstrap file. A
// URL of one CRD that controller-gen named (<group>_<plural>.yaml) installs
// that CRD, its kind found by kindsOfPlural; else the catalog says what
// the URL installs; Flux's own install manifests install Flux. Any other
// URL the file applies is unrecognised; ok is false for the URLs a file
// only mentions (links, chart repositories, schemas).
func (ix *index) bootstrapManifest(m BootstrapManifest) (BootstrapUse, bool) {
	use := BootstrapUse{File: m.File, What: "manifest " + m.URL}
	if group, plural, ok := kubebuilderCRD(m.URL); ok && m.applied {
		use.What = "CRD " + plural + "." + group + " (manifest " + m.URL + ")"
		use.Kinds = ix.kindsOfPlural(group, plural)
		return use, true
	}
	if e := ix.cat.Manifest(m.URL); e != nil {
		use.Catalog = e.Name
		for _, in := range e.Install {
			use.Groups, use.Kinds = appendKinds(use.Groups, use.Kinds, in.Kinds)
		}
		return use, true
	}
	if !m.applied {
		return BootstrapUse{}, false
	}
	norm := catalog.NormalizeURL(m.URL)
	for _, p := range fluxInstallURLs {
		if strings.HasPrefix(norm, p) {
			use.What = "Flux's install manifest " + m.URL
			return use, true
		}
	}
	use.Unrecognised = true
	return use, true
}

// bootstrapRelease resolves one helmfile release to the CRDs its chart
// installs. The chart is the release's own reference; else, when a template
// computes it, the chart of the repository's HelmRelease of the same
// namespace and name (bootstrap helmfiles read it from there); else the
// release name. The values are the release's inline values, else the
// HelmRelease's; CRDs switched by values count unless the known values
// switch them off.
func (ix *index) bootstrapRelease(r BootstrapRelease) BootstrapUse {
	use := BootstrapUse{File: r.File, What: "helmfile release " + strings.TrimPrefix(r.Namespace+"/"+r.Name, "/")}
	hr := ix.namedRelease(r.Namespace, r.Name)
	var entry *catalog.Entry
	if r.Chart != "" {
		entry = ix.cat.Chart(r.Chart)
	}
	if entry == nil && r.Chart == "" && hr != nil {
		entry = ix.entryOf(*hr)
	}
	if entry == nil && r.Chart == "" {
		entry = ix.cat.Chart(r.Name)
	}
	if entry == nil {
		return use
	}
	use.Catalog = entry.Name
	values, uncertain := r.Values, r.Values == nil
	if values == nil && hr != nil {
		values, uncertain = hr.release.values, hr.release.valuesFrom
	}
	for _, in := range entry.Install {
		if enabled, known := in.Enabled(values); enabled || !known || uncertain {
			use.Groups, use.Kinds = appendKinds(use.Groups, use.Kinds, in.Kinds)
		}
	}
	return use
}

// namedRelease finds the repository's HelmRelease namespace/name (any
// namespace when the helmfile gives none).
func (ix *index) namedRelease(namespace, name string) *placed {
	if ps := ix.releases[NamespacedName{Namespace: namespace, Name: name}]; len(ps) > 0 {
		return &ps[0]
	}
	if namespace != "" {
		return nil
	}
	for _, nn := range sortedReleases(ix.releases) {
		if ps := ix.releases[nn]; nn.Name == name && len(ps) > 0 {
			return &ps[0]
		}
	}
	return nil
}

// renderedFiles is the set of files some Kustomization's build read.
func (ix *index) renderedFiles() map[string]bool {
	out := map[string]bool{}
	for _, ms := range ix.res.Rendered {
		for _, m := range ms {
			out[m.File] = true
		}
	}
	return out
}

func appendKinds(groups []string, kinds []GroupKind, k catalog.Kinds) ([]string, []GroupKind) {
	for _, g := range k.Groups {
		if !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	for _, gk := range k.Kinds {
		if !slices.Contains(kinds, GroupKind(gk)) {
			kinds = append(kinds, GroupKind(gk))
		}
	}
	return groups, kinds
}

// report lists what is installed before Flux for the report, standup.yaml
// and the repository's files; the catalog's platforms are listed only when
// the repository uses one of their kinds (their origin is then platform).
func (b *bootKinds) report() []BootstrapUse {
	out := []BootstrapUse{}
	for _, u := range b.uses {
		if u.File != "" {
			out = append(out, u)
		}
	}
	return out
}
