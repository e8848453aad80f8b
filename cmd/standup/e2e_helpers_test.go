package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// cliResult is what one in-process run of standup produced.
type cliResult struct {
	Stdout, Stderr string
	Err            error
	Code           int
}

// runCLI runs standup's Run against the world's kubeconfig.
func runCLI(t *testing.T, w *testenv.World, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	full := append([]string{"standup", "--kubeconfig", w.Kubeconfig}, args...)
	err := Run(ctx, full, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	code := ExitCode(err, &errOut)
	t.Logf("standup %s -> exit %d\nstderr:\n%s", strings.Join(args, " "), code, errOut.String())
	if code != ExitOK {
		t.Logf("stdout:\n%s", out.String())
	}
	return cliResult{Stdout: out.String(), Stderr: errOut.String(), Err: err, Code: code}
}

// events decodes the NDJSON events of `resume -o json`.
func events(t *testing.T, stdout string) []wait.Event {
	t.Helper()
	var out []wait.Event
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e wait.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("event %q is not JSON: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

// firstReadyAt is when each node was first reported Ready: the moment the
// dependency order is about. A node may be Ready twice: kustomize-controller
// v1.7.3 re-runs every Kustomization of a source about 3 s after it starts
// (no API write triggers it; v1.9.6 does not), parks those whose dependency
// is mid-reconcile at DependencyNotReady, and standup reopens and asks them
// again; a dependent Flux already ran stays Ready meanwhile.
func firstReadyAt(evs []wait.Event) map[tiers.ID]time.Time {
	at := map[tiers.ID]time.Time{}
	for _, e := range evs {
		if e.Type != wait.EventNode || e.Phase != wait.PhaseReady {
			continue
		}
		if _, seen := at[*e.Node]; !seen {
			at[*e.Node] = e.Time
		}
	}
	return at
}

func summaryOf(t *testing.T, evs []wait.Event) wait.Summary {
	t.Helper()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type == wait.EventSummary && evs[i].Summary != nil {
			return *evs[i].Summary
		}
	}
	t.Fatal("no summary event")
	return wait.Summary{}
}

func publish(t *testing.T, w *testenv.World, ns, dir string) string {
	t.Helper()
	rev, err := w.Artifacts.Publish(context.Background(), w.Client, ns, "repo", dir)
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

func create(t *testing.T, w *testenv.World, kss ...testenv.KS) {
	t.Helper()
	for _, k := range kss {
		if k.Source == "" {
			k.Source = "repo"
		}
		if err := w.Client.Create(context.Background(), k.Kustomization()); err != nil {
			t.Fatalf("Kustomization/%s/%s create failed: %v", k.Namespace, k.Name, err)
		}
	}
}

func listKS(t *testing.T, w *testenv.World) []kustomizev1.Kustomization {
	t.Helper()
	list := &kustomizev1.KustomizationList{}
	if err := w.Client.List(context.Background(), list); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func isReady(ks *kustomizev1.Kustomization) bool {
	return apimeta.IsStatusConditionTrue(ks.Status.Conditions, meta.ReadyCondition) && ks.Generation == ks.Status.ObservedGeneration
}

func getKS(t *testing.T, w *testenv.World, ns, name string) *kustomizev1.Kustomization {
	t.Helper()
	ks := &kustomizev1.Kustomization{}
	if err := w.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, ks); err != nil {
		t.Fatal(err)
	}
	return ks
}

type kustomizev1Kustomization = kustomizev1.Kustomization

func readyCondition(ks *kustomizev1.Kustomization) *metav1Condition {
	return apimeta.FindStatusCondition(ks.Status.Conditions, meta.ReadyCondition)
}

type metav1Condition = metav1.Condition

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitSettled waits until kustomize-controller has finished every reconcile
// a walk set off: each Kustomization Ready at its generation, its last
// reconcile request handled, and no resourceVersion moving between two
// lists. kustomize-controller v1.7 follows a resume (spec.suspend=false, a
// new generation) with a second reconcile after the one standup waited
// for, with Ready Unknown while it runs; a walk started meanwhile rightly
// asks again.
func waitSettled(t *testing.T, w *testenv.World) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	last := map[string]string{}
	for {
		settled, now := true, map[string]string{}
		for _, k := range listKS(t, w) {
			key := k.Namespace + "/" + k.Name
			now[key] = k.ResourceVersion
			handled := k.Annotations[meta.ReconcileRequestAnnotation] == "" || k.Status.LastHandledReconcileAt == k.Annotations[meta.ReconcileRequestAnnotation]
			if !isReady(&k) || !handled || last[key] != k.ResourceVersion {
				settled = false
			}
		}
		if settled && len(now) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Kustomizations did not settle within a minute: %v", now)
		}
		last = now
		time.Sleep(time.Second) // a poll's interval: two lists a second apart must agree
	}
}
