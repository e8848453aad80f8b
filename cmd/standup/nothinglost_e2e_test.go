package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/kube"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// "Nothing lost" has two witnesses: standup's own request counter (the
// `API requests:` line of -v), and kube-apiserver's audit log, which records
// every request standup's user agent sent, with the body of every write.

// standupAgent is the user agent of standup's clients (pkg/kube.RESTConfig).
const standupAgent = "standup"

// runSpec says how to run standup in-process.
type runSpec struct {
	kubeconfig string
	// onEvent sees each NDJSON event on stdout as it is written.
	onEvent func(wait.Event)
	// onErrLine sees each stderr line as it is written.
	onErrLine func(string)
}

// writers returns the stdout and stderr of a run, with spec's taps.
func (s runSpec) writers() (*lineWriter, *lineWriter) {
	out := &lineWriter{on: func(line string) {
		var e wait.Event
		if s.onEvent != nil && json.Unmarshal([]byte(line), &e) == nil {
			s.onEvent(e)
		}
	}}
	return out, &lineWriter{on: s.onErrLine}
}

// lineWriter keeps everything written and hands each complete line to on.
type lineWriter struct {
	mu      sync.Mutex
	all     bytes.Buffer
	partial []byte
	on      func(string)
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.all.Write(p)
	l.partial = append(l.partial, p...)
	var lines []string
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
	l.mu.Unlock()
	if l.on != nil {
		for _, line := range lines {
			l.on(line)
		}
	}
	return len(p), nil
}

func (l *lineWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.all.String()
}

// runWith runs standup's Run with spec's kubeconfig and taps.
func runWith(ctx context.Context, t *testing.T, spec runSpec, args ...string) cliResult {
	t.Helper()
	out, errOut := spec.writers()
	return runInto(ctx, t, spec.kubeconfig, out, errOut, args...)
}

func runInto(ctx context.Context, t *testing.T, kubeconfig string, out, errOut *lineWriter, args ...string) cliResult {
	t.Helper()
	full := append([]string{"standup", "--kubeconfig", kubeconfig}, args...)
	err := Run(ctx, full, Streams{In: strings.NewReader(""), Out: out, Err: errOut})
	code := ExitCode(err, errOut)
	t.Logf("standup %s -> exit %d\nstderr:\n%s", strings.Join(args, " "), code, tailLines(errOut.String(), 40))
	return cliResult{Stdout: out.String(), Stderr: errOut.String(), Err: err, Code: code}
}

// background is a run of standup in a goroutine.
type background struct {
	out, errOut *lineWriter
	done        chan cliResult
}

// goRun runs standup in the background.
func goRun(ctx context.Context, t *testing.T, spec runSpec, args ...string) *background {
	out, errOut := spec.writers()
	b := &background{out: out, errOut: errOut, done: make(chan cliResult, 1)}
	go func() { b.done <- runInto(ctx, t, spec.kubeconfig, out, errOut, args...) }()
	return b
}

