package fix

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/kubestandup/standup/pkg/audit"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

// keepSafe plays edits on res in memory and audits it again: when the
// audit finds no error it did not find before (a cycle, a deadlock an edge
// makes: a provider that now waits for the Kustomization needing its
// kind), every edit is kept. Otherwise they are added one at a time, in
// order, each kept only if the audit with it and those kept before finds no
// new error. An edge two findings ask for in opposite directions is kept
// one way. Without an audit function every edit is kept.
func keepSafe(ctx context.Context, res *render.Result, report *audit.Report, edits []Edit, reaudit func(*render.Result) (*audit.Report, error)) ([]Edit, []Skipped, error) {
	if reaudit == nil || len(edits) == 0 {
		return edits, nil, nil
	}
	before := errorKeys(report)
	worse := func(set []Edit) (*audit.Hazard, error) {
		r, err := reaudit(played(res, set))
		if err != nil {
			return nil, err
		}
		for _, h := range r.Hazards {
			if h.Severity == audit.SeverityError && !before[errorKey(h)] {
				return &h, nil
			}
		}
		return nil, nil
	}
	h, err := worse(edits)
	if err != nil || h == nil {
		return edits, nil, err
	}
	var kept []Edit
	var rejected []Skipped
	for _, e := range edits {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		h, err := worse(append(slices.Clone(kept), e))
		if err != nil {
			return nil, nil, err
		}
		if h == nil {
			kept = append(kept, e)
			continue
		}
		rejected = append(rejected, Skipped{Edit: e, File: res.Definitions[e.Kustomization].File,
			Reason: fmt.Sprintf("with it the audit finds %s %s at %s, an error it does not find now: the objects need moving instead (%s)",
				h.Code, h.Object.Kind, h.Kustomization, h.Fix)})
	}
	return kept, rejected, nil
}

// errorKeys are the error places of a report.
func errorKeys(r *audit.Report) map[string]bool {
	keys := map[string]bool{}
	for _, h := range r.Hazards {
		if h.Severity == audit.SeverityError {
			keys[errorKey(h)] = true
		}
	}
	return keys
}

// errorKey names a place by its code, Kustomization and object: the same
// place keeps its key when an edit changes its message.
func errorKey(h audit.Hazard) string {
	return string(h.Code) + " " + h.Kustomization.String() + " " + h.Object.APIVersion + " " + h.Object.String()
}

// played is res as it would render with edits made: the Kustomizations'
// dependsOn, wait and healthChecks changed, in copies; res is unchanged.
func played(res *render.Result, edits []Edit) *render.Result {
	out := *res
	out.Objects = slices.Clone(res.Objects)
	out.Definitions = maps.Clone(res.Definitions)
	index := make(map[tiers.ID]int, len(out.Objects))
	for i, o := range out.Objects {
		index[o.ID] = i
	}
	copied := map[tiers.ID]bool{}
	for _, e := range edits {
		id := e.Kustomization
		def, ok := out.Definitions[id]
		if !ok {
			continue
		}
		if !copied[id] {
			def.Object = def.Object.DeepCopy()
			copied[id] = true
		}
		spec, _ := def.Object.Object["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
			def.Object.Object["spec"] = spec
		}
		i, node := index[id]
		switch c := e.Change; {
		case c.DependsOn != nil:
			spec["dependsOn"] = append(asList(spec["dependsOn"]), map[string]any{"name": c.DependsOn.Name, "namespace": c.DependsOn.Namespace})
			if node {
				deps := slices.Clone(out.Objects[i].DependsOn)
				out.Objects[i].DependsOn = append(deps, tiers.Dependency{ID: tiers.ID{Kind: render.KindKustomization, Namespace: c.DependsOn.Namespace, Name: c.DependsOn.Name}})
			}
		case c.HealthCheck != nil:
			hc := map[string]any{"apiVersion": c.HealthCheck.APIVersion, "kind": c.HealthCheck.Kind, "name": c.HealthCheck.Name}
			if c.HealthCheck.Namespace != "" {
				hc["namespace"] = c.HealthCheck.Namespace
			}
			spec["healthChecks"] = append(asList(spec["healthChecks"]), hc)
			if node {
				out.Objects[i].HasHealthChecks = true
			}
		case c.Wait:
			spec["wait"] = true
			if node {
				out.Objects[i].Wait = true
			}
		}
		out.Definitions[id] = def
	}
	return &out
}

func asList(v any) []any {
	l, _ := v.([]any)
	return slices.Clone(l)
}
