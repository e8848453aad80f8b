package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubestandup/standup/pkg/catalog"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

// Options tunes the audit.
type Options struct {
	// Strict makes UNKNOWN_KIND an error instead of a notice.
	Strict bool
	// Bootstrap is what the repository installs before Flux starts
	// (DetectBootstrap); nil for nothing.
	Bootstrap *Bootstrap
	// Catalog says what known charts, manifests and operators provide; nil
	// for catalog.Default(), whose error Audit returns.
	Catalog *catalog.Catalog
}

// Report is the result of an audit.
type Report struct {
	// Path is the directory audited, relative to the repository root.
	Path string `json:"path"`
	// RepoRoot is the absolute repository root that files are named from,
	// and GitRoot the root of the git repository holding it
	// (render.Result): SARIF names files from the git root.
	RepoRoot string `json:"-"`
	GitRoot  string `json:"-"`
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
	// Clusters names the clusters the audited objects land in (see
	// index.clusters): LocalCluster, the one Flux runs in, first, then the
	// spec.kubeConfig targets of a hub-and-spoke fleet as namespace/name of
	// their Secret (ConfigMap/namespace/name for workload identity).
	Clusters []string `json:"clusters"`
	// Kinds lists every kind each Kustomization applies and its origin,
	// sorted by Kustomization, group and kind.
	Kinds []KindUse `json:"kinds"`
	// Hazards are every place of every finding, one per object, sorted
	// errors first, then by Kustomization, code and object.
	Hazards []Hazard `json:"hazards"`
	// Findings group Hazards by code and kind: a kind used in 49 places is
	// one finding. Sorted errors first, then by code and kind.
	Findings []Finding `json:"findings"`
	// Bootstrap lists what the repository installs before Flux starts, as
	// the audit understood it.
	Bootstrap []BootstrapUse `json:"bootstrap"`
	// Notes are render's warnings: where the offline view is incomplete.
	Notes []string `json:"notes"`
}

// Errors counts the findings of severity error.
func (r *Report) Errors() int { return r.Count(SeverityError) }

// Warnings counts the findings of severity warning.
func (r *Report) Warnings() int { return r.Count(SeverityWarning) }

// Notices counts the findings of severity notice.
func (r *Report) Notices() int { return r.Count(SeverityNotice) }

