package wait

import (
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// PlanStep is what a walk would do to one node, as --dry-run prints it.
// It is not an Action: a plan also names the nodes a walk leaves alone
// ("none", "skip", passive ancestors) and each node's tier, and its JSON is
// what `resume --dry-run -o json` prints, one step a line.
type PlanStep struct {
	Node tiers.ID `json:"node"`
	Tier int      `json:"tier"`
	// Action is "none" (already ready at its source's revision), "reconcile",
	// "resume+reconcile", or "skip" (suspended, with --no-unsuspend).
	Action string `json:"action"`
	// Passive nodes are waited on but never touched (ancestors under --from, --exclude).
	Passive bool `json:"passive,omitempty"`
}

// Plan returns, in walk order, what a walk would do to every selected node
// given the objects and source revisions seen now. It mutates nothing.
func Plan(objs []flux.Object, sources map[tiers.ID]string, opts Options) ([]PlanStep, error) {
	w := NewWalker(opts, timeZero)
	for _, o := range objs {
		w.ObserveObject(o)
	}
	for id, rev := range sources {
		w.ObserveSource(id, rev)
	}
	if err := w.rebuild(); err != nil {
		return nil, err
	}
	var steps []PlanStep
	for _, id := range w.graph.Order() {
		obj := w.objs[id]
		step := PlanStep{Node: id, Tier: w.tierOf(id), Passive: !w.active(id)}
		switch {
		case step.Passive && !w.sel.Needed(w.graph, id):
			continue
		case step.Passive:
			step.Action = "none"
		case !obj.Suspended && w.readySelf(obj):
			step.Action = "none"
		case obj.Suspended && opts.NoUnsuspend:
			step.Action = "skip"
		case obj.Suspended:
			step.Action = "resume+reconcile"
		default:
			step.Action = "reconcile"
		}
		steps = append(steps, step)
	}
	return steps, nil
}
