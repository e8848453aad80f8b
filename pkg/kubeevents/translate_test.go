package kubeevents

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

var (
	t0       = time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)
	infra    = tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: "infra"}
	apps     = tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: "apps"}
	podinfo  = tiers.ID{Kind: "HelmRelease", Namespace: "apps", Name: "podinfo"}
	uidsSeen = map[tiers.ID]types.UID{infra: "uid-infra", CRDID("storageprofiles.cdi.kubevirt.io"): "uid-crd"}
)

func node(id tiers.ID, tier int) wait.Event {
	return wait.Event{Time: t0, Type: wait.EventNode, Node: &id, Tier: tier, Phase: wait.PhasePending}
}

func action(id tiers.ID, kind wait.ActionKind, reason string, applied ...string) wait.Event {
	return wait.Event{Time: t0, Type: wait.EventAction, Node: &id, Action: string(kind), Reason: reason, Message: "m", Applied: applied}
}

func diagnosis(id tiers.ID, proof *wait.Proof) wait.Event {
	return wait.Event{Time: t0, Type: wait.EventDiagnosis, Node: &id, Tier: 1, Reason: "Deadlock", Message: "dry-run failed", Proof: proof}
}

// short is a Notice as the table below writes it.
type short struct {
	regarding, related string
	typ, reason, act   string
	uid                types.UID
}

func shorten(ns []Notice) []short {
	var out []short
	for _, n := range ns {
		s := short{regarding: n.Regarding.APIVersion + " " + n.Regarding.Kind + "/" + n.Regarding.Namespace + "/" + n.Regarding.Name,
			typ: n.Type, reason: n.Reason, act: n.Action, uid: n.Regarding.UID}
		if n.Related != nil {
			s.related = n.Related.Kind + "/" + n.Related.Name
		}
		out = append(out, s)
	}
	return out
}

const (
	ksAPI  = "kustomize.toolkit.fluxcd.io/v1"
	hrAPI  = "helm.toolkit.fluxcd.io/v2"
	crdAPI = "apiextensions.k8s.io/v1"
)