// Count counts the findings of severity s.
func (r *Report) Count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// Audit classifies the kind of every object each Kustomization of res
// applies, and reports what it finds, with cfg (nil for none) saying which
// kinds are created at runtime, by charts or before Flux, opts.Bootstrap
// what the repository installs before Flux, and the catalog what known
// charts and operators provide. It returns an error only for a result
// render.Load never produces (duplicate Kustomizations).
func Audit(res *render.Result, cfg *Config, opts Options) (*Report, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	cat := opts.Catalog
	if cat == nil {
		var err error
		if cat, err = catalog.Default(); err != nil {
			return nil, err
		}
	}
	ix := newIndex(res, cfg, opts.Bootstrap, cat)
	hazards, err := ix.graphHazards()
	if err != nil {
		return nil, err
	}
	r := &Report{Path: res.Path, RepoRoot: res.RepoRoot, GitRoot: res.GitRoot, Kustomizations: len(ix.order), Kinds: []KindUse{}, Notes: slices.Clone(res.Warnings), Bootstrap: ix.boot.report()}
	failed := map[tiers.ID]bool{}
	for _, f := range res.Failed {
		failed[f.ID] = true
		hazards = append(hazards, ix.buildFailed(f))
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
	verdicts := ix.classifyAll()
	ix.converge(verdicts)
	for _, ks := range ix.order {
		manifests := res.Rendered[ks]
		r.Objects += len(manifests)
		uses, found := ix.auditKinds(ks, manifests, verdicts[ks], opts)
		r.Kinds = append(r.Kinds, uses...)
		found = append(found, ix.literalTokens(ks, manifests)...)
		if c := ix.cluster[ks]; c != "" {
			// Objects ks applies to another cluster: each place says
			// which, so a spoke's finding names the spoke.
			for i := range found {
				found[i].Cluster = c
			}
		}
		hazards = append(hazards, found...)
	}
	r.Clusters = ix.clusters()
	for i, h := range hazards {
		if def, ok := ix.res.Definitions[h.Kustomization]; ok && h.File == "" {
			// No file records the object (kustomize gave it no origin): the
			// Kustomization applying it is the place to look.
			hazards[i].File, hazards[i].Line = def.File, def.Line
		}
	}
	slices.SortFunc(hazards, compareHazards)
	r.Hazards = hazards
	if r.Hazards == nil {
		r.Hazards = []Hazard{}
	}
	r.Findings = GroupFindings(r.Hazards)
	return r, nil
}

// buildFailed is the finding of one Kustomization whose build failed.
func (ix *index) buildFailed(f render.BuildFailure) Hazard {
	h := ix.nodeHazard(CodeBuildFailed, f.ID, f.Error(),
		fmt.Sprintf("fix the build of %s; the rest of the repository is audited without it", f.ID))
	if f.File != "" {
		h.File, h.Line = f.File, f.Line
	}
	return h
}

// classifyAll classifies each kind each Kustomization applies, once.
func (ix *index) classifyAll() map[tiers.ID]map[GroupKind]*verdict {
	out := make(map[tiers.ID]map[GroupKind]*verdict, len(ix.order))
	for _, ks := range ix.order {
		vs := map[GroupKind]*verdict{}
		for _, k := range ix.kinds[ks] {
			if _, seen := vs[k.gk]; !seen {
				v := ix.classify(ks, k.gk, k.stage)
				vs[k.gk] = &v
			}
		}
		out[ks] = vs
	}
	return out
}

// converge settles the verdicts that depend on the cold start as a whole:
// a kind that only a retry can bring (its origin is not ordered first) is
// a warning if its origin appears without the Kustomization that needs it,
// and a deadlock if the origin waits for that Kustomization:
// SECOND_ORDER_SAME_PASS when the Kustomization itself creates the
// origin's Kustomization in the pass that fails, else ORIGIN_CYCLE. A
// warning whose origin never appears for a reason of its own says so
// (blocked) only when an error that stands holds the origin up, not a
// deadlock downgraded to a warning.
func (ix *index) converge(verdicts map[tiers.ID]map[GroupKind]*verdict) {
	c := ix.convergence(verdicts)
	for _, ks := range ix.order {
		for gk, v := range verdicts[ks] {
			ix.settle(c, ks, originKey{gk: gk, cluster: ix.cluster[ks]}, v)
		}
	}
	for _, ks := range ix.order {
		for gk, v := range verdicts[ks] {
			if v.blocked && !c.standsBlocked(ks, v.stage, originKey{gk: gk, cluster: ix.cluster[ks]}) {
				// The origin is held up only by findings that do not stand
				// as errors (deadlocks downgraded to warnings): this one
				// converges as they do, and says so.
				v.blocked = false
			}
		}
	}
}

// convergence sets up the play of the cold start: which Kustomization
// applies which, what each stage needs and makes exist, what each CRD gate
// waits for.
func (ix *index) convergence(verdicts map[tiers.ID]map[GroupKind]*verdict) *convergence {
	c := newConvergence(ix.res)
	for _, ks := range ix.order {
		for i, m := range ix.res.Rendered[ks] {
			if child, ok := appliedNode(ix.kinds[ks][i].gk, m); ok { // a Kustomization or a ResourceSet (operator.go)
				c.place(child, ks, ix.kinds[ks][i].stage)
			}
		}
		for gk, v := range verdicts[ks] {
			if v.via == nil && !v.set.declared {
				continue // built in, Flux's, before Flux, or unknown: never waited for
			}
			key := originKey{gk: gk, cluster: ix.cluster[ks]}
			c.need(ks, v.stage, key)
			for _, o := range v.set.candidates {
				c.emit(o.at.ks, o.at.stage, key)
			}
			if v.gate != nil {
				c.wait(v.gate.ks, key)
			}
		}
	}
	return c
}

// settle decides, from the play, the severity of the verdict v of kind key
// in ks (converge).
func (ix *index) settle(c *convergence, ks tiers.ID, key originKey, v *verdict) {
	if v.rank == rankUnordered || v.rank == rankEarlierStep {
		converges, through := c.eventually(ks, v.stage, key)
		created := []tiers.ID(nil)
		if !converges && v.rank == rankUnordered {
			created = c.createdInPass(ks, v.via.at.ks, v.stage)
		}
		switch {
		case converges:
		case len(created) > 0:
			// ks itself creates, in the pass that fails, the
			// Kustomization that provides the kind: whatever else holds
			// that one up, ks never gets past its dry-run.
			v.code, v.severity, v.created = CodeSecondOrderSamePass, SeverityError, created
		case through && v.rank == rankUnordered:
			v.code, v.severity = CodeOriginCycle, SeverityError
			v.cycle = c.waitPath(v.via.at.ks, ks, v.stage)
		default:
			v.blocked = true
		}
		if v.code == CodeMissingEdge {
			ix.mutualNeed(c, ks, v)
		}
	}
	if v.gate != nil {
		// The gate turns Ready only once the kind exists: if its origin
		// waits for the gate, neither ever does.
		if converges, through := c.eventually(v.gate.ks, stageReady, key); !converges && through {
			v.code, v.severity = CodeOriginCycle, SeverityError
			v.cycle = c.waitPath(v.via.at.ks, v.gate.ks, stageReady)
		}
	}
	if v.severity != SeverityError || v.via == nil {
		return
	}
	ix.allowOpaque(c, ks, v)
	if v.via.assumed {
		// Only valuesFrom can say whether the chart installs the CRD:
		// audit cannot prove the deadlock.
		v.severity = SeverityWarning
	}
	if v.severity != SeverityError {
		// A deadlock audit cannot prove: what it holds up is not stuck for
		// a reason that stands.
		if v.gate != nil {
			c.soften(v.gate.ks, stageReady, key)
		} else {
			c.soften(ks, v.stage, key)
		}
	}
}

// allowOpaque downgrades a deadlock to a warning when a Kustomization the
// checkout does not render, in the same cluster, can act without ks (or
// without the CRD gate ks waits for): what it applies is unknown, and might
// be the CRD.
func (ix *index) allowOpaque(c *convergence, ks tiers.ID, v *verdict) {
	held, stage := ks, v.stage
	if v.gate != nil {
		held, stage = v.gate.ks, stageReady
	}
	for _, u := range ix.opaque {
		if ix.cluster[u] == ix.cluster[ks] && c.readyWithout(held, stage, u) {
			id := u
			v.opaque, v.severity = &id, SeverityWarning
			return
		}
	}
}

// auditKinds reports the kinds ks applies and the findings of their objects.
func (ix *index) auditKinds(ks tiers.ID, manifests []render.Manifest, verdicts map[GroupKind]*verdict, opts Options) ([]KindUse, []Hazard) {
	counts := map[GroupKind]int{}
	var hazards []Hazard
	for i, m := range manifests {
		gk := ix.kinds[ks][i].gk
		v := verdicts[gk]
		counts[gk]++
		if v.code != "" {
			hazards = append(hazards, ix.kindHazard(*v, gk, placed{ks: ks, obj: ix.objectOf(m.Object), file: m.File, line: m.Line}, opts))
		}
		if isFlux(gk) && m.Object.GetNamespace() == "" {
			hazards = append(hazards, namespaceHazard(placed{ks: ks, obj: ix.objectOf(m.Object), file: m.File, line: m.Line}))
		}
	}
	uses := make([]KindUse, 0, len(verdicts))
	for gk, v := range verdicts {
		use := KindUse{Kustomization: ks, Group: gk.Group, Kind: gk.Kind, Origin: v.origin, Objects: counts[gk], Evidence: v.evidence}
		if v.via != nil {
			provider := v.via.at.ks
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
