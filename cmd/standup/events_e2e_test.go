package main

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/fields"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/kubeevents"
)

// standupEvents lists standup's Events in ns as the core API serves them
// (events.k8s.io/v1 and v1 are one resource), selected as flux events
// --for Kind/NAME selects them: involvedObject.kind and .name; "" kind and
// name for every Event standup posted in ns.
func standupEvents(t *testing.T, w *testenv.World, ns, kind, name string) []corev1.Event {
	t.Helper()
	sel := []fields.Selector{fields.OneTermEqualSelector("reportingComponent", kubeevents.ReportingController)}
	if kind != "" {
		sel = append(sel, fields.OneTermEqualSelector("involvedObject.kind", kind), fields.OneTermEqualSelector("involvedObject.name", name))
	}
	list := &corev1.EventList{}
	if err := w.Client.List(context.Background(), list, client.InNamespace(ns), client.MatchingFieldsSelector{Selector: fields.AndSelectors(sel...)}); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// newEvents are the Events of evs not in before: the shared world keeps
// the Events of the tests that walked it earlier.
func newEvents(before, evs []corev1.Event) []corev1.Event {
	seen := map[string]bool{}
	for _, e := range before {
		seen[e.Namespace+"/"+e.Name] = true
	}
	return slices.DeleteFunc(slices.Clone(evs), func(e corev1.Event) bool { return seen[e.Namespace+"/"+e.Name] })
}

func reasonsOf(evs []corev1.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Reason)
	}
	return out
}

// TestEventsOfADeadlockRepair: after resume repairs the seed's deadlock,
// kubectl events --for Kustomization/platform-config lists what standup
// did there (its reconcile request, the deadlock proven, the CRDs
// pre-applied), the CRD created has its own Event, the walk's end is
// posted, each Event regarding the right object with reporting controller
// standup; a dry run posts none.
func TestEventsOfADeadlockRepair(t *testing.T) {
	w := seedCluster(t, deadlockRepo)
	stuck(t, w)
	before := standupEvents(t, w, "flux-system", "", "")
	beforeCRD := standupEvents(t, w, "default", "CustomResourceDefinition", storageCRD)
	if dry := runCLI(t, w, "resume", "--crds", seedBundle, "--dry-run"); dry.Code != ExitOK && dry.Code != ExitDeadlock {
		t.Fatalf("resume --dry-run: exit %d: %v", dry.Code, dry.Err)
	}
	if evs := newEvents(before, standupEvents(t, w, "flux-system", "", "")); len(evs) != 0 {
		t.Fatalf("a dry run posted Events: %v", reasonsOf(evs))
	}
	res := runCLI(t, w, "resume", "--crds", seedBundle)
	if res.Code != ExitOK {
		t.Fatalf("resume: exit %d: %v", res.Code, res.Err)
	}

	stuckOne := newEvents(before, standupEvents(t, w, "flux-system", "Kustomization", "platform-config"))
	reasons := reasonsOf(stuckOne)
	for _, want := range []string{kubeevents.ReasonDeadlockProven, kubeevents.ReasonCRDsPreApplied} {
		if !slices.Contains(reasons, want) {
			t.Errorf("platform-config's Events %v lack %s", reasons, want)
		}
	}
	if !slices.Contains(reasons, kubeevents.ReasonReconcileRequested) && !slices.Contains(reasons, kubeevents.ReasonResumed) {
		t.Errorf("platform-config's Events %v say nothing of the reconcile standup requested", reasons)
	}
	for _, e := range stuckOne {
		if e.InvolvedObject.APIVersion != "kustomize.toolkit.fluxcd.io/v1" || e.InvolvedObject.Namespace != "flux-system" || e.InvolvedObject.UID == "" {
			t.Errorf("%s regards %+v", e.Reason, e.InvolvedObject)
		}
		if e.ReportingController != kubeevents.ReportingController || e.Action == "" || e.Message == "" {
			t.Errorf("%s: reporting controller %q, action %q, note %q", e.Reason, e.ReportingController, e.Action, e.Message)
		}
	}

	// The CRD is cluster-scoped: its Events live in default, as
	// client-go's recorder puts them, where earlier walks of the shared
	// world may have left theirs.
	crd := newEvents(beforeCRD, standupEvents(t, w, "default", "CustomResourceDefinition", storageCRD))
	if !slices.ContainsFunc(crd, func(e corev1.Event) bool {
		return e.Reason == kubeevents.ReasonPreApplied && e.Related != nil && e.Related.Name == "platform-config" && e.InvolvedObject.Kind == "CustomResourceDefinition"
	}) {
		t.Errorf("CustomResourceDefinition/%s has no %s Event related to platform-config: %+v", storageCRD, kubeevents.ReasonPreApplied, crd)
	}

	var finished int
	for _, e := range newEvents(before, standupEvents(t, w, "flux-system", "", "")) {
		if e.Reason == kubeevents.ReasonWalkFinished {
			finished++
		}
		if e.Reason == kubeevents.ReasonWalkGaveUp {
			t.Errorf("a walk that succeeded posted %s on %s: %s", e.Reason, e.InvolvedObject.Name, e.Message)
		}
	}
	if finished == 0 {
		t.Errorf("no %s Event", kubeevents.ReasonWalkFinished)
	}

	// kubectl's own reading of them.
	out, err := exec.Command("kubectl", "--kubeconfig", w.Kubeconfig, "events", "-n", "flux-system", "--for", "Kustomization/platform-config").CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl events: %v\n%s", err, out)
	}
	for _, want := range []string{kubeevents.ReasonDeadlockProven, kubeevents.ReasonCRDsPreApplied} {
		if !strings.Contains(string(out), want) {
			t.Errorf("kubectl events --for Kustomization/platform-config does not show %s:\n%s", want, out)
		}
	}
}

// TestEventsForbiddenWarnsOnce: under the shipped operator role without
// its grants on events, the repair walk succeeds and says once that Events
// are off.
func TestEventsForbiddenWarnsOnce(t *testing.T) {
	w := seedCluster(t, deadlockRepo)
	stuck(t, w)
	roles, _ := rbacRoles(t)
	role := roles["standup-operator"].DeepCopy()
	role.Name = "standup-operator-no-events"
	role.Rules = slices.DeleteFunc(role.Rules, func(r rbacv1.PolicyRule) bool { return slices.Contains(r.APIGroups, "events.k8s.io") })
	if len(role.Rules) == len(roles["standup-operator"].Rules) {
		t.Fatal("docs/rbac.yaml's standup-operator grants nothing on events.k8s.io")
	}
	kubeconfig := userBoundTo(t, w, role)
	before := standupEvents(t, w, "flux-system", "", "")
	res := runWith(context.Background(), t, runSpec{kubeconfig: kubeconfig}, "resume", "--crds", seedBundle)
	if res.Code != ExitOK {
		t.Fatalf("resume without Events: exit %d: %v", res.Code, res.Err)
	}
	if n := strings.Count(res.Stderr, "Events are off"); n != 1 {
		t.Errorf("said %d times that Events are off:\n%s", n, res.Stderr)
	}
	if !strings.Contains(res.Stderr, "events.events.k8s.io") {
		t.Errorf("the warning does not name the grant:\n%s", res.Stderr)
	}
	if evs := newEvents(before, standupEvents(t, w, "flux-system", "", "")); len(evs) != 0 {
		t.Errorf("Events posted though forbidden: %v", reasonsOf(evs))
	}
}
