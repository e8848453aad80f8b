package audit

import (
	"slices"

	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

// convergence plays a cold start forward, the way kustomize-controller
// and helm-controller would reach it eventually, retries included: a
// Kustomization is reconciled once it exists (its applier has applied it)
// and its dependsOn are Ready; it applies its stages in order, each as far
// as every kind the stage needs exists; a stage's CRDs, remote CRD
// manifests, HelmReleases and trigger objects make their kinds exist
// (charts and operators eventually, which the retries wait out); a
// Kustomization whose every stage is applied turns Ready (wait: true only
// delays that), once every kind its health checks on CRDs wait for exists
// (a CRD gate, gateFor). What never happens in the play is a deadlock.
//
// Kinds whose origin is built in, Flux's, the bootstrap's, the platform's
// or unknown are not needs: an unknown kind is a notice, not a deadlock.
type convergence struct {
	ids   []tiers.ID
	index map[tiers.ID]int
	// deps are the dependsOn of each node; -1 for a dependency that does
	// not exist (it is never Ready).
	deps [][]int
	// parent applies the node, in parentStage; -1 for a root.
	parent      []int
	parentStage []int
	// needs and emits are kind numbers, per node and stage.
	needs [][stageCount + 1][]int
	emits [][stageCount + 1][]int
	// waits are the kinds a node's health checks wait for before it turns
	// Ready, once every stage is applied.
	waits [][]int
	// soft are the needs of findings that do not stand as errors (a
	// deadlock downgraded to a warning: an opaque Kustomization or a
	// chart's valuesFrom may yet bring the kind), per node and stage; at
	// stageReady, its health checks' (waits).
	soft  [][stageReady + 1][]int
	kinds map[originKey]int
	// runs caches run's results by its arguments.
	runs map[runKey]*state
}

// state is the outcome of one play.
type state struct {
	applied [][stageCount + 1]bool
	ready   []bool
	exists  []bool
}

type runKey struct {
	block, blockStage, force int
	relax                    relaxation
}

// relaxation says which needs a play takes as met whether or not their
// kind exists.
type relaxation int

const (
	// relaxNone meets a need only once its kind exists.
	relaxNone relaxation = iota
	// relaxSoft takes the soft needs as met: the play of a cold start in
	// which every finding that is not an error that stands converges.
	relaxSoft
	// relaxAll takes every need, and every health check, as met.
	relaxAll
)

func newConvergence(res *render.Result) *convergence {
	c := &convergence{index: map[tiers.ID]int{}, kinds: map[originKey]int{}, runs: map[runKey]*state{}}
	for _, o := range res.Objects {
		if !isApplier(o.ID.Kind) { // Kustomizations and ResourceSets (operator.go)
			continue
		}
		c.index[o.ID] = len(c.ids)
		c.ids = append(c.ids, o.ID)
	}
	n := len(c.ids)
	c.deps, c.parent, c.parentStage = make([][]int, n), make([]int, n), make([]int, n)
	c.needs, c.emits = make([][stageCount + 1][]int, n), make([][stageCount + 1][]int, n)
	c.waits = make([][]int, n)
	c.soft = make([][stageReady + 1][]int, n)
	for _, o := range res.Objects {
		i, ok := c.index[o.ID]
		if !ok {
			continue
		}
		c.parent[i] = -1
		if o.AppliedBy != nil {
			if j, ok := c.index[*o.AppliedBy]; ok {
				c.parent[i] = j
			}
		}
		for _, d := range o.DependsOn {
			j, ok := c.index[d.ID]
			if !ok {
				j = -1
			}
			c.deps[i] = append(c.deps[i], j)
		}
	}
	return c
}

// kind numbers a kind of one cluster.
func (c *convergence) kind(k originKey) int {
	if i, ok := c.kinds[k]; ok {
		return i
	}
	c.kinds[k] = len(c.kinds)
	return c.kinds[k]
}

// need records that node ks applies, in stage, an object of kind k.
func (c *convergence) need(ks tiers.ID, stage int, k originKey) {
	if i, ok := c.index[ks]; ok {
		c.needs[i][stage] = append(c.needs[i][stage], c.kind(k))
	}
}

// emit records that applying stage of ks makes kind k exist.
func (c *convergence) emit(ks tiers.ID, stage int, k originKey) {
	if i, ok := c.index[ks]; ok {
		c.emits[i][stage] = append(c.emits[i][stage], c.kind(k))
	}
}

// wait records that node ks turns Ready only once kind k exists: a health
// check on k's CRD.
func (c *convergence) wait(ks tiers.ID, k originKey) {
	if i, ok := c.index[ks]; ok {
		c.waits[i] = append(c.waits[i], c.kind(k))
	}
}

// soften records that node ks's need of kind k in stage (at stageReady,
// its wait for k) comes from a finding that does not stand as an error
// (relaxSoft).
func (c *convergence) soften(ks tiers.ID, stage int, k originKey) {
	if i, ok := c.index[ks]; ok {
		c.soft[i][stage] = append(c.soft[i][stage], c.kind(k))
	}
}

// place records that stage of parent applies the Kustomization child.
func (c *convergence) place(child, parent tiers.ID, stage int) {
	if i, ok := c.index[child]; ok && c.parent[i] >= 0 && c.ids[c.parent[i]] == parent {
		c.parentStage[i] = stage
	}
}

// stageReady, as a blockStage, holds a node after its last stage: every
// stage applied, never Ready (its health checks never pass).
const stageReady = stageCount + 1

// run plays the cold start. block, when not -1, is a node that never gets
// past blockStage (its stages from blockStage on are never applied; at
// stageReady, it never turns Ready); force,
// when not -1, is a node Ready from the start with every stage applied.
func (c *convergence) run(block, blockStage, force int) *state {
	return c.play(block, blockStage, force, relaxNone)
}

// play is run, with the needs relax says taken as met: relaxAll plays it
// as if every other finding were fixed, every kind a stage needs taken to
// exist, so that only block, force, the appliers and dependsOn decide what
// turns Ready; relaxSoft as if every finding that does not stand as an
// error converged.
func (c *convergence) play(block, blockStage, force int, relax relaxation) *state {
	key := runKey{block, blockStage, force, relax}
	if s, ok := c.runs[key]; ok {
		return s
	}
	n := len(c.ids)
	s := &state{applied: make([][stageCount + 1]bool, n), ready: make([]bool, n), exists: make([]bool, len(c.kinds))}
	emit := func(i, st int) {
		for _, k := range c.emits[i][st] {
			s.exists[k] = true
		}
	}
	if force >= 0 {
		s.ready[force] = true
		for st := 1; st <= stageCount; st++ {
			s.applied[force][st] = true
			emit(force, st)
		}
	}
	for changed := true; changed; {
		changed = false
		for i := range n {
			if s.ready[i] || !c.reachable(s, i) {
				continue
			}
			done := true
			for st := 1; st <= stageCount; st++ {
				if s.applied[i][st] {
					continue
				}
				if (i == block && st >= blockStage) || (relax != relaxAll && !c.satisfied(s, i, st, relax)) {
					done = false
					break
				}
				s.applied[i][st] = true
				emit(i, st)
				changed = true
			}
			if done && ((i == block && blockStage == stageReady) || (relax != relaxAll && !c.healthy(s, i, relax))) {
				done = false
			}
			if done {
				s.ready[i], changed = true, true
			}
		}
	}
	c.runs[key] = s
	return s
}

// reachable reports whether node i exists (its applier applied it) and its
// dependsOn are Ready.
func (c *convergence) reachable(s *state, i int) bool {
	if p := c.parent[i]; p >= 0 && !s.applied[p][c.parentStage[i]] {
		return false
	}
	for _, d := range c.deps[i] {
		if d < 0 || !s.ready[d] {
			return false
		}
	}
	return true
}

// satisfied reports whether every kind stage st of node i needs exists,
// but for the soft needs under relaxSoft.
func (c *convergence) satisfied(s *state, i, st int, relax relaxation) bool {
	for _, k := range c.needs[i][st] {
		if !s.exists[k] && (relax != relaxSoft || !slices.Contains(c.soft[i][st], k)) {
			return false
		}
	}
	return true
}

// eventually answers whether kind k of the consumer ks (applied in stage)
// comes to exist on a cold start without ks getting past that stage: if
// so, ks converges after retries. If not, and it would with ks Ready, the
// origin waits for ks itself: a deadlock. It waits for ks too when, with
// every other finding fixed (another deadlock above both, or on either
// end, may hold everything up), it still waits for ks (hold) and comes
// with ks Ready: a chain of dependsOn, appliers and needed kinds runs
// through ks. through is false when the kind never exists either way
// (something else is stuck; its own finding says what).
func (c *convergence) eventually(ks tiers.ID, stage int, k originKey) (converges, through bool) {
	i, ok := c.index[ks]
	kn, known := c.kinds[k]
	if !ok || !known {
		return true, false
	}
	if c.run(i, stage, -1).exists[kn] {
		return true, false
	}
	if c.run(-1, 0, i).exists[kn] {
		return false, true
	}
	return false, c.hold(i, stage).kind[kn] && c.play(-1, 0, i, relaxAll).exists[kn]
}

// standsBlocked reports whether kind k of the consumer ks (applied in
// stage) still never comes to exist, ks held at that stage, when every
// finding that does not stand as an error converges (relaxSoft): only then
// does an error explain why its origin never gets that far.
func (c *convergence) standsBlocked(ks tiers.ID, stage int, k originKey) bool {
	i, ok := c.index[ks]
	kn, known := c.kinds[k]
	return ok && known && !c.play(i, stage, -1, relaxSoft).exists[kn]
}

// createdInPass returns the Kustomizations that ks itself creates in stage
// or a later one, each applying the next, down to provider: [child, ...,
// provider]. A dry-run that fails in stage applies none of that stage or
// the ones after it, so while ks is stuck there, provider is never
// created. Nil when provider is not created that way (ks does not apply
// it, or applies it in an earlier stage).
func (c *convergence) createdInPass(ks, provider tiers.ID, stage int) []tiers.ID {
	i, ok := c.index[ks]
	v, ok2 := c.index[provider]
	if !ok || !ok2 || i == v {
		return nil
	}
	chain := []tiers.ID{provider}
	for range c.ids {
		p := c.parent[v]
		switch {
		case p < 0:
			return nil
		case p == i && c.parentStage[v] >= stage:
			return chain
		case p == i:
			return nil
		}
		chain = append([]tiers.ID{c.ids[p]}, chain...)
		v = p
	}
	return nil // a loop of appliers: render never makes one
}

// readyWithout reports whether node u turns Ready on a cold start where ks
// never gets past stage.
func (c *convergence) readyWithout(ks tiers.ID, stage int, u tiers.ID) bool {
	i, ok := c.index[ks]
	j, ok2 := c.index[u]
	return ok && ok2 && c.run(i, stage, -1).ready[j]
}

// healthy reports whether every kind node i's health checks wait for
// exists, but for the soft ones under relaxSoft.
func (c *convergence) healthy(s *state, i int, relax relaxation) bool {
	for _, k := range c.waits[i] {
		if !s.exists[k] && (relax != relaxSoft || !slices.Contains(c.soft[i][stageReady], k)) {
			return false
		}
	}
	return true
}

// waitPath explains why the provider node cannot act before ks is Ready:
// the chain of dependsOn, appliers and needed kinds from provider to ks,
// as found in the play where ks is held at stage.
func (c *convergence) waitPath(provider, ks tiers.ID, stage int) []tiers.ID {
	from, okFrom := c.index[provider]
	to, okTo := c.index[ks]
	if !okFrom || !okTo {
		return nil
	}
	s := c.run(to, stage, -1)
	emitters := map[int][]int{}
	for i := range c.ids {
		for st := 1; st <= stageCount; st++ {
			for _, k := range c.emits[i][st] {
				emitters[k] = append(emitters[k], i)
			}
		}
	}
	prev := map[int]int{from: from}
	queue := []int{from}
	for head := 0; head < len(queue); head++ {
		v := queue[head]
		if v == to {
			break
		}
		var next []int
		next = append(next, c.deps[v]...)
		if p := c.parent[v]; p >= 0 {
			next = append(next, p)
		}
		waited := slices.Clone(c.waits[v])
		for st := 1; st <= stageCount; st++ {
			waited = append(waited, c.needs[v][st]...)
		}
		for _, k := range waited {
			if !s.exists[k] {
				next = append(next, emitters[k]...)
			}
		}
		for _, w := range next {
			if _, seen := prev[w]; w >= 0 && !seen {
				prev[w] = v
				queue = append(queue, w)
			}
		}
	}
	if _, ok := prev[to]; !ok {
		return nil
	}
	var path []tiers.ID
	for v := to; ; v = prev[v] {
		path = append([]tiers.ID{c.ids[v]}, path...)
		if v == from {
			return path
		}
	}
}
