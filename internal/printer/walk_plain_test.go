package printer

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// fakeTicks drives a plain printer's heartbeat: tick hands it a tick of
// time at and returns once the printer has handled it (the second send on
// the unbuffered channel is taken only when the first is done; a tick at
// the same time never beats twice).
type fakeTicks chan time.Time

func (c fakeTicks) tick(at time.Time) {
	c <- at
	c <- at
}

// healthCheckWalk is issue 31's walk: slow applies a Deployment that never
// becomes ready (spec.wait), kustomize-controller took the request up and
// runs its health checks; app waits on slow.
func healthCheckWalk(t0 time.Time) []wait.Event {
	slow, app, base := walkNode("flux-system", "slow"), walkNode("flux-system", "app"), walkNode("flux-system", "base")
	return []wait.Event{
		{Time: t0, Type: wait.EventNode, Node: base, Phase: wait.PhaseReady, Reason: "AlreadyReady", Message: "already Ready at main@sha1:1; not touched"},
		{Time: t0, Type: wait.EventNode, Node: slow, Tier: 1, Phase: wait.PhasePending, Reason: "DependencyNotReady", Message: "dependency 'flux-system/base' is not ready"},
		{Time: t0, Type: wait.EventNode, Node: app, Tier: 2, Phase: wait.PhasePending, Reason: "DependencyNotReady", Message: "dependency 'flux-system/slow' is not ready"},
		{Time: t0, Type: wait.EventNode, Node: slow, Tier: 1, Phase: wait.PhaseReconciling, Reason: "Requested", Message: "requested reconcile"},
		{Time: t0.Add(10 * time.Millisecond), Type: wait.EventAction, Node: slow, Tier: 1, Action: "reconcile", Reason: "Requested", Message: "reconcile.fluxcd.io/requestedAt=2026-09-05T03:00:00Z"},
		{Time: t0.Add(400 * time.Millisecond), Type: wait.EventNode, Node: slow, Tier: 1, Phase: wait.PhaseReconciling, Reason: "Progressing",
			Message: "Fetching manifests for revision main@sha1:1 with a timeout of 2m0s", Elapsed: wait.Duration(400 * time.Millisecond)},
		{Time: t0.Add(time.Second), Type: wait.EventNode, Node: slow, Tier: 1, Phase: wait.PhaseReconciling, Reason: "Progressing",
			Message: "Running health checks for revision main@sha1:1 with a timeout of 2m0s", Elapsed: wait.Duration(time.Second)},
	}
}

// TestPlainWalkPrintsEachChangeAndAHeartbeat: without a terminal, a node's
// line comes when its reason or message changes and the new state has
// lasted 2 s (its first waits for dependencies and its "requested
// reconcile" left to the heartbeat and the action's line; a step that
// lasts less, superseded), and every 30 s a heartbeat says what is still
// waiting, for how long, and on what: never a minute without a line.
func TestPlainWalkPrintsEachChangeAndAHeartbeat(t *testing.T) {
	t0 := time.Date(2026, 9, 5, 3, 0, 0, 0, time.UTC)
	ticks := make(fakeTicks)
	var out bytes.Buffer
	p := newPlainWalk(&out, &out, NewStyles(&out, false), nil, plainClock{Ticks: ticks, Now: func() time.Time { return t0 }})
	for _, e := range healthCheckWalk(t0) {
		p.Event(e)
	}
	ticks.tick(t0.Add(2 * time.Second))  // fetching (0.4 s) was superseded; health checks since 1 s: not yet
	ticks.tick(t0.Add(3 * time.Second))  // the health checks have lasted 2 s
	ticks.tick(t0.Add(29 * time.Second)) // too soon for a heartbeat
	ticks.tick(t0.Add(30 * time.Second))
	ticks.tick(t0.Add(45 * time.Second)) // too soon after the last
	ticks.tick(t0.Add(61 * time.Second))
	p.Event(wait.Event{Time: t0.Add(62 * time.Second), Type: wait.EventNode, Node: walkNode("flux-system", "slow"), Tier: 1, Phase: wait.PhaseFailed, Reason: "Timeout",
		Message: "not ready within 1m0s: Running health checks for revision main@sha1:1 with a timeout of 2m0s", Elapsed: wait.Duration(62 * time.Second)})
	p.Event(wait.Event{Time: t0.Add(62 * time.Second), Type: wait.EventNode, Node: walkNode("flux-system", "app"), Tier: 2, Phase: wait.PhaseBlocked, Reason: "DependencyFailed",
		Message: "blocked by Kustomization/flux-system/slow"})
	ticks.tick(t0.Add(95 * time.Second)) // nothing waits: no heartbeat
	p.Close(wait.Summary{Ready: 1, Failed: 1, Blocked: 1, Total: 3, Mutations: 1, Elapsed: wait.Duration(62 * time.Second)})
	compareGolden(t, filepath.Join("testdata", "walk", "plain-heartbeat.golden"), out.Bytes())

	got := out.String()
	for _, want := range []string{
		"03:00:03.000 … Kustomization/flux-system/slow reconciling, 3.0s: Running health checks for revision main@sha1:1 with a timeout of 2m0s (Progressing)",
		"03:00:30.000 … waiting: 1/3 ready, 1 running, 1 waiting; Kustomization/flux-system/slow reconciling, 30.0s: Running health checks",
		"03:01:01.000 … waiting: 1/3 ready, 1 running, 1 waiting; Kustomization/flux-system/slow reconciling, 1m01s: Running health checks",
		"1 node pending (1: dependency 'flux-system/slow' is not ready)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "… waiting:"); n != 2 {
		t.Errorf("%d heartbeats, want 2 (at 30 s and 61 s):\n%s", n, got)
	}
	for _, unwanted := range []string{"requested reconcile", "pending: dependency", "Fetching manifests"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("output has %q, which the action line and the heartbeat say:\n%s", unwanted, got)
		}
	}
}

