package main

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/wait"
)

// The proof scene: an operator, simulated, creates the CRD of Cog once a
// Gizmo exists, the way cdi-operator creates StorageProfile's once a CDI
// exists. Kustomization stuck applies a Gizmo and a Cog in one pass, so on
// a cold cluster its dry-run fails on Cog and the Gizmo is never applied;
// after waits on stuck. standup.yaml declares the trigger.
const (
	gizmosCRD  = "gizmos.example.com"
	cogsCRD    = "cogs.example.com"
	proofStuck = "stuck"
	proofYAML  = "runtimeCRDs:\n  - trigger: {group: example.com, kind: Gizmo}\n    kinds: [{group: example.com, kind: Cog}]\n"
)

var gizmosGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gizmos"}

// exampleCRD is widgetCRD under another kind.
func exampleCRD(t *testing.T, plural, kind string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	text := strings.NewReplacer("widgets", plural, "Widget", kind, "singular: widget", "singular: "+strings.ToLower(kind)).Replace(widgetCRD)
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict([]byte(text), crd); err != nil {
		t.Fatal(err)
	}
	return crd
}

// proofWorld is one turn of the proof scene.
type proofWorld struct {
	w              *testenv.World
	ns             string
	config, bundle string
	cogs           *apiextensionsv1.CustomResourceDefinition
}

// sceneState is the state the proof scene starts in.
type sceneState int

const (
	// cold: the Kustomizations suspended, as on a cold start, so that the
	// first dry-run failure answers standup's own request.
	cold sceneState = iota
	// stuckByFlux: Flux alone has failed stuck's dry-run (what crds repairs).
	stuckByFlux
)

// newProofWorld lends t a world holding the scene in state; the Gizmo CRD
// is installed (the operator's own), Cog's is not. withGizmo also creates a
// Gizmo before the Kustomizations exist.
func newProofWorld(t *testing.T, state sceneState, withGizmo bool) proofWorld {
	t.Helper()
	ctx := context.Background()
	p := proofWorld{ns: testenv.UniqueName("proof"), cogs: exampleCRD(t, "cogs", "Cog")}
	p.w = sharedWorld(t, testenv.Options{}, p.ns)
	gizmos := exampleCRD(t, "gizmos", "Gizmo")
	if err := p.w.Client.Create(ctx, gizmos); err != nil {
		t.Fatal(err)
	}
	if err := p.w.WaitCRDEstablished(ctx, gizmosCRD); err != nil {
		t.Fatal(err)
	}
	if withGizmo {
		g := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Gizmo", "metadata": map[string]any{"name": "existing", "namespace": p.ns},
		}}
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			// A CRD just established may take a moment more to be served.
			_, err := p.w.Dynamic.Resource(gizmosGVR).Namespace(p.ns).Create(ctx, g, metav1.CreateOptions{})
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal(err)
			}
		}
	}
	cogYAML, err := yaml.Marshal(p.cogs)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p.config = filepath.Join(writeTree(t, dir, map[string]string{"standup.yaml": proofYAML}), "standup.yaml")
	p.bundle = filepath.Join(writeTree(t, dir, map[string]string{"bundle/cogs.yaml": string(cogYAML)}), "bundle")
	repo := writeTree(t, t.TempDir(), map[string]string{
		"stuck/gizmo.yaml": "apiVersion: example.com/v1\nkind: Gizmo\nmetadata:\n  name: g\n  namespace: " + p.ns + "\n",
		"stuck/cog.yaml":   "apiVersion: example.com/v1\nkind: Cog\nmetadata:\n  name: c\n  namespace: " + p.ns + "\n",
		"after/cm.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: after\n  namespace: " + p.ns + "\n",
	})
	publish(t, p.w, p.ns, repo)
	suspended := state == cold
	create(t, p.w,
		testenv.KS{Namespace: p.ns, Name: proofStuck, Path: "./stuck", Suspend: suspended},
		testenv.KS{Namespace: p.ns, Name: "after", Path: "./after", Suspend: suspended, DependsOn: []meta.NamespacedObjectReference{testenv.Dep("", proofStuck)}})
	if state == stuckByFlux {
		waitStuckOn(t, p.w, p.ns, proofStuck, "Cog")
	}
	return p
}

// startOperator runs the simulated operator: delay after a Gizmo appears,
// it creates Cog's CRD.
func (p proofWorld) startOperator(delay time.Duration) *testenv.RuntimeCRDOperator {
	op := &testenv.RuntimeCRDOperator{Trigger: gizmosGVR, CRDs: []*apiextensionsv1.CustomResourceDefinition{p.cogs}, Delay: delay}
	p.w.StartOperator(op)
	return op
}

