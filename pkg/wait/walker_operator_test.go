package wait

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/crds"
)

var providerGK = schema.GroupKind{Group: "pkg.crossplane.io", Kind: "Provider"}

// waitCase is one wait for an operator, played on a fake clock from the
// suspicion (platform-config's own request failing on StorageProfile).
type waitCase struct {
	name string
	opts Options
	// trigger is StorageProfile's one trigger; fact answers its trigger
	// fact (default: an object exists, so the deadlock is not certain).
	trigger crds.Trigger
	fact    func(f *TriggerFact)
	// read answers a progress read made at elapsed since the suspicion.
	read func(t ProgressTarget, elapsed time.Duration) ProgressFact
	// crdAt is when an operator creates the CRD; zero: never.
	crdAt time.Duration
	// want is the evidence that ends the wait, at wantAt since the
	// suspicion; wantWords are in its proof's reason.
	want      WaitEnd
	wantAt    time.Duration
	wantWords []string
	// noReads: the wait must end without a progress read.
	noReads bool
}

// waitOutcome is how a played wait ended.
type waitOutcome struct {
	at    time.Duration
	proof *Proof
	wait  *OperatorWait
	reads map[ProgressTarget]int
}

// object is a trigger object of kind gk with the conditions given, each
// "Type=Status/Reason/Message".
func object(gk schema.GroupKind, name string, conds ...string) ObjectProgress {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(gk.WithVersion("v1"))
	u.SetName(name)
	var list []any
	for _, c := range conds {
		typ, rest, _ := strings.Cut(c, "=")
		parts := strings.SplitN(rest, "/", 3)
		for len(parts) < 3 {
			parts = append(parts, "")
		}
		list = append(list, map[string]any{"type": typ, "status": parts[0], "reason": parts[1], "message": parts[2]})
	}
	_ = unstructured.SetNestedSlice(u.Object, list, "status", "conditions")
	return ObjectProgress{Name: name, Progress: TriggerProgress(u)}
}

// deployment is the operator's Deployment with updated of 3 replicas
// rolled out, and its Progressing condition.
func deployment(updated int64, progressing string) ObjectProgress {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "cdi-operator", "namespace": "cdi", "generation": int64(2)},
		"spec":     map[string]any{"replicas": int64(3)},
		"status": map[string]any{"observedGeneration": int64(2), "replicas": int64(3), "updatedReplicas": updated, "readyReplicas": updated, "availableReplicas": updated,
			"conditions": []any{map[string]any{"type": "Progressing", "status": strings.Split(progressing, "/")[0], "reason": strings.Split(progressing, "/")[1], "lastUpdateTime": fmt.Sprintf("t%d", updated)}}},
	}}
	return ObjectProgress{Name: "cdi/cdi-operator", Progress: DeploymentProgress(u)}
}

// objects answers every read with the objects f returns at that moment.
func objects(f func(elapsed time.Duration) []ObjectProgress) func(ProgressTarget, time.Duration) ProgressFact {
	return func(_ ProgressTarget, elapsed time.Duration) ProgressFact { return ProgressFact{Objects: f(elapsed)} }
}

// everyTen is a CDI whose operator writes a new Progressing message every
// 10 s, as a Crossplane package's conditions move while it installs.
func everyTen(elapsed time.Duration) []ObjectProgress {
	step := int(elapsed / (10 * time.Second))
	return []ObjectProgress{object(cdiGK, "cdi", fmt.Sprintf("Progressing=True/Installing/step %d of 9", step))}
}

// quiet is a CDI whose operator says nothing.
func quiet(time.Duration) []ObjectProgress {
	return []ObjectProgress{object(cdiGK, "cdi", "Available=False/Deploying/")}
}

