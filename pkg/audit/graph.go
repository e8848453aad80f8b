package audit

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// ancestry answers "is b Ready before a is reconciled?" (readyBefore). It walks
// dependsOn itself rather than asking a *tiers.Graph, because tiers.Build
// returns no graph when there is a cycle, and the audit must still check the
// edges of a graph with one. Each node's ancestors are a bit set, computed
// once, on first use.
type ancestry struct {
	index map[tiers.ID]int
	deps  [][]int
	memo  []bitset
	// appliedBy and wait say which Kustomization applies a node, and
	// whether a Kustomization waits for what it applies (readyBefore).
	appliedBy []int
	wait      []bool
}

// bitset is a set of node numbers.
type bitset []uint64

func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b bitset) add(i int)      { b[i/64] |= 1 << (i % 64) }

func newAncestry(objs []flux.Object) *ancestry {
	a := &ancestry{index: make(map[tiers.ID]int, len(objs)), deps: make([][]int, len(objs)), memo: make([]bitset, len(objs)),
		appliedBy: make([]int, len(objs)), wait: make([]bool, len(objs))}
	for i, o := range objs {
		a.index[o.ID] = i
		a.wait[i] = o.Wait
	}
	for i, o := range objs {
		a.appliedBy[i] = -1
		if o.AppliedBy != nil {
			if j, ok := a.index[*o.AppliedBy]; ok {
				a.appliedBy[i] = j
			}
		}
		for _, d := range o.DependsOn {
			if j, ok := a.index[d.ID]; ok {
				a.deps[i] = append(a.deps[i], j)
			}
		}
	}
	return a
}

// reaches reports whether node v depends on node w, directly or transitively.
func (a *ancestry) reaches(v, w int) bool {
	if a.memo[v] == nil {
		a.memo[v] = a.walk(v)
	}
	return a.memo[v].has(w)
}

// readyBefore reports whether other is Ready before id is reconciled: other
// is an ancestor of id, or it is applied by a Kustomization with wait: true
// that is (kstatus reads a Kustomization's Ready condition, so the parent is
// not Ready until other is), and so on up the chain of appliers.
func (a *ancestry) readyBefore(id, other tiers.ID) bool {
	w, ok := a.index[other]
	if !ok {
		return false
	}
	v, ok := a.index[id]
	if !ok {
		return false
	}
	for range len(a.deps) { // a chain of appliers is no longer than the graph
		if a.reaches(v, w) {
			return true
		}
		parent := a.appliedBy[w]
		if parent < 0 || !a.wait[parent] {
			return false
		}
		w = parent
	}
	return false
}

// walk returns the nodes reachable from v by dependsOn edges.
func (a *ancestry) walk(v int) bitset {
	set := make(bitset, (len(a.deps)+63)/64)
	queue := []int{v}
	for head := 0; head < len(queue); head++ {
		for _, d := range a.deps[queue[head]] {
			if !set.has(d) {
				set.add(d)
				queue = append(queue, d)
			}
		}
	}
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
	if len(ix.res.Failed) > 0 {
		// What a Kustomization that failed alone applies is unknown: the
		// dependency may well be there, once that build is fixed.
		failed := make([]string, len(ix.res.Failed))
		for i, f := range ix.res.Failed {
			failed[i] = f.ID.String()
		}
		h := ix.nodeHazard(CodeDanglingDependency, m.Dependent,
			fmt.Sprintf("%s; it may be among what %s would apply, which could not be rendered", m, strings.Join(failed, ", ")),
			fmt.Sprintf("fix the build of %s first; if %s is still missing, add it to the repository or remove the dependsOn entry", strings.Join(failed, ", "), m.Missing))
		h.Severity = SeverityWarning
		return h
	}
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
		h.File, h.Line = def.File, def.Line
	}
	return h
}
