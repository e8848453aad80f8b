package audit

import (
	"slices"

	"github.com/kubestandup/standup/pkg/tiers"
)

// held is what a cold start can never do while one node never gets past
// one stage, with every other finding taken as fixed: the least set that
// holds that node's stages from there on, and then, in turn, a stage of a
// node whose applier's stage is held, whose dependsOn is held short of
// Ready, whose own earlier stage is held, or which needs a held kind; a
// node's Ready when its last stage is held or its health checks wait for a
// held kind; and a kind when every stage that makes it exist is held. A
// kind nothing makes exist, a dependsOn on nothing, and a need a node can
// never meet on its own (othersNeeds) are other findings': they hold
// nothing here. So a wait that runs from the node back to itself through
// the needs of others is held even when those others are stuck for
// reasons of their own too, which the play with every kind taken as
// existing (play's relaxAll) cannot see.
type held struct {
	// at marks, per node, the stages never applied, and at stageReady
	// the nodes never Ready.
	at   [][stageReady + 1]bool
	kind []bool
}

// slot is one stage of one node.
type slot struct{ node, stage int }

// emitters lists, per kind, the node stages that make it exist.
func (c *convergence) emitters() [][]slot {
	out := make([][]slot, len(c.kinds))
	for i := range c.ids {
		for st := 1; st <= stageCount; st++ {
			for _, k := range c.emits[i][st] {
				out[k] = append(out[k], slot{i, st})
			}
		}
	}
	return out
}

// hold is the held set of node i held at stage (stageReady: every stage
// applied, never Ready).
func (c *convergence) hold(i, stage int) *held {
	h := &held{at: make([][stageReady + 1]bool, len(c.ids)), kind: make([]bool, len(c.kinds))}
	for st := stage; st <= stageReady; st++ {
		h.at[i][st] = true
	}
	emitters := c.emitters()
	needs := c.othersNeeds(emitters)
	for changed := true; changed; {
		changed = false
		for k, es := range emitters {
			if !h.kind[k] && len(es) > 0 && allHeld(h, es) {
				h.kind[k], changed = true, true
			}
		}
		for v := range c.ids {
			for st := 1; st <= stageReady; st++ {
				if !h.at[v][st] && c.stalled(h, needs, v, st) {
					h.at[v][st], changed = true, true
				}
			}
		}
	}
	return h
}

func allHeld(h *held, slots []slot) bool {
	for _, s := range slots {
		if !h.at[s.node][s.stage] {
			return false
		}
	}
	return true
}

// othersNeeds are the needs of each node stage but those it can never meet
// on its own: a kind that only it, in that stage or a later one, or a
// Kustomization it creates there (createdInPass) makes exist. Such a need
// is its own same-pass deadlock, another finding, and holds nothing here.
func (c *convergence) othersNeeds(emitters [][]slot) [][stageCount + 1][]int {
	out := make([][stageCount + 1][]int, len(c.ids))
	for v := range c.ids {
		for st := 1; st <= stageCount; st++ {
			for _, k := range c.needs[v][st] {
				if !c.ownPass(v, st, emitters[k]) {
					out[v][st] = append(out[v][st], k)
				}
			}
		}
	}
	return out
}

// ownPass reports whether every slot of emits is node v's own pass from
// stage st on: v itself, or a Kustomization v creates there.
func (c *convergence) ownPass(v, st int, emits []slot) bool {
	for _, e := range emits {
		if e.node == v && e.stage >= st {
			continue
		}
		if e.node == v || c.createdInPass(c.ids[v], c.ids[e.node], st) == nil {
			return false
		}
	}
	return len(emits) > 0
}

// stalled reports whether stage st of node v (stageReady: its Ready) waits
// for something held; needs are othersNeeds.
func (c *convergence) stalled(h *held, needs [][stageCount + 1][]int, v, st int) bool {
	if st > 1 && h.at[v][st-1] {
		return true
	}
	if st == stageReady {
		return anyKindHeld(h, c.waits[v])
	}
	if p := c.parent[v]; p >= 0 && h.at[p][c.parentStage[v]] {
		return true
	}
	for _, d := range c.deps[v] {
		if d >= 0 && h.at[d][stageReady] {
			return true
		}
	}
	return anyKindHeld(h, needs[v][st])
}

func anyKindHeld(h *held, kinds []int) bool {
	for _, k := range kinds {
		if h.kind[k] {
			return true
		}
	}
	return false
}

// heldPath is the chain of waits, each held, from node from to node i:
// Kustomizations each of which cannot act before the next has, through a
// dependsOn, an applier, or a kind it needs that the next makes exist.
// Nil when from is not held, or is i.
func (c *convergence) heldPath(h *held, from, i int) []tiers.ID {
	emitters := c.emitters()
	prev := map[int]int{from: from}
	queue := []int{from}
	for head := 0; head < len(queue); head++ {
		v := queue[head]
		if v == i {
			break
		}
		var next []int
		for _, d := range c.deps[v] {
			if d >= 0 && h.at[d][stageReady] {
				next = append(next, d)
			}
		}
		if p := c.parent[v]; p >= 0 && h.at[p][c.parentStage[v]] {
			next = append(next, p)
		}
		needs := slices.Clone(c.waits[v])
		for st := 1; st <= stageCount; st++ {
			needs = append(needs, c.needs[v][st]...)
		}
		for _, k := range needs {
			if h.kind[k] {
				for _, e := range emitters[k] {
					next = append(next, e.node)
				}
			}
		}
		for _, w := range next {
			if _, seen := prev[w]; !seen {
				prev[w] = v
				queue = append(queue, w)
			}
		}
	}
	if _, ok := prev[i]; !ok || i == from {
		return nil
	}
	path := []tiers.ID{c.ids[i]}
	for v := i; v != from; {
		v = prev[v]
		path = append([]tiers.ID{c.ids[v]}, path...)
	}
	return path
}

// mutualWait answers whether provider cannot turn Ready before consumer
// has applied anything, every other finding taken as fixed: then
// dependsOn provider on consumer deadlocks the cold start. It returns the
// chain of waits from provider to consumer, nil when provider does not
// wait for it.
func (c *convergence) mutualWait(provider, consumer tiers.ID) []tiers.ID {
	p, ok := c.index[provider]
	i, ok2 := c.index[consumer]
	if !ok || !ok2 || p == i {
		return nil
	}
	h := c.hold(i, 1)
	if !h.at[p][stageReady] {
		return nil
	}
	return c.heldPath(h, p, i)
}