func TestTranslatorWalk(t *testing.T) {
	tests := []struct {
		name string
		in   wait.Event
		want []short
	}{
		{"progress posts nothing", node(apps, 1), nil},
		{"resumed", action(infra, wait.ActionReconcile, "Resumed"),
			[]short{{regarding: ksAPI + " Kustomization/flux-system/infra", typ: corev1.EventTypeNormal, reason: ReasonResumed, act: ActionResume, uid: "uid-infra"}}},
		{"reconcile requested, a HelmRelease", action(podinfo, wait.ActionReconcile, "Requested"),
			[]short{{regarding: hrAPI + " HelmRelease/apps/podinfo", typ: corev1.EventTypeNormal, reason: ReasonReconcileRequested, act: ActionReconcile}}},
		{"request refused", action(apps, wait.ActionReconcile, "Failed"),
			[]short{{regarding: ksAPI + " Kustomization/flux-system/apps", typ: corev1.EventTypeWarning, reason: ReasonRequestFailed, act: ActionReconcile}}},
		{"suspected", diagnosis(apps, nil),
			[]short{{regarding: ksAPI + " Kustomization/flux-system/apps", typ: corev1.EventTypeWarning, reason: ReasonDeadlockSuspected, act: ActionDiagnose}}},
		{"proven: certain only", diagnosis(apps, &wait.Proof{Kind: wait.ProofCertain}),
			[]short{{regarding: ksAPI + " Kustomization/flux-system/apps", typ: corev1.EventTypeWarning, reason: ReasonDeadlockProven, act: ActionDiagnose}}},
		{"no progress is assumed, never proven", diagnosis(apps, &wait.Proof{Kind: wait.ProofNoProgress}),
			[]short{{regarding: ksAPI + " Kustomization/flux-system/apps", typ: corev1.EventTypeWarning, reason: ReasonDeadlockAssumed, act: ActionDiagnose}}},
		{"operator timeout is assumed", diagnosis(apps, &wait.Proof{Kind: wait.ProofOperatorTimeout}),
			[]short{{regarding: ksAPI + " Kustomization/flux-system/apps", typ: corev1.EventTypeWarning, reason: ReasonDeadlockAssumed, act: ActionDiagnose}}},
		{"pre-applied: on the node and on each CRD", action(apps, wait.ActionPreApplyCRDs, "Applied", "storageprofiles.cdi.kubevirt.io", "cdis.cdi.kubevirt.io"),
			[]short{
				{regarding: ksAPI + " Kustomization/flux-system/apps", typ: corev1.EventTypeNormal, reason: ReasonCRDsPreApplied, act: ActionPreApply},
				{regarding: crdAPI + " CustomResourceDefinition//storageprofiles.cdi.kubevirt.io", related: "Kustomization/apps", typ: corev1.EventTypeNormal, reason: ReasonPreApplied, act: ActionPreApply, uid: "uid-crd"},
				{regarding: crdAPI + " CustomResourceDefinition//cdis.cdi.kubevirt.io", related: "Kustomization/apps", typ: corev1.EventTypeNormal, reason: ReasonPreApplied, act: ActionPreApply},
			}},
		{"pre-apply refused", action(apps, wait.ActionPreApplyCRDs, "Failed"),
			[]short{{regarding: ksAPI + " Kustomization/flux-system/apps", typ: corev1.EventTypeWarning, reason: ReasonPreApplyFailed, act: ActionPreApply}}},
		{"nothing to apply is still said on the node", action(apps, wait.ActionPreApplyCRDs, "NothingToApply"),
			[]short{{regarding: ksAPI + " Kustomization/flux-system/apps", typ: corev1.EventTypeNormal, reason: ReasonCRDsPreApplied, act: ActionPreApply}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTranslator(func(id tiers.ID) types.UID { return uidsSeen[id] })
			got := shorten(tr.Walk(tt.in))
			if len(got) != len(tt.want) {
				t.Fatalf("got %d notices %+v, want %d %+v", len(got), got, len(tt.want), tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("notice %d:\n got %+v\nwant %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestTranslatorNotesSayWhatHappened(t *testing.T) {
	tr := NewTranslator(nil)
	assumed := tr.Walk(diagnosis(apps, &wait.Proof{Kind: wait.ProofNoProgress}))[0].Note
	if strings.Contains(assumed, "proved") || !strings.Contains(assumed, "not proven") || !strings.Contains(assumed, "no-progress") {
		t.Errorf("a deadlock acted on without certainty reads %q", assumed)
	}
	proven := tr.Walk(diagnosis(apps, &wait.Proof{Kind: wait.ProofCertain}))[0].Note
	if !strings.Contains(proven, "proof: certain") {
		t.Errorf("a certain proof reads %q", proven)
	}
	crd := tr.Walk(action(apps, wait.ActionPreApplyCRDs, "Applied", "x.example.com"))[1].Note
	if !strings.Contains(crd, apps.String()) {
		t.Errorf("a CRD's Event does not name the Kustomization it unblocks: %q", crd)
	}
}

func TestTranslatorFinished(t *testing.T) {
	walked := func(tr *Translator) {
		tr.Walk(node(infra, 0))
		tr.Walk(node(apps, 1))
		tr.Walk(node(podinfo, 2))
	}
	tests := []struct {
		name    string
		actedOn []tiers.ID
		summary wait.Summary
		want    []short
	}{
		{"nothing acted on, nothing posted", nil, wait.Summary{Ready: 3, Total: 3}, nil},
		{"finished: on the lowest tier acted on", []tiers.ID{apps, podinfo}, wait.Summary{Ready: 3, Total: 3},
			[]short{{regarding: ksAPI + " Kustomization/flux-system/apps", typ: corev1.EventTypeNormal, reason: ReasonWalkFinished, act: ActionWalk}}},
		{"gave up: on the failed node and the lowest tier", []tiers.ID{infra, apps}, wait.Summary{Ready: 1, Failed: 1, Blocked: 1, Total: 3, Deadlocked: []tiers.ID{apps}, FailedNodes: []tiers.ID{apps}},
			[]short{
				{regarding: ksAPI + " Kustomization/flux-system/apps", typ: corev1.EventTypeWarning, reason: ReasonWalkGaveUp, act: ActionWalk},
				{regarding: ksAPI + " Kustomization/flux-system/infra", typ: corev1.EventTypeWarning, reason: ReasonWalkGaveUp, act: ActionWalk},
			}},
		{"interrupted is no finish", []tiers.ID{infra}, wait.Summary{Ready: 1, Pending: 2, Total: 3, Interrupted: true},
			[]short{{regarding: ksAPI + " Kustomization/flux-system/infra", typ: corev1.EventTypeWarning, reason: ReasonWalkGaveUp, act: ActionWalk}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTranslator(nil)
			walked(tr)
			for _, id := range tt.actedOn {
				tr.Walk(action(id, wait.ActionReconcile, "Requested"))
			}
			got := shorten(tr.Finished(tt.summary, t0))
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("notice %d:\n got %+v\nwant %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestTruncateNote(t *testing.T) {
	long := strings.Repeat("é", noteLimit)
	got := truncateNote(long)
	if len(got) > noteLimit || !strings.HasSuffix(got, "(cut)") {
		t.Errorf("cut to %d bytes, ending %q", len(got), got[len(got)-10:])
	}
	if s := "short"; truncateNote(s) != s {
		t.Errorf("a short note was changed")
	}
}

// TestBlanketCreated: crds --all posts one PreApplied Event per CRD it
// created, on the CRD, naming no Kustomization, and none for nothing.
func TestBlanketCreated(t *testing.T) {
	if got := BlanketCreated(nil, t0); len(got) != 0 {
		t.Errorf("nothing created: got %+v", got)
	}
	got := BlanketCreated([]string{"cogs.example.com", "gizmos.example.com"}, t0)
	want := []short{
		{regarding: crdAPIVersion + " " + crdKind + "//cogs.example.com", typ: corev1.EventTypeNormal, reason: ReasonPreApplied, act: ActionPreApply},
		{regarding: crdAPIVersion + " " + crdKind + "//gizmos.example.com", typ: corev1.EventTypeNormal, reason: ReasonPreApplied, act: ActionPreApply},
	}
	if s := shorten(got); !slices.Equal(s, want) {
		t.Errorf("got %+v\nwant %+v", s, want)
	}
	if !strings.Contains(got[0].Note, "--all") || !got[0].Time.Equal(t0) {
		t.Errorf("note %q at %s: want it to name crds --all, at t0", got[0].Note, got[0].Time)
	}
}