// playWait plays the loop around the walker, as Loop.Run does, on a fake
// clock: it answers the facts and reads the walker asks for at once, steps
// again, and otherwise moves the clock to the walker's next wake (or to the
// CRD's creation), until the wait ends.
func playWait(t *testing.T, tc waitCase) waitOutcome {
	t.Helper()
	if tc.trigger.Kind.Empty() {
		tc.trigger = crds.Trigger{Kind: cdiGK, From: "standup.yaml"}
	}
	opts := tc.opts
	opts.NoUnsuspend = true
	opts.Triggers = func(gk schema.GroupKind) []crds.Trigger {
		if gk == spGK {
			return []crds.Trigger{tc.trigger}
		}
		return nil
	}
	w, _ := proofScene(t, opts)
	start := t0.Add(time.Second)
	now, crdShown := start, false
	out := waitOutcome{reads: map[ProgressTarget]int{}}
	for now.Sub(start) <= 10*time.Minute {
		for _, gk := range w.TriggersWanted() {
			f := TriggerFact{Kind: gk, Object: "cdi"}
			if tc.fact != nil {
				tc.fact(&f)
			}
			w.ObserveTrigger(f)
		}
		for _, target := range w.ProgressWanted() {
			out.reads[target]++
			f := tc.read(target, now.Sub(start))
			f.Target, f.Time = target, now
			w.ObserveProgress(f)
		}
		if tc.crdAt > 0 && !crdShown && !now.Before(start.Add(tc.crdAt)) {
			w.ObserveCRD(spCRD, spGK, true)
			crdShown = true
		}
		act, evs, next := w.Step(now)
		out.at = now.Sub(start)
		if out.proof = proofOf(evs); out.proof != nil {
			for _, e := range evs {
				if e.Proof != nil {
					out.wait = e.Wait
				}
			}
			only(t, act, ActionPreApplyCRDs, "platform-config")
			return out
		}
		if len(act) > 0 {
			only(t, act, ActionReconcile, "platform-config")
			for _, e := range evs {
				if e.Type == EventNode && e.Reason == "CRDsAppeared" {
					out.wait = e.Wait
				}
			}
			return out
		}
		if len(w.progressWanted) > 0 || len(w.wanted) > 0 {
			continue // the loop reads them now and steps again
		}
		if tc.crdAt > 0 && !crdShown {
			next = earliest(next, start.Add(tc.crdAt))
		}
		if !next.After(now) {
			t.Fatalf("at %s: next wake %s is not later", out.at, next.Sub(start))
		}
		now = next
	}
	t.Fatalf("the wait never ended")
	return out
}

