package audit

import (
	"slices"
	"strings"

	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

// Options tunes the audit.
type Options struct {
	// AllowUnknownKinds makes UNKNOWN_KIND a warning instead of an error.
	AllowUnknownKinds bool
}

// Report is the result of an audit.
type Report struct {
	// Path is the directory audited, relative to the repository root.
	Path string `json:"path"`
	// Kustomizations counts the Kustomizations rendered and audited.
	Kustomizations int `json:"kustomizations"`
	// Objects counts the objects they apply.
	Objects int `json:"objects"`
	// Unrendered counts the Kustomizations of the graph that build from
	// another source: not rendered offline, so not audited.
	Unrendered int `json:"unrendered"`
	// Failed counts the Kustomizations whose build was refused (a file over
	// a limit of bounded input, render.Result.Failed): not audited either.
	Failed int `json:"failed"`
	// Kinds lists every kind each Kustomization applies and its origin,
	// sorted by Kustomization, group and kind.
	Kinds []KindUse `json:"kinds"`
	// Hazards are sorted errors first, then by Kustomization, code and object.
	Hazards []Hazard `json:"hazards"`
	// Notes are render's warnings: where the offline view is incomplete.
	Notes []string `json:"notes"`
}

// Errors counts the hazards of severity error.
func (r *Report) Errors() int { return r.Count(SeverityError) }

// Warnings counts the hazards of severity warning.
func (r *Report) Warnings() int { return r.Count(SeverityWarning) }

// Count counts the hazards of severity s.
func (r *Report) Count(s Severity) int {
	n := 0
	for _, h := range r.Hazards {
		if h.Severity == s {
			n++
		}
	}
	return n
}

// Audit classifies the kind of every object each Kustomization of res
// applies, and reports the hazards it finds, with cfg (nil for none) saying
// which kinds are created at runtime or by charts. It returns an error only
// for a result render.Load never produces (duplicate Kustomizations).
func Audit(res *render.Result, cfg *Config, opts Options) (*Report, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	ix := newIndex(res, cfg)
	hazards, err := ix.graphHazards()
	if err != nil {
		return nil, err
	}
	r := &Report{Path: res.Path, Kustomizations: len(ix.order), Kinds: []KindUse{}, Notes: slices.Clone(res.Warnings)}
	failed := map[tiers.ID]bool{}
	for _, f := range res.Failed {
		failed[f.ID] = true
	}
	r.Failed = len(failed)
	for _, o := range res.Objects {
		if _, rendered := res.Rendered[o.ID]; o.ID.Kind == render.KindKustomization && !rendered && !failed[o.ID] {
			r.Unrendered++
		}
	}
	if r.Notes == nil {
		r.Notes = []string{}
	}
	for _, ks := range ix.order {
		manifests := res.Rendered[ks]
		r.Objects += len(manifests)
		uses, found := ix.auditKinds(ks, manifests, opts)
		r.Kinds = append(r.Kinds, uses...)
		hazards = append(hazards, found...)
		hazards = append(hazards, ix.literalTokens(ks, manifests)...)
	}
	slices.SortFunc(hazards, compareHazards)
	r.Hazards = hazards
	if r.Hazards == nil {
		r.Hazards = []Hazard{}
	}
	return r, nil
}

// auditKinds classifies each kind ks applies, once, and returns the kinds
// and the hazards of their objects.
func (ix *index) auditKinds(ks tiers.ID, manifests []render.Manifest, opts Options) ([]KindUse, []Hazard) {
	verdicts := map[GroupKind]verdict{}
	counts := map[GroupKind]int{}
	var hazards []Hazard
	for _, m := range manifests {
		gk := groupKindOf(m.Object)
		v, seen := verdicts[gk]
		if !seen {
			v = ix.classify(ks, gk)
			verdicts[gk] = v
		}
		counts[gk]++
		if v.code != "" {
			hazards = append(hazards, kindHazard(v, gk, placed{ks: ks, obj: ix.objectOf(m.Object), file: m.File}, opts))
		}
		if isFlux(gk) && m.Object.GetNamespace() == "" {
			hazards = append(hazards, namespaceHazard(placed{ks: ks, obj: ix.objectOf(m.Object), file: m.File}))
		}
	}
	uses := make([]KindUse, 0, len(verdicts))
	for gk, v := range verdicts {
		use := KindUse{Kustomization: ks, Group: gk.Group, Kind: gk.Kind, Origin: v.origin, Objects: counts[gk]}
		if v.provider != nil {
			provider := v.provider.ks
			use.Provider = &provider
		}
		uses = append(uses, use)
	}
	slices.SortFunc(uses, func(a, b KindUse) int {
		if c := strings.Compare(a.Group, b.Group); c != 0 {
			return c
		}
		return strings.Compare(a.Kind, b.Kind)
	})
	return uses, hazards
}
