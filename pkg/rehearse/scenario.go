package rehearse

import (
	"time"

	"github.com/kubestandup/standup/pkg/audit"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

// FromAudit builds the scenario of a rendered repository and its audit:
// every Kustomization and HelmRelease with its dependencies, the
// Kustomization that applies it, what it applies and waits for, its retry
// interval, and, from the audit's origins model (Report.Kinds), the kinds
// whose CRD comes only from another node: applied by a Kustomization
// (crd-ancestor, crd-not-ancestor, kustomization), installed by a chart
// (the HelmRelease the provider applies, Ready), or created by an operator
// (runtime: once the trigger's Kustomization has applied). A kind that
// exists from the start (built in, Flux's, the bootstrap's, the
// platform's), that the same pass applies first, or whose origin is
// unknown needs nothing: the rehearsal assumes it there, as audit reports
// it.
func FromAudit(res *render.Result, rep *audit.Report) Scenario {
	var s Scenario
	index := map[tiers.ID]int{}
	for _, o := range res.Objects {
		if o.ID.Kind != KindKustomization && o.ID.Kind != KindHelmRelease {
			continue
		}
		n := Node{ID: o.ID, AppliedBy: o.AppliedBy, Waits: o.Wait || o.HasHealthChecks, Objects: len(res.Rendered[o.ID])}
		for _, d := range o.DependsOn {
			n.DependsOn = append(n.DependsOn, d.ID)
		}
		if def, ok := res.Definitions[o.ID]; ok {
			n.Retry = retryOf(def.Object.Object)
		}
		index[o.ID] = len(s.Nodes)
		s.Nodes = append(s.Nodes, n)
	}
	// The HelmReleases each Kustomization applies, for the chart origin.
	releases := map[tiers.ID][]tiers.ID{}
	for _, n := range s.Nodes {
		if n.ID.Kind == KindHelmRelease && n.AppliedBy != nil {
			releases[*n.AppliedBy] = append(releases[*n.AppliedBy], n.ID)
		}
	}
	for _, u := range rep.Kinds {
		i, ok := index[u.Kustomization]
		if !ok || u.Provider == nil {
			continue
		}
		kind := u.Kind
		if u.Group != "" {
			kind += "." + u.Group
		}
		switch u.Origin {
		case audit.OriginAncestor, audit.OriginUnordered, audit.OriginKustomization:
			s.Nodes[i].Needs = append(s.Nodes[i].Needs, Need{Kind: kind, When: Applied, Provider: *u.Provider})
		case audit.OriginRuntime:
			s.Nodes[i].Needs = append(s.Nodes[i].Needs, Need{Kind: kind, When: Runtime, Provider: *u.Provider})
		case audit.OriginChart:
			// The chart's CRD exists once a HelmRelease the provider
			// applies is installed; with several, the one installed
			// first makes it (the audit does not say which).
			for _, hr := range releases[*u.Provider] {
				s.Nodes[i].Needs = append(s.Nodes[i].Needs, Need{Kind: kind, When: Ready, Provider: hr})
				break
			}
		}
	}
	return s
}

// retryOf is spec.retryInterval, else spec.interval (kustomize-controller's
// GetRetryInterval); zero when neither parses.
func retryOf(obj map[string]any) time.Duration {
	spec, _ := obj["spec"].(map[string]any)
	for _, f := range []string{"retryInterval", "interval"} {
		if s, ok := spec[f].(string); ok {
			if d, err := time.ParseDuration(s); err == nil && d > 0 {
				return d
			}
		}
	}
	return 0
}