// TestWalkerWaitsForAnOperatorDecisionTable: when a deadlock is not
// certain, the walk waits while the operator shows progress, and only no
// progress for the quiet window, or the operator timeout, makes it act on
// the deadlock; the CRD appearing ends the wait as no deadlock; a certain
// proof waits for nothing. Each ends at the moment the rule says, to the
// read.
func TestWalkerWaitsForAnOperatorDecisionTable(t *testing.T) {
	tests := []waitCase{
		{name: "progress keeps it waiting until the CRD appears (90 s)", read: objects(everyTen), crdAt: 90 * time.Second,
			want: WaitCRDsAppeared, wantAt: 90 * time.Second},
		{name: "an operator that creates the CRD within the first poll costs no read (the seed's cdi-operator, 2 s)", read: objects(quiet), crdAt: 2 * time.Second,
			want: WaitCRDsAppeared, wantAt: 2 * time.Second, noReads: true},
		{name: "a silent operator that creates the CRD at 20 s is within the quiet window", read: objects(quiet), crdAt: 20 * time.Second,
			want: WaitCRDsAppeared, wantAt: 20 * time.Second},
		{name: "no progress for the quiet window ends the wait", read: objects(quiet),
			want: WaitNoProgress, wantAt: 30 * time.Second, wantWords: []string{"no progress for 30s, treated as deadlocked", "no progress seen since the wait began", "a CDI.cdi.kubevirt.io object exists (cdi, trigger from standup.yaml)"}},
		{name: "the quiet window runs from the last progress", read: objects(func(e time.Duration) []ObjectProgress { return everyTen(min(e, 20*time.Second)) }),
			want: WaitNoProgress, wantAt: 50 * time.Second, wantWords: []string{"last progress 30s ago: CDI cdi: Progressing=True (Installing: step 2 of 9)"}},
		{name: "a shorter quiet window", opts: Options{OperatorQuiet: 3 * time.Second}, read: objects(quiet),
			want: WaitNoProgress, wantAt: 3 * time.Second, wantWords: []string{"no progress for 3s"}},
		{name: "the operator timeout caps a wait with progress", read: objects(everyTen),
			want: WaitOperatorTimeout, wantAt: 2 * time.Minute, wantWords: []string{"the operator was still not done after 2m0s (the operator timeout: the default), treated as deadlocked", "last progress"}},
		{name: "the trigger's declared timeout", trigger: crds.Trigger{Kind: cdiGK, From: "the catalog's cdi entry", Timeout: 5 * time.Minute}, read: objects(everyTen),
			want: WaitOperatorTimeout, wantAt: 5 * time.Minute, wantWords: []string{"after 5m0s (the operator timeout: CDI.cdi.kubevirt.io's, from the catalog's cdi entry)"}},
		{name: "--operator-timeout overrides the declaration", opts: Options{OperatorTimeout: 45 * time.Second}, trigger: crds.Trigger{Kind: cdiGK, From: "standup.yaml", Timeout: 5 * time.Minute}, read: objects(everyTen),
			want: WaitOperatorTimeout, wantAt: 45 * time.Second, wantWords: []string{"after 45s (the operator timeout: --operator-timeout)"}},
		{name: "the wait does not count against the node's timeout", opts: Options{Timeout: time.Minute}, read: objects(everyTen), crdAt: 100 * time.Second,
			want: WaitCRDsAppeared, wantAt: 100 * time.Second},
		{name: "a Crossplane package Installed and not yet Healthy is progress at every read", trigger: crds.Trigger{Kind: providerGK, From: "standup.yaml"},
			read: objects(func(time.Duration) []ObjectProgress {
				return []ObjectProgress{object(providerGK, "provider-aws", "Installed=True/ActivePackageRevision/", "Healthy=Unknown/UnknownPackageRevisionHealth/")}
			}),
			crdAt: 80 * time.Second, want: WaitCRDsAppeared, wantAt: 80 * time.Second},
		{name: "a Crossplane package whose revision is unhealthy is no progress", trigger: crds.Trigger{Kind: providerGK, From: "standup.yaml"},
			read: objects(func(time.Duration) []ObjectProgress {
				return []ObjectProgress{object(providerGK, "provider-aws", "Installed=True/ActivePackageRevision/", `Healthy=False/UnhealthyPackageRevision/Package revision health is "False" with message: cannot establish control of object`)}
			}),
			want: WaitNoProgress, wantAt: 30 * time.Second},
		{name: "the operator's Deployment rolling out is progress", trigger: crds.Trigger{Kind: cdiGK, From: "the catalog's cdi entry", Operator: "cdi/cdi-operator"},
			read: func(t ProgressTarget, e time.Duration) ProgressFact {
				if t.Deployment == "" {
					return ProgressFact{Objects: quiet(e)}
				}
				return ProgressFact{Objects: []ObjectProgress{deployment(int64(min(e, 20*time.Second)/(10*time.Second)), "True/ReplicaSetUpdated")}}
			},
			want: WaitNoProgress, wantAt: 50 * time.Second, wantWords: []string{"Deployment cdi/cdi-operator: 2/3 updated"}},
		{name: "a rollout past its deadline is no progress", trigger: crds.Trigger{Kind: cdiGK, From: "the catalog's cdi entry", Operator: "cdi/cdi-operator"},
			read: func(t ProgressTarget, e time.Duration) ProgressFact {
				if t.Deployment == "" {
					return ProgressFact{Objects: quiet(e)}
				}
				return ProgressFact{Objects: []ObjectProgress{deployment(int64(e/(10*time.Second)), "False/ProgressDeadlineExceeded")}}
			},
			want: WaitNoProgress, wantAt: 30 * time.Second},
		{name: "reads refused: the quiet window alone", read: func(ProgressTarget, time.Duration) ProgressFact { return ProgressFact{Refused: true} },
			want: WaitNoProgress, wantAt: 30 * time.Second, wantWords: []string{`forbidden: standup needs "list" on CDI.cdi.kubevirt.io to see its progress`}},
		{name: "a certain proof waits for nothing", fact: func(f *TriggerFact) { f.Object = "" }, read: objects(everyTen),
			want: WaitCertain, wantAt: 0, wantWords: []string{"no CDI.cdi.kubevirt.io object exists"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := playWait(t, tc)
			if got.wait == nil || got.wait.Ended != tc.want || got.at != tc.wantAt {
				t.Fatalf("ended %+v at %s, want %s at %s (proof %+v)", got.wait, got.at, tc.want, tc.wantAt, got.proof)
			}
			if time.Duration(got.wait.Waited) != tc.wantAt {
				t.Errorf("waited %s, want %s", time.Duration(got.wait.Waited), tc.wantAt)
			}
			wantKind := map[WaitEnd]ProofKind{WaitCertain: ProofCertain, WaitNoProgress: ProofNoProgress, WaitOperatorTimeout: ProofOperatorTimeout}[tc.want]
			if (got.proof == nil) != (wantKind == "") || got.proof != nil && got.proof.Kind != wantKind {
				t.Fatalf("proof %+v, want %q", got.proof, wantKind)
			}
			for _, word := range tc.wantWords {
				if !strings.Contains(got.proof.Reason, word) {
					t.Errorf("proof reason %q does not say %q", got.proof.Reason, word)
				}
			}
			// The reads are bounded: each target at most once per poll,
			// and none at all for a certain proof.
			quietWindow := cmpOr(tc.opts.OperatorQuiet, DefaultOperatorQuiet)
			for target, n := range got.reads {
				if limit := int(tc.wantAt/pollEvery(quietWindow)) + 1; n > limit {
					t.Errorf("%s read %d times in %s, more than once per %s", target, n, tc.wantAt, pollEvery(quietWindow))
				}
			}
			if (tc.want == WaitCertain || tc.noReads) && len(got.reads) > 0 {
				t.Errorf("progress read although the wait ended first: %v", got.reads)
			}
		})
	}
}