// waitStuckOn waits until Flux alone has failed ns/name's dry-run on kind.
func waitStuckOn(t *testing.T, w *testenv.World, ns, name, kind string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		ks := &kustomizev1Kustomization{}
		if err := w.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, ks); err == nil {
			if c := readyCondition(ks); c != nil && strings.Contains(c.Message, `no matches for kind "`+kind+`"`) {
				return
			}
		}
	}
	t.Fatalf("%s/%s never failed its dry-run on %s", ns, name, kind)
}

// proofRole is docs/rbac.yaml's standup-operator, plus, when grant is set,
// list on the scene's trigger kind, as the role's comment says to add a
// standup.yaml trigger.
func proofRole(t *testing.T, grant bool) *rbacv1.ClusterRole {
	t.Helper()
	roles, _ := rbacRoles(t)
	role := roles["standup-operator"].DeepCopy()
	role.Name = "standup-operator-proof-without-gizmos"
	if grant {
		role.Name = "standup-operator-proof"
		role.Rules = append(role.Rules, rbacv1.PolicyRule{APIGroups: []string{"example.com"}, Resources: []string{"gizmos"}, Verbs: []string{"list"}})
	}
	return role
}

// diagnoses returns the suspected diagnosis event of a walk, and the one
// that ended the wait for an operator with a proof (certain, or not).
func diagnoses(evs []wait.Event) (suspected, decided *wait.Event) {
	for i, e := range evs {
		switch {
		case e.Type != wait.EventDiagnosis:
		case strings.HasPrefix(e.Message, "suspected") && suspected == nil:
			suspected = &evs[i]
		case e.Proof != nil && decided == nil:
			decided = &evs[i]
		}
	}
	return suspected, decided
}

// assertNoFalseProof checks that "proven" is said only of a certain proof.
func assertNoFalseProof(t *testing.T, evs []wait.Event) {
	t.Helper()
	for _, e := range evs {
		said := strings.Contains(e.Message, "deadlock proven")
		if said && (e.Proof == nil || e.Proof.Kind != wait.ProofCertain) {
			t.Errorf("%s event says proven without a certain proof: %s", e.Type, e.Message)
		}
	}
}

