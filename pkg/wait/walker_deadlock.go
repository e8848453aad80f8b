package wait

import (
	"errors"
	"fmt"
	"time"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// The walker looks kinds up in the CRD watch of the cluster a node
// applies to (lookupFor, spoke.go), the API server's own view of CRD
// objects (not a cached discovery document).

// suspect records a dry-run failure on a missing kind seen before standup's
// next request, so that request's outcome proves or clears it; a wait for
// an operator runs from now.
func (w *Walker) suspect(now time.Time, id tiers.ID, obj flux.Object, st *nodeState) {
	d, ok := crds.DiagnoseFailures(obj, st.status.Missing, w.lookupFor(id), w.bundleFor(id))
	if !ok || !d.Deadlocked() {
		return
	}
	st.diag, st.suspectedAt, st.wait = &d, now, nil
	w.diagnosis(now, id, &d, w.suspectedMessage(), nil, nil)
}

func (w *Walker) suspectedMessage() string {
	return fmt.Sprintf("suspected cold-start deadlock; proving it, or else waiting while an operator shows progress (until %s pass without any)", w.opts.OperatorQuiet)
}

// onDeadlock handles a reconcile standup requested that failed its dry-run
// on a kind the API server does not serve.
func (w *Walker) onDeadlock(now time.Time, id tiers.ID, obj flux.Object, st *nodeState) ([]Action, time.Time) {
	d, _ := crds.DiagnoseFailures(obj, st.status.Missing, w.lookupFor(id), w.bundleFor(id))
	if !d.Deadlocked() {
		// Every kind it names exists now (or is being established): the failure
		// is stale, so ask again once the CRDs serve.
		delete(w.proving, id)
		if len(d.Pending) > 0 {
			w.note(now, id, st, "WaitingForCRDs", "waiting for CRDs to be established: "+joinTypes(d.Pending))
			return nil, st.deadline
		}
		if st.wait != nil {
			rec := w.endWait(now, id, st, WaitCRDsAppeared)
			w.note(now, id, st, "CRDsAppeared", fmt.Sprintf("not a cold-start deadlock: the missing CRDs appeared %s after the suspicion, while standup waited for an operator", roundDuration(time.Duration(rec.Waited))))
			w.withWait(id, rec)
		}
		st.diag, st.confirm, st.suspectedAt = nil, "", time.Time{}
		return []Action{w.request(now, id, st, false)}, st.deadline
	}
	// Only the answer to standup's own request gets here (stepReconciling
	// checks the token), so the failure is current, not a stale condition.
	// What is left to rule out is an operator that is about to create the
	// CRD: certainty rules it out at once when nothing could (no trigger
	// object, nothing left to apply one); otherwise the walk waits while an
	// operator shows progress (walker_operator.go), and the CRD watch tells
	// without asking the controller again.
	fresh := st.diag == nil || !crds.SameFailure(*st.diag, d)
	if fresh {
		st.suspectedAt, st.wait = now, nil
		w.diagnosis(now, id, &d, w.suspectedMessage(), nil, nil)
	}
	if fresh || st.confirm != st.token {
		st.diag, st.confirm = &d, st.token
	}
	if _, ok := w.proving[id]; !ok {
		// Facts gathered before this proof began, for another, may predate
		// a trigger applied since (platform-config applies the CDI that
		// apps-vms's proof must see): only those asked for from now count.
		w.proving[id] = struct{}{}
		st.unsettled = w.seq
	}
	certain, why := w.certainty(id, st, &d)
	var proof *Proof
	message := "cold-start deadlock proven: a reconcile standup requested failed its dry-run, and "
	var end WaitEnd
	switch {
	case certain:
		proof, end = &Proof{Kind: ProofCertain, Reason: "nothing can create the missing CRDs: " + why}, WaitCertain
	case why == checkingTriggers:
		// The loop reads them before the next Step (ObserveTrigger).
		w.note(now, id, st, "SuspectedDeadlock", "dry-run failed on missing kinds "+joinTypes(d.Missing)+"; "+why)
		return nil, st.deadline
	default:
		ow := w.startWait(st, &d, w.timeout(obj))
		var wake time.Time
		if proof, wake = w.awaitOperator(now, ow, why); proof == nil {
			w.note(now, id, st, "SuspectedDeadlock", w.waitingMessage(&d, ow, why))
			return nil, wake
		}
		message = "cold-start deadlock, not proven: a reconcile standup requested failed its dry-run, and "
		end = WaitNoProgress
		if proof.Kind == ProofOperatorTimeout {
			end = WaitOperatorTimeout
		}
	}
	delete(w.proving, id)
	w.diagnosis(now, id, &d, message+proof.Reason, proof, w.endWait(now, id, st, end))
	switch {
	case st.remedied:
		st.deadlock = true
		w.set(now, id, st, PhaseFailed, "Deadlock", "still deadlocked after pre-applying CRDs: "+d.String())
		return nil, time.Time{}
	case w.opts.NoRemediate:
		st.deadlock = true
		w.set(now, id, st, PhaseFailed, "Deadlock", d.String())
		return nil, time.Time{}
	}
	if secret, ok := w.unreached(id); ok {
		st.deadlock = true
		w.set(now, id, st, PhaseFailed, "Deadlock", d.String()+" Not repaired: "+unreachedMessage(secret)+".")
		return nil, time.Time{}
	}
	cluster := w.clusterOf(id)
	w.set(now, id, st, PhaseRemediating, "PreApplyingCRDs", "pre-applying CRDs for "+joinTypes(d.Missing)+w.onCluster(cluster))
	return []Action{{Kind: ActionPreApplyCRDs, Node: id, Diagnosis: &d, Cluster: cluster}}, st.deadline
}

// stepRemediating waits for the pre-apply's result and for the CRDs it
// created to be established, then requests the reconcile that follows the
// node to Ready.
func (w *Walker) stepRemediating(now time.Time, id tiers.ID, obj flux.Object, st *nodeState) ([]Action, time.Time) {
	if st.applied == nil {
		return nil, st.deadline
	}
	lookup := w.lookupFor(id)
	for _, gk := range st.diag.MissingGroupKinds() {
		if lookup(gk) != crds.CRDEstablished {
			if now.After(st.deadline) {
				st.timedOut = true
				w.set(now, id, st, PhaseFailed, "Timeout", "pre-applied CRD for "+gk.String()+" not established"+w.onCluster(w.clusterOf(id)))
				return nil, time.Time{}
			}
			return nil, st.deadline
		}
	}
	st.remedied, st.applied, st.diag, st.confirm = true, nil, nil, ""
	a := w.request(now, id, st, false)
	w.set(now, id, st, PhaseReconciling, "Requested", "CRDs established; requested reconcile")
	return []Action{a}, st.deadline
}

func (w *Walker) applyResult(now time.Time, r ActionResult) {
	st, ok := w.nodes[r.Action.Node]
	if !ok || r.Action.Kind != ActionPreApplyCRDs || st.phase != PhaseRemediating {
		return
	}
	if r.Err != nil {
		st.deadlock = true
		w.set(now, r.Action.Node, st, PhaseFailed, "Deadlock", r.Err.Error())
		return
	}
	st.applied = append([]string{}, r.Applied...)
	for _, name := range r.Applied {
		w.preApplied[name] = r.Action.Node
	}
	on := w.onCluster(r.Action.Cluster)
	msg := fmt.Sprintf("%v exist%s (left alone); waiting for them to be established", r.Existing, on)
	switch {
	case len(r.Applied) > 0 && len(r.Existing) > 0:
		msg = fmt.Sprintf("pre-applied %v%s, %v exist (left alone); waiting for them to be established", r.Applied, on, r.Existing)
	case len(r.Applied) > 0:
		msg = fmt.Sprintf("pre-applied %v%s; waiting for them to be established", r.Applied, on)
	}
	w.note(now, r.Action.Node, st, "PreAppliedCRDs", msg)
}

// diagnosis emits a diagnosis event; proof is set when it ends the wait
// and standup acts on the deadlock, and wait says how the wait ended.
func (w *Walker) diagnosis(now time.Time, id tiers.ID, d *crds.Diagnosis, message string, proof *Proof, wait *OperatorWait) {
	w.events = append(w.events, Event{
		Time: now, Type: EventDiagnosis, Node: &id, Tier: w.tierOf(id), Phase: w.nodes[id].phase,
		Reason: "Deadlock", Message: message, Diagnosis: d, Proof: proof, Wait: wait,
	})
}

// withWait attaches wait to the node event of id this Step emitted last,
// the one that says the wait ended.
func (w *Walker) withWait(id tiers.ID, wait *OperatorWait) {
	for i := len(w.events) - 1; i >= 0; i-- {
		if e := &w.events[i]; e.Type == EventNode && e.Node != nil && *e.Node == id {
			e.Wait = wait
			return
		}
	}
}

func joinTypes(ts []crds.MissingType) string {
	s := ""
	for i, t := range ts {
		if i > 0 {
			s += ", "
		}
		s += t.String()
	}
	return s
}

// ErrDeadlock marks a walk that ended with an unresolved cold-start deadlock.
var ErrDeadlock = errors.New("cold-start deadlock not resolved")