func cmpOr(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// TestWalkerSummaryNamesEveryWaitsEnd: the summary lists each wait for an
// operator with the evidence that ended it.
func TestWalkerSummaryNamesEveryWaitsEnd(t *testing.T) {
	got := playWait(t, waitCase{read: objects(quiet)})
	if got.wait == nil || got.wait.Ended != WaitNoProgress || time.Duration(got.wait.Quiet) != DefaultOperatorQuiet || time.Duration(got.wait.Timeout) != DefaultOperatorTimeout {
		t.Fatalf("wait %+v", got.wait)
	}
}

// TestProgressOfObjects: what one read of a trigger object or an
// operator's Deployment says, from the conditions operators write.
func TestProgressOfObjects(t *testing.T) {
	tests := []struct {
		name             string
		got              ObjectProgress
		working, stalled bool
	}{
		{name: "plain conditions", got: object(cdiGK, "cdi", "Available=False/Deploying/")},
		{name: "kstatus Reconciling", got: object(cdiGK, "cdi", "Reconciling=True/Progressing/"), working: true},
		{name: "kstatus Stalled", got: object(cdiGK, "cdi", "Reconciling=True/Progressing/", "Stalled=True/InvalidSpec/"), stalled: true},
		{name: "Crossplane unpacking", got: object(providerGK, "p", "Installed=False/UnpackingPackage/")},
		{name: "Crossplane installed, health unknown", got: object(providerGK, "p", "Installed=True/ActivePackageRevision/", "Healthy=Unknown/UnknownPackageRevisionHealth/"), working: true},
		{name: "Crossplane installed, revision health unknown yet", got: object(providerGK, "p", "Installed=True/ActivePackageRevision/", `Healthy=False/UnhealthyPackageRevision/Package revision health is "Unknown"`), working: true},
		{name: "Crossplane runtime unhealthy", got: object(providerGK, "p", "Installed=True/ActivePackageRevision/", `Healthy=False/UnhealthyPackageRevision/Package runtime health is "False"`), stalled: true},
		{name: "Crossplane healthy", got: object(providerGK, "p", "Installed=True/ActivePackageRevision/", "Healthy=True/HealthyPackageRevision/")},
		{name: "Crossplane signature failed", got: object(providerGK, "p", "Installed=False/AwaitingSignatureVerification/", "Verified=False/SignatureVerificationFailed/"), stalled: true},
		{name: "not Crossplane's group", got: object(cdiGK, "p", "Installed=True/ActivePackageRevision/", "Healthy=Unknown//")},
		{name: "Deployment rolling", got: deployment(1, "True/ReplicaSetUpdated")},
		{name: "Deployment past its deadline", got: deployment(1, "False/ProgressDeadlineExceeded"), stalled: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.got.Progress
			if (p.Working != "") != tt.working || (p.Stalled != "") != tt.stalled || p.Fingerprint == "" {
				t.Errorf("progress %+v, want working %t, stalled %t", p, tt.working, tt.stalled)
			}
		})
	}
	// Reordered conditions are the same fingerprint; a new message is not.
	a := object(cdiGK, "cdi", "A=True/R/m", "B=False/R/m").Progress.Fingerprint
	if b := object(cdiGK, "cdi", "B=False/R/m", "A=True/R/m").Progress.Fingerprint; a != b {
		t.Errorf("reordered conditions moved the fingerprint: %q, %q", a, b)
	}
	if c := object(cdiGK, "cdi", "A=True/R/m2", "B=False/R/m").Progress.Fingerprint; a == c {
		t.Error("a new message left the fingerprint as it was")
	}
}