// await waits for the run to finish; on timeout it fails the test with
// what the run printed so far.
func (b *background) await(t *testing.T, timeout time.Duration) cliResult {
	t.Helper()
	select {
	case res := <-b.done:
		return res
	case <-time.After(timeout):
		t.Fatalf("standup did not finish within %s\nstdout:\n%s\nstderr:\n%s", timeout, tailLines(b.out.String(), 60), tailLines(b.errOut.String(), 60))
		return cliResult{}
	}
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("[... %d lines]", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// apiRequests parses the `API requests: verb resource=N, ...` line that
// standup -v prints at the end of resume and crds.
func apiRequests(stderr string) (map[kube.Request]int, bool) {
	for _, line := range strings.Split(stderr, "\n") {
		rest, ok := strings.CutPrefix(line, "API requests: ")
		if !ok {
			continue
		}
		out := map[kube.Request]int{}
		for _, part := range strings.Split(rest, ", ") {
			i := strings.LastIndexByte(part, '=')
			if i < 0 {
				continue
			}
			verb, resource, _ := strings.Cut(part[:i], " ")
			n, _ := strconv.Atoi(part[i+1:])
			out[kube.Request{Verb: verb, Resource: resource}] += n
		}
		return out, true
	}
	return nil, false
}

// standupWrites are the only writes standup may send: a merge patch of a
// Kustomization, and the create of an absent CRD (never a patch of a CRD).
var standupWrites = map[string]string{"patch": "kustomizations.kustomize.toolkit.fluxcd.io", "create": "customresourcedefinitions.apiextensions.k8s.io"}

// resourceSetWrites is the one write of a walk of ResourceSets (--kinds
// rset): a merge patch of a ResourceSet's annotations.
var resourceSetWrites = map[string]string{"patch": "resourcesets.fluxcd.controlplane.io"}

// countedViolations lists what the counter shows standup must never send:
// update, delete, a patch of anything but a Kustomization, a ResourceSet
// or an Event, a create of anything but a CRD or an Event (any write at
// all when allowWrites is off).
func countedViolations(counts map[kube.Request]int, allowWrites bool) []string {
	var bad []string
	for r, n := range counts {
		switch r.Verb {
		case "get", "list", "watch":
		case "patch", "create":
			// Its own Events besides (eventOnly holds their bodies).
			if !allowWrites || (standupWrites[r.Verb] != r.Resource && resourceSetWrites[r.Verb] != r.Resource && r.Resource != "events.events.k8s.io") {
				bad = append(bad, fmt.Sprintf("%s=%d", r, n))
			}
		default:
			bad = append(bad, fmt.Sprintf("%s=%d", r, n))
		}
	}
	slices.Sort(bad)
	return bad
}

// assertCounted checks the -v counter line of a run that must print one.
func assertCounted(t *testing.T, res cliResult, allowWrites bool) map[kube.Request]int {
	t.Helper()
	counts, ok := apiRequests(res.Stderr)
	if !ok {
		t.Fatal("no `API requests:` line on stderr (run with -v)")
	}
	if bad := countedViolations(counts, allowWrites); len(bad) > 0 {
		t.Errorf("standup's own counter shows forbidden requests: %v", bad)
	}
	return counts
}

// witness reads the API server's audit log from a point on.
type witness struct {
	w *testenv.World
	// from is the log's byte offset when the witness began: a shared
	// world's log holds every earlier test's requests before it.
	from int64
}

func witnessFrom(t *testing.T, w *testenv.World) *witness {
	t.Helper()
	syncAudit(t, w)
	from, err := w.APIAuditLogSize()
	if err != nil {
		t.Fatal(err)
	}
	return &witness{w: w, from: from}
}

// syncAudit waits until every request completed so far is in w's audit log.
func syncAudit(t *testing.T, w *testenv.World) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := w.SyncAPIAudit(ctx); err != nil {
		t.Fatal(err)
	}
}

// events returns every audit event since the witness began.
func (wt *witness) events(t *testing.T) []auditv1.Event {
	t.Helper()
	syncAudit(t, wt.w)
	events, _, err := wt.w.APIAuditLogSince(wt.from)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// writes returns the write requests standup sent since the witness began.
func (wt *witness) allWrites(t *testing.T) []auditv1.Event {
	t.Helper()
	var out []auditv1.Event
	for _, e := range wt.events(t) {
		if e.UserAgent == standupAgent && isWriteVerb(e.Verb) {
			out = append(out, e)
		}
	}
	return out
}

// writes are standup's writes but its Kubernetes Events: the changes it
// made to the cluster's objects.
func (wt *witness) writes(t *testing.T) []auditv1.Event {
	t.Helper()
	return slices.DeleteFunc(wt.allWrites(t), isEventWrite)
}

func isEventWrite(e auditv1.Event) bool {
	return e.ObjectRef != nil && e.ObjectRef.APIGroup == "events.k8s.io" && e.ObjectRef.Resource == "events"
}

func isWriteVerb(verb string) bool {
	switch verb {
	case "get", "list", "watch":
		return false
	}
	return true
}

// assertNothingLost fails the test for any write standup sent that is not
// an annotation or spec.suspend patch of a Kustomization, the create of
// an absent CRD (a CRD patch, even one that creates, is a violation), or
// one of its own Events. It returns the writes but the Events.
func (wt *witness) assertNothingLost(t *testing.T) []auditv1.Event {
	t.Helper()
	for _, e := range wt.allWrites(t) {
		if err := allowedWrite(e); err != nil {
			t.Errorf("the API server's audit log shows standup %v", err)
		}
	}
	return wt.writes(t)
}

// assertNoWrites fails the test for any write standup sent at all.
func (wt *witness) assertNoWrites(t *testing.T) {
	t.Helper()
	for _, e := range wt.allWrites(t) {
		t.Errorf("the API server's audit log shows a write by standup: %s %s (status %d)", e.Verb, e.RequestURI, statusOf(e))
	}
}

func statusOf(e auditv1.Event) int32 {
	if e.ResponseStatus == nil {
		return 0
	}
	return e.ResponseStatus.Code
}

func allowedWrite(e auditv1.Event) error {
	ref := e.ObjectRef
	if ref == nil {
		return fmt.Errorf("sent %s %s", e.Verb, e.RequestURI)
	}
	code := statusOf(e)
	switch {
	case e.Verb == "patch" && ref.APIGroup == "kustomize.toolkit.fluxcd.io" && ref.Resource == "kustomizations" && ref.Subresource == "":
		return reconcileOnly(e)
	case e.Verb == "create" && ref.APIGroup == "apiextensions.k8s.io" && ref.Resource == "customresourcedefinitions" && ref.Subresource == "":
		if code == 201 || code >= 400 {
			return nil // created an absent CRD, or was refused (409: it exists) and wrote nothing
		}
		return fmt.Errorf("created CustomResourceDefinition/%s with status %d", ref.Name, code)
	case ref.APIGroup == "events.k8s.io" && ref.Resource == "events" && ref.Subresource == "":
		return eventOnly(e)
	}
	return fmt.Errorf("sent %s on %s %s/%s (status %d)", e.Verb, ref.Resource, ref.Namespace, ref.Name, code)
}

// eventOnly checks a write on Events: the create of standup's own
// (reporting controller standup), or a patch of nothing but a series.
func eventOnly(e auditv1.Event) error {
	if e.RequestObject == nil && statusOf(e) >= 400 {
		return nil // refused before the body was read: nothing written
	}
	if e.RequestObject == nil {
		return fmt.Errorf("sent %s on Event %s/%s with no body logged", e.Verb, e.ObjectRef.Namespace, e.ObjectRef.Name)
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(e.RequestObject.Raw, &body); err != nil {
		return fmt.Errorf("sent %s on Event %s/%s with %s: %v", e.Verb, e.ObjectRef.Namespace, e.ObjectRef.Name, e.RequestObject.Raw, err)
	}
	switch e.Verb {
	case "create":
		if string(body["reportingController"]) != `"standup"` {
			return fmt.Errorf("created Event %s/%s reported by %s", e.ObjectRef.Namespace, e.ObjectRef.Name, body["reportingController"])
		}
		return nil
	case "patch":
		for field := range body {
			if field != "series" {
				return fmt.Errorf("patched %s of Event %s/%s: %s", field, e.ObjectRef.Namespace, e.ObjectRef.Name, e.RequestObject.Raw)
			}
		}
		return nil
	}
	return fmt.Errorf("sent %s on Event %s/%s", e.Verb, e.ObjectRef.Namespace, e.ObjectRef.Name)
}

// reconcileOnly checks that a Kustomization patch touches nothing but
// metadata.annotations and spec.suspend.
func reconcileOnly(e auditv1.Event) error {
	if e.RequestObject == nil && statusOf(e) >= 400 {
		return nil // refused before the body was read: nothing written
	}
	if e.RequestObject == nil {
		return fmt.Errorf("patched Kustomization/%s/%s with no body logged (status %d, stage %s)", e.ObjectRef.Namespace, e.ObjectRef.Name, statusOf(e), e.Stage)
	}
	var patch map[string]map[string]json.RawMessage
	if err := json.Unmarshal(e.RequestObject.Raw, &patch); err != nil {
		return fmt.Errorf("patched Kustomization/%s/%s with %s: %v", e.ObjectRef.Namespace, e.ObjectRef.Name, e.RequestObject.Raw, err)
	}
	allowed := map[string][]string{"metadata": {"annotations"}, "spec": {"suspend"}}
	for top, fields := range patch {
		for field := range fields {
			if !slices.Contains(allowed[top], field) {
				return fmt.Errorf("patched %s.%s of Kustomization/%s/%s: %s", top, field, e.ObjectRef.Namespace, e.ObjectRef.Name, e.RequestObject.Raw)
			}
		}
	}
	return nil
}

// assertConverged checks a finished walk over graph: every node reported
// Ready after its dependencies, the summary counts them all, and every
// Kustomization is Ready and resumed on the cluster.
func assertConverged(t *testing.T, w *testenv.World, graph []testenv.KS, evs []wait.Event) {
	t.Helper()
	readyAt := firstReadyAt(evs)
	for _, k := range graph {
		id := tiers.ID{Kind: "Kustomization", Namespace: k.Namespace, Name: k.Name}
		at, ok := readyAt[id]
		if !ok {
			t.Errorf("%s never reported ready", id)
			continue
		}
		for _, d := range k.DependsOn {
			ns := d.Namespace
			if ns == "" {
				ns = k.Namespace
			}
			dep := tiers.ID{Kind: "Kustomization", Namespace: ns, Name: d.Name}
			if dat, ok := readyAt[dep]; !ok || dat.After(at) {
				t.Errorf("%s reported ready at %s, before its dependency %s (%s)", id, at.Format(time.StampMilli), dep, dat.Format(time.StampMilli))
			}
		}
		if live := getKS(t, w, k.Namespace, k.Name); !isReady(live) || live.Spec.Suspend {
			t.Errorf("%s not Ready and resumed on the cluster: suspend=%v %v", id, live.Spec.Suspend, live.Status.Conditions)
		}
	}
	if s := summaryOf(t, evs); s.Ready != len(graph) || s.Failed != 0 || s.Interrupted {
		t.Errorf("summary %+v, want %d ready", s, len(graph))
	}
}

// lastReady returns the time of the last Ready event.
func lastReady(evs []wait.Event) time.Time {
	var last time.Time
	for _, e := range evs {
		if e.Type == wait.EventNode && e.Phase == wait.PhaseReady && e.Time.After(last) {
			last = e.Time
		}
	}
	return last
}

// suspendedGraph lends t the shared world (its audit log on) holding a
// graph8, suspended: 9 Kustomizations in 5 tiers.
func suspendedGraph(t *testing.T) (*testenv.World, graph8) {
	t.Helper()
	g := newGraph8(true)
	w := sharedWorld(t, testenv.Options{}, g.namespaces()...)
	createGraph(t, w, g)
	return w, g
}

// suspendedGraphAlone is suspendedGraph in a world of its own, for a test
// that breaks its control plane; kube-apiserver runs with flags.
func suspendedGraphAlone(t *testing.T, flags ...string) (*testenv.World, graph8) {
	t.Helper()
	g := newGraph8(true)
	w := freshWorld(t, testenv.Options{APIAudit: true, APIServerFlags: flags}, g.namespaces()...)
	createGraph(t, w, g)
	return w, g
}

func createGraph(t *testing.T, w *testenv.World, g graph8) {
	t.Helper()
	publish(t, w, g.infra, "testdata/tree")
	create(t, w, g.kss...)
}

// TestFaultNothingLostOnResumeAndDeadlockRepair re-runs the main resume
// scenario and the seed deadlock repair with both witnesses watching.
func TestFaultNothingLostOnResumeAndDeadlockRepair(t *testing.T) {
	t.Run("resume", func(t *testing.T) {
		w, g := suspendedGraph(t)
		graph := g.kss
		wit := witnessFrom(t, w)
		res := runWith(context.Background(), t, runSpec{kubeconfig: w.Kubeconfig}, "resume", "-o", "json", "-v")
		if res.Code != ExitOK {
			t.Fatalf("resume exit %d: %v", res.Code, res.Err)
		}
		assertConverged(t, w, graph, events(t, res.Stdout))
		counts := assertCounted(t, res, true)
		writes := wit.assertNothingLost(t)
		if patches := counts[kube.Request{Verb: "patch", Resource: standupWrites["patch"]}]; patches != len(writes) || patches < len(graph) {
			t.Errorf("counter saw %d Kustomization patches, the audit log %d; want equal and at least %d", patches, len(writes), len(graph))
		}
		// On the converged graph a second run writes nothing at all.
		wit = witnessFrom(t, w)
		again := runWith(context.Background(), t, runSpec{kubeconfig: w.Kubeconfig}, "resume", "-o", "json", "-v")
		if again.Code != ExitOK {
			t.Fatalf("second resume exit %d: %v", again.Code, again.Err)
		}
		assertCounted(t, again, false)
		wit.assertNoWrites(t)
	})
	t.Run("deadlock", func(t *testing.T) {
		w := seedCluster(t, deadlockRepo)
		wit := witnessFrom(t, w)
		res := runWith(context.Background(), t, runSpec{kubeconfig: w.Kubeconfig}, "resume", "--crds", seedBundle, "-o", "json", "-v")
		if res.Code != ExitOK {
			t.Fatalf("resume exit %d: %v", res.Code, res.Err)
		}
		assertCounted(t, res, true)
		var created []string
		for _, e := range wit.assertNothingLost(t) {
			if e.ObjectRef.Resource == "customresourcedefinitions" && statusOf(e) == 201 {
				created = append(created, e.ObjectRef.Name)
			}
		}
		if !slices.Equal(created, []string{storageCRD}) {
			t.Errorf("CRDs created by standup per the audit log: %v, want [%s]", created, storageCRD)
		}
	})
}

// TestFaultNothingLostCheckersCatchViolations shows both witnesses can fail.
func TestFaultNothingLostCheckersCatchViolations(t *testing.T) {
	ks := func(verb, sub string, code int32, body string) auditv1.Event {
		e := auditv1.Event{Verb: verb, ObjectRef: &auditv1.ObjectReference{APIGroup: "kustomize.toolkit.fluxcd.io", Resource: "kustomizations", Subresource: sub, Namespace: "ns", Name: "a"},
			ResponseStatus: &metav1.Status{Code: code}}
		if body != "" {
			e.RequestObject = &runtime.Unknown{Raw: []byte(body)}
		}
		return e
	}
	crd := func(verb string, code int32) auditv1.Event {
		return auditv1.Event{Verb: verb, ObjectRef: &auditv1.ObjectReference{APIGroup: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "x.example.com"},
			ResponseStatus: &metav1.Status{Code: code}}
	}
	audit := []struct {
		name string
		e    auditv1.Event
		ok   bool
	}{
		{"resume patch", ks("patch", "", 200, `{"metadata":{"annotations":{"reconcile.fluxcd.io/requestedAt":"1"}},"spec":{"suspend":false}}`), true},
		{"refused patch", ks("patch", "", 403, ""), true},
		{"spec.path patch", ks("patch", "", 200, `{"spec":{"path":"./other"}}`), false},
		{"label patch", ks("patch", "", 200, `{"metadata":{"labels":{"a":"b"}}}`), false},
		{"status patch", ks("patch", "status", 200, `{"status":{}}`), false},
		{"delete", ks("delete", "", 200, ""), false},
		{"update", ks("update", "", 200, `{}`), false},
		{"CRD created", crd("create", 201), true},
		{"CRD create refused: it exists", crd("create", 409), true},
		{"existing CRD patched", crd("patch", 200), false},
		{"CRD created by a server-side apply", crd("patch", 201), false},
		{"CRD updated", crd("update", 200), false},
	}
	for _, tt := range audit {
		if err := allowedWrite(tt.e); (err == nil) != tt.ok {
			t.Errorf("audit %s: allowedWrite = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
	counted := []struct {
		line        string
		allowWrites bool
		bad         int
	}{
		{"API requests: list kustomizations.kustomize.toolkit.fluxcd.io=1, patch kustomizations.kustomize.toolkit.fluxcd.io=9, watch customresourcedefinitions.apiextensions.k8s.io=2", true, 0},
		{"API requests: patch kustomizations.kustomize.toolkit.fluxcd.io=9", false, 1},
		{"API requests: delete kustomizations.kustomize.toolkit.fluxcd.io=1, patch configmaps=1, create customresourcedefinitions.apiextensions.k8s.io=1", true, 2},
		{"API requests: create customresourcedefinitions.apiextensions.k8s.io=1, patch kustomizations.kustomize.toolkit.fluxcd.io=9", true, 0},
		{"API requests: create customresourcedefinitions.apiextensions.k8s.io=1", false, 1},
		{"API requests: patch customresourcedefinitions.apiextensions.k8s.io=1, create kustomizations.kustomize.toolkit.fluxcd.io=1", true, 2},
	}
	for _, tt := range counted {
		counts, ok := apiRequests("noise\n" + tt.line + "\n")
		if !ok {
			t.Fatalf("%q not parsed", tt.line)
		}
		if bad := countedViolations(counts, tt.allowWrites); len(bad) != tt.bad {
			t.Errorf("%q: violations %v, want %d", tt.line, bad, tt.bad)
		}
	}
}
