package wait

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fluxcd/pkg/apis/meta"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// stepSettled watches a node already Ready. kustomize-controller may run it
// again (the root re-applying it, a reconcile standup requested of its
// dependency) and, finding that dependency mid-reconcile, park it at
// DependencyNotReady until its own re-check, 30 s later; its dependents
// would wait that out. standup reopens such a node once, so that it is asked
// again as soon as its dependencies are Ready, and its dependents wait for it.
func (w *Walker) stepSettled(now time.Time, id tiers.ID, obj flux.Object, st *nodeState) ([]Action, time.Time) {
	if st.reopened || obj.Ready == nil || obj.Ready.Status != "False" || obj.Ready.Reason != meta.DependencyNotReadyReason {
		return nil, time.Time{}
	}
	st.reopened = true
	st.retryAt, st.retries = time.Time{}, 0
	w.set(now, id, st, PhasePending, meta.DependencyNotReadyReason, "Flux found a dependency not ready after this was Ready: "+obj.Ready.Message)
	w.touchDependents(id)
	return w.stepPending(now, id, obj, st)
}

func (w *Walker) stepPending(now time.Time, id tiers.ID, obj flux.Object, st *nodeState) ([]Action, time.Time) {
	ready, why, blocker, absent, exprErr := w.depsReady(obj)
	if exprErr != nil {
		w.set(now, id, st, PhaseFailed, "InvalidCELExpression", exprErr.Error())
		return nil, time.Time{}
	}
	if blocker != nil {
		w.set(now, id, st, PhaseBlocked, "DependencyFailed", "blocked by "+blocker.String())
		return nil, time.Time{}
	}
	if !ready {
		if !absent {
			w.note(now, id, st, meta.DependencyNotReadyReason, why)
			return nil, time.Time{}
		}
		// A dependency the root has not created yet: wait for it to appear,
		// but not forever.
		limit := w.start.Add(w.timeout(obj))
		if now.After(limit) {
			w.set(now, id, st, PhaseFailed, "DependencyMissing", why+": it never appeared")
			return nil, time.Time{}
		}
		w.note(now, id, st, meta.DependencyNotReadyReason, why)
		return nil, limit
	}
	if !obj.Suspended && w.readySelf(obj) && obj.RequestedAt == obj.LastHandledReconcileAt {
		st.kickedAt = now
		st.deadline = now.Add(w.timeout(obj))
		st.alreadyReady = true
		return nil, w.stepCRDs(now, id, obj, st)
	}
	if obj.Suspended && w.opts.NoUnsuspend {
		w.set(now, id, st, PhaseBlocked, meta.SuspendedReason, "suspended (--no-unsuspend)")
		return nil, time.Time{}
	}
	if w.opts.MaxInflight > 0 && w.inflight() >= w.opts.MaxInflight {
		w.queued[id] = struct{}{}
		w.note(now, id, st, "Queued", fmt.Sprintf("dependencies ready; waiting for a slot (--max-inflight %d)", w.opts.MaxInflight))
		return nil, time.Time{}
	}
	if w.hold(now, id, st) {
		return nil, now.Add(w.opts.AskAgainAfter) // to see whether the controller stalled
	}
	if st.status.State == SuspectedDeadlock {
		// It already failed a dry-run on a missing kind before standup asked:
		// the reconcile requested now is the one that proves or clears it.
		w.suspect(now, id, obj, st)
	}
	st.kickedAt = now
	st.deadline = now.Add(w.timeout(obj))
	a := w.request(now, id, st, obj.Suspended)
	w.set(now, id, st, PhaseReconciling, "Requested", requestMessage(obj.Suspended))
	return []Action{a}, st.deadline
}

// depsReady reports whether every dependency is ready for obj, with
// kustomize-controller's rules: a readyExpr, when set, decides instead of
// the built-in check (unless AdditiveCELDependencyCheck); otherwise a
// walked dependency must have finished and an untouched one must pass
// Flux's own check. It also says why not, which failed dependency blocks
// obj, whether a dependency is absent, and any readyExpr that cannot compile.
func (w *Walker) depsReady(obj flux.Object) (ready bool, why string, blocker *tiers.ID, absent bool, exprErr error) {
	for _, dep := range obj.DependsOn {
		depObj, ok := w.objs[dep.ID]
		if !ok {
			return false, fmt.Sprintf("waiting for %s to appear", dep.ID), nil, true, nil
		}
		if dep.ExistsOnly {
			continue // a ResourceSet's entry without ready: there is enough
		}
		if dep.ReadyExpr != "" {
			ok, err := w.exprs.EvalReadyExpr(context.Background(), dep.ReadyExpr, obj.Raw, depObj.Raw)
			var invalid *ReadyExprError
			switch {
			case errors.As(err, &invalid):
				return false, "", nil, false, fmt.Errorf("dependency %s: %w", dep.ID.NamespacedName(), err)
			case err != nil || !ok:
				return false, fmt.Sprintf("dependency '%s' is not ready according to readyExpr eval", dep.ID.NamespacedName()), nil, false, nil
			}
			if !w.opts.AdditiveCELDependencyCheck {
				continue
			}
		}
		if w.active(dep.ID) {
			switch w.nodes[dep.ID].phase {
			case PhaseFailed, PhaseBlocked:
				id := dep.ID
				return false, "", &id, false, nil
			case PhaseReady:
				continue
			}
			return false, fmt.Sprintf("dependency '%s' is not ready", dep.ID.NamespacedName()), nil, false, nil
		}
		if ok, why := ReadyForDependents(depObj, obj, w.sources[obj.SourceRef]); !ok {
			return false, why, nil, false, nil
		}
	}
	return w.requirementsMet(obj)
}

// requirementsMet is the Flux Operator's check of a ResourceSet's
// dependsOn entries on objects that are no nodes, as far as the walk sees
// them: a CRD must exist and, with ready, be Established (kstatus's
// verdict on a CRD; a readyExpr on one is left to the Operator). Entries
// on other kinds the walk does not watch: the Operator holds the
// ResourceSet at DependencyNotReady until they are met, and the walk
// waits on its Ready.
func (w *Walker) requirementsMet(obj flux.Object) (ready bool, why string, blocker *tiers.ID, absent bool, exprErr error) {
	for _, r := range obj.Requires {
		if !r.IsCRD() {
			continue
		}
		established, ok := w.crds[r.Name]
		if !ok {
			return false, fmt.Sprintf("waiting for %s to appear", r), nil, true, nil
		}
		if r.Ready && r.ReadyExpr == "" && !established {
			return false, fmt.Sprintf("dependency %s not ready: not established", r), nil, false, nil
		}
	}
	return true, "", nil, false, nil
}

// readySelf reports whether the node is ready at its own source's current
// revision (a HelmRelease: at its chart's; a ResourceSet, which has no
// source, at its generation).
func (w *Walker) readySelf(obj flux.Object) bool {
	switch obj.ID.Kind {
	case flux.KindHelmRelease:
		return HelmReleaseReady(obj, w.sources[obj.Chart])
	case flux.KindResourceSet:
		// No source: the Operator's own health check (HealthCheckExpr),
		// Ready at the generation; a handled request (RequestHandled)
		// says the Ready is this reconcile's.
		return obj.ReadyAtGeneration()
	}
	ok, _ := ReadyForDependents(obj, obj, w.sources[obj.SourceRef])
	return ok
}

func (w *Walker) timeout(obj flux.Object) time.Duration {
	if w.opts.Timeout > 0 {
		return w.opts.Timeout
	}
	if obj.Timeout > 0 {
		return obj.Timeout
	}
	return 5 * time.Minute
}