// TestPlainWalkQuietPrintsTheSummaryOnly: -q prints no line of the walk,
// no heartbeat, and the summary.
func TestPlainWalkQuietPrintsTheSummaryOnly(t *testing.T) {
	t0 := time.Date(2026, 9, 5, 3, 0, 0, 0, time.UTC)
	var errOut bytes.Buffer
	p := NewWalkPrinter(nil, &errOut, WalkOptions{Format: FormatText, Quiet: true})
	for _, e := range healthCheckWalk(t0) {
		p.Event(e)
	}
	p.Close(wait.Summary{Ready: 3, Total: 3})
	if got := errOut.String(); got != "✔ 3/3 ready, 0 failed, 0 blocked in 0.0s (0 mutations)\n" {
		t.Errorf("-q printed %q", got)
	}
}

// TestWalkNotesExplainOnce: a deadlock's explanation, and its advice, are
// printed when a Proof confirms it, once per node and reason; a suspicion
// is one line; the failure that repeats the explanation points to it.
func TestWalkNotesExplainOnce(t *testing.T) {
	t0 := time.Date(2026, 9, 5, 3, 0, 0, 0, time.UTC)
	apps, vms := walkNode("flux-system", "platform-config"), walkNode("flux-system", "apps-vms")
	d := &crds.Diagnosis{Kustomization: *apps, Reason: "ReconciliationFailed",
		Missing: []crds.MissingType{{Group: "cdi.kubevirt.io", Kind: "StorageProfile", GroupKnown: true, Versions: []string{"v1beta1"}, Plural: "storageprofiles",
			Objects: []crds.ObjectRef{{Kind: "StorageProfile", Name: "longhorn"}}}}}
	dv := &crds.Diagnosis{Kustomization: *vms, Reason: "ReconciliationFailed",
		Missing: []crds.MissingType{{Group: "cdi.kubevirt.io", Kind: "DataVolume", GroupKnown: true, Versions: []string{"v1beta1"}, Plural: "datavolumes"}}}
	proof := &wait.Proof{Kind: wait.ProofCertain, Reason: "nothing can create the missing CRDs"}
	evs := []wait.Event{
		// apps-vms is suspected, and its operator creates the CRD: no advice.
		{Time: t0, Type: wait.EventDiagnosis, Node: vms, Reason: "Deadlock", Message: "suspected cold-start deadlock; proving it", Diagnosis: dv},
		{Time: t0, Type: wait.EventDiagnosis, Node: apps, Reason: "Deadlock", Message: "suspected cold-start deadlock; proving it", Diagnosis: d},
		{Time: t0.Add(time.Second), Type: wait.EventDiagnosis, Node: apps, Reason: "Deadlock", Message: "cold-start deadlock proven: a reconcile standup requested failed its dry-run", Diagnosis: d, Proof: proof},
		{Time: t0.Add(2 * time.Second), Type: wait.EventDiagnosis, Node: apps, Reason: "Deadlock", Message: "cold-start deadlock proven: again", Diagnosis: d, Proof: proof},
		{Time: t0.Add(2 * time.Second), Type: wait.EventNode, Node: apps, Phase: wait.PhaseFailed, Reason: "Deadlock", Message: d.String()},
		{Time: t0.Add(3 * time.Second), Type: wait.EventNode, Node: vms, Phase: wait.PhaseBlocked, Reason: "DependencyFailed", Message: "blocked by Kustomization/flux-system/platform-config"},
	}
	var out bytes.Buffer
	p := newPlainWalk(&out, &out, NewStyles(&out, false), nil, plainClock{})
	for _, e := range evs {
		p.Event(e)
	}
	p.Close(wait.Summary{Failed: 1, Blocked: 1, Total: 2, FailedNodes: []tiers.ID{*apps}, Deadlocked: []tiers.ID{*apps}})
	got := out.String()
	compareGolden(t, filepath.Join("testdata", "walk", "plain-explained-once.golden"), out.Bytes())
	if n := strings.Count(got, "Flux dry-runs every object"); n != 1 {
		t.Errorf("the explanation is printed %d times, want once:\n%s", n, got)
	}
	if n := strings.Count(got, "move the custom resources"); n != 1 {
		t.Errorf("the advice is printed %d times, want once, after the proof:\n%s", n, got)
	}
	if i, j := strings.Index(got, "move the custom resources"), strings.Index(got, "cold-start deadlock proven"); i < j {
		t.Errorf("the advice comes before the proof:\n%s", got)
	}
	for _, want := range []string{
		"! Kustomization/flux-system/apps-vms suspected cold-start deadlock; proving it (missing DataVolume.cdi.kubevirt.io)",
		"! Kustomization/flux-system/platform-config cold-start deadlock proven: again (explained above)",
		"✗ Kustomization/flux-system/platform-config Deadlock: cold-start deadlock not resolved (explained above)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}

	// crds prints its report's diagnosis first: the walk's proof names it.
	out.Reset()
	p = newPlainWalk(&out, &out, NewStyles(&out, false), []tiers.ID{*apps}, plainClock{})
	p.Event(evs[2])
	p.Event(evs[4])
	p.Close(wait.Summary{})
	if strings.Contains(out.String(), "Flux dry-runs every object") {
		t.Errorf("an explanation the command printed is printed again:\n%s", out.String())
	}
}