// assertRepaired checks that the walk converged, having pre-applied Cog's
// CRD for stuck, and that the Kustomizations named are Ready.
func (p proofWorld) assertRepaired(t *testing.T, res cliResult, names ...string) {
	t.Helper()
	if res.Code != ExitOK {
		t.Fatalf("exit %d: %v\n%s", res.Code, res.Err, tailLines(res.Stdout, 40))
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := p.w.Client.Get(context.Background(), client.ObjectKey{Name: cogsCRD}, crd); err != nil {
		t.Fatal(err)
	}
	if got, want := crd.Annotations[crds.PreAppliedForAnnotation], "Kustomization/"+p.ns+"/"+proofStuck; got != want {
		t.Errorf("%s pre-applied for %q, want %q", cogsCRD, got, want)
	}
	for _, name := range names {
		if ks := getKS(t, p.w, p.ns, name); !isReady(ks) {
			t.Errorf("%s/%s not Ready: %v", p.ns, name, ks.Status.Conditions)
		}
	}
}

// TestDeadlockProvenWithoutTheGraceWhenNoTriggerExists: no Gizmo exists
// and after waits on stuck, so nothing can create Cog's CRD: the failure
// of standup's own request proves the deadlock at once, with no wait for an
// operator, and the CRD is pre-applied. It
// runs under docs/rbac.yaml's standup-operator plus list on the trigger
// kind, which is what the role's comment says to grant.
func TestDeadlockProvenWithoutTheGraceWhenNoTriggerExists(t *testing.T) {
	t.Run("resume", func(t *testing.T) {
		p := newProofWorld(t, cold, false)
		op := p.startOperator(time.Second)
		res := runWith(context.Background(), t, runSpec{kubeconfig: userBoundTo(t, p.w, proofRole(t, true))},
			"resume", "--crds", p.bundle, "--config", p.config, "-o", "json")
		p.assertRepaired(t, res, proofStuck, "after")
		suspected, proven := diagnoses(events(t, res.Stdout))
		if suspected == nil || proven == nil {
			t.Fatalf("want a suspected and a proven diagnosis:\n%s", res.Stdout)
		}
		if proven.Proof == nil || proven.Proof.Kind != wait.ProofCertain {
			t.Fatalf("proof %+v, want %s", proven.Proof, wait.ProofCertain)
		}
		for _, want := range []string{"no Gizmo.example.com object exists (trigger from " + p.config + ")", "every Kustomization not Ready waits on " + p.ns + "/" + proofStuck} {
			if !strings.Contains(proven.Proof.Reason, want) {
				t.Errorf("proof reason %q does not say %q", proven.Proof.Reason, want)
			}
		}
		if proven.Wait == nil || proven.Wait.Ended != wait.WaitCertain || !strings.HasPrefix(proven.Message, "cold-start deadlock proven") {
			t.Errorf("the certain proof: wait %+v, message %q", proven.Wait, proven.Message)
		}
		took := proven.Time.Sub(suspected.Time)
		t.Logf("suspected -> proven: %s (quiet window %s)", took, wait.DefaultOperatorQuiet)
		if took > time.Second {
			t.Errorf("suspected -> proven took %s: the certain proof waits for nothing", took)
		}
		// The operator, once stuck applied the Gizmo, found its CRD there.
		if err := op.Err(); err != nil {
			t.Errorf("operator: %v", err)
		}
	})
	// crds repairs what Flux alone left stuck (after is not walked: it
	// waits for Flux's own re-check).
	t.Run("crds", func(t *testing.T) {
		p := newProofWorld(t, stuckByFlux, false)
		res := runWith(context.Background(), t, runSpec{kubeconfig: userBoundTo(t, p.w, proofRole(t, true))},
			"crds", "--crds", p.bundle, "--config", p.config)
		p.assertRepaired(t, res, proofStuck)
		if !strings.Contains(res.Stderr, "nothing can create the missing CRDs: no Gizmo.example.com object exists") {
			t.Errorf("crds does not say it proved at once:\n%s", res.Stderr)
		}
	})
}

// TestDeadlockWaitsForAnOperatorWhenATriggerExists: a Gizmo exists, so
// its operator may be about to create Cog's CRD: standup waits while it
// shows progress and says why. An operator that creates the CRD within the
// quiet window wins, and standup pre-applies nothing; with none, no
// progress for the quiet window ends the wait, and the deadlock is treated
// as one, never called proven; an operator that shows progress and never
// finishes is waited for until the operator timeout. The windows are
// shortened by the flags so that the test waits seconds, not minutes.
func TestDeadlockWaitsForAnOperatorWhenATriggerExists(t *testing.T) {
	const why = "a Gizmo.example.com object exists"
	t.Run("the operator creates the CRD within the quiet window", func(t *testing.T) {
		p := newProofWorld(t, cold, true)
		// The operator starts when standup suspects the deadlock, so that
		// the CRD comes inside the wait and not before the walk.
		var once sync.Once
		spec := runSpec{kubeconfig: p.w.Kubeconfig, onEvent: func(e wait.Event) {
			if e.Type == wait.EventDiagnosis && strings.HasPrefix(e.Message, "suspected") {
				once.Do(func() { p.startOperator(time.Second) })
			}
		}}
		res := runWith(context.Background(), t, spec, "resume", "--crds", p.bundle, "--config", p.config, "-o", "json")
		if res.Code != ExitOK {
			t.Fatalf("exit %d: %v\n%s", res.Code, res.Err, tailLines(res.Stdout, 40))
		}
		evs := events(t, res.Stdout)
		suspected, decided := diagnoses(evs)
		if suspected == nil || decided != nil {
			t.Fatalf("want a suspicion and no proof:\n%s", res.Stdout)
		}
		said := false
		for _, e := range evs {
			if e.Type == wait.EventAction && e.Action == string(wait.ActionPreApplyCRDs) {
				t.Errorf("pre-applied although the operator was creating the CRD: %s", e.Message)
			}
			if e.Type == wait.EventNode && e.Reason == "SuspectedDeadlock" && strings.Contains(e.Message, why+" ("+p.ns+"/existing") {
				said = true
			}
		}
		if !said {
			t.Errorf("no node event says it waits because %s:\n%s", why, res.Stdout)
		}
		assertWaitEnded(t, evs, wait.WaitCRDsAppeared)
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := p.w.Client.Get(context.Background(), client.ObjectKey{Name: cogsCRD}, crd); err != nil {
			t.Fatal(err)
		}
		if createdByStandup(crd) {
			t.Errorf("%s was created by standup, not the operator", cogsCRD)
		}
	})
	t.Run("no operator: no progress for the quiet window", func(t *testing.T) {
		p := newProofWorld(t, cold, true)
		res := runWith(context.Background(), t, runSpec{kubeconfig: p.w.Kubeconfig},
			"resume", "--crds", p.bundle, "--config", p.config, "--operator-quiet", "3s", "-o", "json")
		p.assertRepaired(t, res, proofStuck, "after")
		assertWaitProof(t, res, wait.ProofNoProgress, 3*time.Second, why, "no progress for 3s, treated as deadlocked")
	})
	t.Run("an operator that shows progress and never finishes: the operator timeout", func(t *testing.T) {
		p := newProofWorld(t, cold, true)
		op := &testenv.RuntimeCRDOperator{Trigger: gizmosGVR, CRDs: []*apiextensionsv1.CustomResourceDefinition{p.cogs}, Delay: time.Hour, ProgressEvery: time.Second}
		p.w.StartOperator(op)
		res := runWith(context.Background(), t, runSpec{kubeconfig: p.w.Kubeconfig},
			"resume", "--crds", p.bundle, "--config", p.config, "--operator-quiet", "8s", "--operator-timeout", "12s", "-o", "json")
		p.assertRepaired(t, res, proofStuck, "after")
		assertWaitProof(t, res, wait.ProofOperatorTimeout, 12*time.Second, why, "the operator was still not done after 12s (the operator timeout: --operator-timeout)", "last progress")
		if op.Progressed() == 0 {
			t.Error("the operator never showed progress")
		}
	})
}

// TestDeadlockProofWaitsWhenForbidden: under docs/rbac.yaml's
// standup-operator alone, standup may not list the scene's trigger kind
// (the role grants the catalog's only): the walk cannot be certain, nor see
// progress, so the quiet window ends the wait, and it says which grant
// would have spared it.
func TestDeadlockProofWaitsWhenForbidden(t *testing.T) {
	p := newProofWorld(t, cold, false)
	res := runWith(context.Background(), t, runSpec{kubeconfig: userBoundTo(t, p.w, proofRole(t, false))},
		"resume", "--crds", p.bundle, "--config", p.config, "--operator-quiet", "3s", "-o", "json")
	p.assertRepaired(t, res, proofStuck, "after")
	assertWaitProof(t, res, wait.ProofNoProgress, 3*time.Second, `forbidden: standup needs "list" on gizmos.example.com`,
		`forbidden: standup needs "list" on Gizmo.example.com to see its progress`)
}

// assertWaitProof checks that the walk ended its wait for an operator
// with a proof of kind, no sooner than after after the suspicion, saying
// each of words, and that it never said proven.
func assertWaitProof(t *testing.T, res cliResult, kind wait.ProofKind, after time.Duration, words ...string) {
	t.Helper()
	evs := events(t, res.Stdout)
	assertNoFalseProof(t, evs)
	suspected, decided := diagnoses(evs)
	if suspected == nil || decided == nil {
		t.Fatalf("want a suspected and a deciding diagnosis:\n%s", res.Stdout)
	}
	if decided.Proof.Kind != kind {
		t.Fatalf("proof %+v, want %s", decided.Proof, kind)
	}
	for _, why := range words {
		if !strings.Contains(decided.Proof.Reason, why) || !strings.Contains(decided.Message, why) {
			t.Errorf("proof %q, message %q: neither may leave out %q", decided.Proof.Reason, decided.Message, why)
		}
	}
	if took := decided.Time.Sub(suspected.Time); took < after {
		t.Errorf("acted on %s after the suspicion: sooner than %s", took, after)
	}
	end := map[wait.ProofKind]wait.WaitEnd{wait.ProofNoProgress: wait.WaitNoProgress, wait.ProofOperatorTimeout: wait.WaitOperatorTimeout}[kind]
	if decided.Wait == nil || decided.Wait.Ended != end {
		t.Errorf("the deciding event's wait %+v, want ended %s", decided.Wait, end)
	}
	assertWaitEnded(t, evs, end)
}

// assertWaitEnded checks that the summary names one wait for an
// operator, ended by end.
func assertWaitEnded(t *testing.T, evs []wait.Event, end wait.WaitEnd) *wait.OperatorWait {
	t.Helper()
	for _, e := range evs {
		if e.Type == wait.EventSummary && e.Summary != nil {
			if w := e.Summary.Waits; len(w) != 1 || w[0].Ended != end {
				t.Fatalf("summary waits %+v, want one ended %s", w, end)
			}
			return &e.Summary.Waits[0]
		}
	}
	t.Fatal("no summary")
	return nil
}
