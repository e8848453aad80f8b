package audit

import (
	"errors"
	"fmt"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// ancestry answers "does a depend on b, directly or transitively?". It walks
// dependsOn itself rather than asking a *tiers.Graph, because tiers.Build
// returns no graph when there is a cycle, and the audit must still check the
// edges of a graph with one.
type ancestry struct {
	deps map[tiers.ID][]tiers.ID
	memo map[tiers.ID]map[tiers.ID]bool
}

func newAncestry(objs []flux.Object) *ancestry {
	a := &ancestry{deps: make(map[tiers.ID][]tiers.ID, len(objs)), memo: map[tiers.ID]map[tiers.ID]bool{}}
	for _, o := range objs {
		for _, d := range o.DependsOn {
			a.deps[o.ID] = append(a.deps[o.ID], d.ID)
		}
	}
	return a
}

// of returns the set of id's ancestors, computed once per id.
func (a *ancestry) of(id tiers.ID) map[tiers.ID]bool {
	if set, ok := a.memo[id]; ok {
		return set
	}
	set := map[tiers.ID]bool{}
	queue := []tiers.ID{id}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, d := range a.deps[v] {
			if !set[d] {
				set[d] = true
				queue = append(queue, d)
			}
		}
	}
	a.memo[id] = set
	return set
}

// graphHazards turns the errors of tiers.Build into hazards: one CYCLE per
// cycle, one DANGLING_DEPENDENCY per missing dependency. Any other error
// (a duplicate node, which render never produces) is returned.
func (ix *index) graphHazards() ([]Hazard, error) {
	nodes := make([]tiers.Node, len(ix.res.Objects))
	for i, o := range ix.res.Objects {
		nodes[i] = o.Node
	}
	g, err := tiers.Build(nodes, tiers.Options{AllowMissing: true})
	var hazards []Hazard
	if err != nil {
		var cycles *tiers.CycleError
		if !errors.As(err, &cycles) {
			return nil, fmt.Errorf("dependency graph: %w", err)
		}
		for _, c := range cycles.Cycles {
			hazards = append(hazards, ix.nodeHazard(CodeCycle, c[0],
				"circular dependency: "+c.String()+"; no Kustomization of the cycle ever becomes ready",
				"remove one dependsOn edge of the cycle"))
		}
		// Without a graph, find the dangling edges by hand.
		seen := map[tiers.MissingDependency]bool{}
		for _, o := range ix.res.Objects {
			for _, d := range o.DependsOn {
				m := tiers.MissingDependency{Dependent: o.ID, Missing: d.ID}
				if _, ok := ix.objs[d.ID]; !ok && !seen[m] {
					seen[m] = true
					hazards = append(hazards, ix.danglingHazard(m))
				}
			}
		}
		return hazards, nil
	}
	for _, m := range g.Missing() {
		hazards = append(hazards, ix.danglingHazard(m))
	}
	return hazards, nil
}

func (ix *index) danglingHazard(m tiers.MissingDependency) Hazard {
	return ix.nodeHazard(CodeDanglingDependency, m.Dependent,
		m.String()+"; it never becomes ready",
		fmt.Sprintf("add %s to the repository, or remove the dependsOn entry", m.Missing))
}

// nodeHazard is an error about a Kustomization itself.
func (ix *index) nodeHazard(code Code, id tiers.ID, msg, fix string) Hazard {
	h := Hazard{
		Code: code, Severity: SeverityError, Kustomization: id,
		Object:  Object{Kind: id.Kind, Namespace: id.Namespace, Name: id.Name},
		Message: msg, Fix: fix,
	}
	if def, ok := ix.res.Definitions[id]; ok {
		h.Object = objectOf(def.Object)
		h.File = def.File
	}
	return h
}
