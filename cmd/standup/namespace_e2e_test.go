package main

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/wait"
)

// TestResumeNamespaceWaitsOnOutsideDependency: `resume -n apps` walks
// apps's Kustomizations and waits on what they depend on in infra without
// touching it. -n narrows what is walked, never what is watched: a walk
// that listed apps alone would not see infra/join and infra/side, would
// take them for ready, and would reconcile apps's nodes while their
// dependencies are suspended. The API server's audit log is the witness:
// standup writes nothing while infra is suspended, and never writes to
// infra.
func TestResumeNamespaceWaitsOnOutsideDependency(t *testing.T) {
	// The operator's resume of infra leaves its chain to Flux alone, which
	// re-checks a dependency every --requeue-dependency: 2 s, not 30.
	g := newGraph8(true)
	w := sharedWorld(t, testenv.Options{ControllerArgs: []string{"--requeue-dependency=2s"}}, g.namespaces()...)
	createGraph(t, w, g)
	apps, infra := g.apps, g.infra
	ctx := context.Background()
	spec := runSpec{kubeconfig: w.Kubeconfig}

	// The plan says the same: apps's nodes resumed, infra's waited on.
	plan := runWith(ctx, t, spec, "resume", "-n", apps, "--dry-run", "-o", "json")
	if plan.Code != ExitOK {
		t.Fatalf("--dry-run: exit %d: %v", plan.Code, plan.Err)
	}
	steps := map[string]wait.PlanStep{}
	sc := bufio.NewScanner(strings.NewReader(plan.Stdout))
	for sc.Scan() {
		var s wait.PlanStep
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("plan line %q: %v", sc.Text(), err)
		}
		steps[s.Node.NamespacedName()] = s
	}
	for _, k := range g.kss {
		s, ok := steps[k.Namespace+"/"+k.Name]
		switch {
		case !ok:
			t.Errorf("the plan leaves out %s/%s, which apps needs", k.Namespace, k.Name)
		case k.Namespace == apps && (s.Passive || s.Action != "resume+reconcile"):
			t.Errorf("plan for %s/%s: %+v, want resume+reconcile", k.Namespace, k.Name, s)
		case k.Namespace == infra && (!s.Passive || s.Action != "none"):
			t.Errorf("plan for %s/%s: %+v, want passive, none", k.Namespace, k.Name, s)
		}
	}

	wit := witnessFrom(t, w)
	var mu sync.Mutex
	waiting := map[string]string{} // node -> the dependency it waits on
	spec.onEvent = func(e wait.Event) {
		if e.Type == wait.EventNode && e.Reason == meta.DependencyNotReadyReason {
			mu.Lock()
			waiting[e.Node.NamespacedName()] = e.Message
			mu.Unlock()
		}
	}
	bg := goRun(ctx, t, spec, "resume", "-n", apps, "-o", "json")
	// Every node the walk may write is judged with infra suspended in view,
	// and held back: web and worker on infra, frontend and edge on them.
	// A walk that did not wait would have requested web and worker in the
	// Step that judged them, instead of reporting them waiting; and a Step
	// that holds every node back has no write to send.
	deadline := time.Now().Add(time.Minute)
	for {
		mu.Lock()
		held := strings.Contains(waiting[apps+"/web"], infra+"/") && strings.Contains(waiting[apps+"/worker"], infra+"/") &&
			waiting[apps+"/frontend"] != "" && waiting[apps+"/edge"] != ""
		mu.Unlock()
		if held {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s's nodes never all reported waiting (web and worker on %s):\n%s", apps, infra, tailLines(bg.out.String(), 40))
		}
		time.Sleep(100 * time.Millisecond)
	}
	wit.assertNoWrites(t)

	// An operator resumes infra, as flux resume ks -n infra --all does.
	for _, k := range g.kss {
		if k.Namespace == infra {
			resumeAsOperator(t, w, k)
		}
	}
	res := bg.await(t, 3*time.Minute)
	if res.Code != ExitOK {
		t.Fatalf("resume -n apps: exit %d: %v", res.Code, res.Err)
	}
	evs := events(t, res.Stdout)
	for _, e := range evs {
		if e.Node != nil && e.Node.Namespace != apps {
			t.Errorf("an event for %s, outside apps: %+v", e.Node, e)
		}
	}
	if s := summaryOf(t, evs); s.Total != 4 || s.Ready != 4 {
		t.Errorf("summary %+v, want apps's 4 nodes ready", s)
	}
	writes := wit.assertNothingLost(t)
	for _, e := range writes {
		if e.ObjectRef == nil || e.ObjectRef.Namespace != apps {
			t.Errorf("standup wrote outside apps: %s %s", e.Verb, e.RequestURI)
		}
	}
	// Nothing while infra was suspended, over the whole of it: the API
	// server received every write of standup's after the operator's first
	// resume of infra.
	resumed, ok := firstResume(wit.events(t), infra)
	if !ok {
		t.Fatalf("the audit log holds no resume of %s by the operator", infra)
	}
	for _, e := range writes {
		if !e.RequestReceivedTimestamp.After(resumed.Time) {
			t.Errorf("standup wrote while %s was suspended: %s %s at %s, the operator resumed it at %s",
				infra, e.Verb, e.RequestURI, e.RequestReceivedTimestamp.Format(time.StampMicro), resumed.Format(time.StampMicro))
		}
	}
	if len(writes) < 4 {
		t.Errorf("%d writes by standup, want at least one per apps node", len(writes))
	}
	for _, k := range g.kss {
		if ks := getKS(t, w, k.Namespace, k.Name); !isReady(ks) || ks.Spec.Suspend {
			t.Errorf("%s/%s not Ready and resumed: suspend=%v conditions=%v", k.Namespace, k.Name, ks.Spec.Suspend, ks.Status.Conditions)
		}
	}
}

// firstResume returns when the API server received the first patch of a
// Kustomization in ns, by a client other than standup, that resumed it:
// the operator's (resumeAsOperator). Its merge patch sets spec.suspend to
// null, the typed client leaving out a false suspend, or to false.
func firstResume(log []auditv1.Event, ns string) (metav1.MicroTime, bool) {
	for _, e := range log {
		ref := e.ObjectRef
		if e.UserAgent == standupAgent || e.Verb != "patch" || ref == nil || ref.Namespace != ns ||
			ref.Resource != "kustomizations" || ref.Subresource != "" || e.RequestObject == nil {
			continue
		}
		var patch struct {
			Spec map[string]json.RawMessage `json:"spec"`
		}
		if json.Unmarshal(e.RequestObject.Raw, &patch) != nil {
			continue
		}
		if suspend, ok := patch.Spec["suspend"]; ok && (string(suspend) == "null" || string(suspend) == "false") {
			return e.RequestReceivedTimestamp, true
		}
	}
	return metav1.MicroTime{}, false
}

// resumeAsOperator resumes k and asks for a reconcile, as the flux CLI
// does, with the test's own client: not standup.
func resumeAsOperator(t *testing.T, w *testenv.World, k testenv.KS) {
	t.Helper()
	ks := getKS(t, w, k.Namespace, k.Name)
	base := ks.DeepCopy()
	ks.Spec.Suspend = false
	if ks.Annotations == nil {
		ks.Annotations = map[string]string{}
	}
	ks.Annotations[meta.ReconcileRequestAnnotation] = time.Now().Format(time.RFC3339Nano)
	if err := w.Client.Patch(context.Background(), ks, client.MergeFrom(base)); err != nil {
		t.Fatalf("resume %s/%s: %v", k.Namespace, k.Name, err)
	}
}
