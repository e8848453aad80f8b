package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/wait"
)

// onFirst returns an event tap that closes the channel the first time
// match holds.
func onFirst(match func(wait.Event) bool) (func(wait.Event), <-chan struct{}) {
	ch := make(chan struct{})
	var once sync.Once
	return func(e wait.Event) {
		if match(e) {
			once.Do(func() { close(ch) })
		}
	}, ch
}

func isReadyEvent(e wait.Event) bool { return e.Type == wait.EventNode && e.Phase == wait.PhaseReady }

// resumeToMidWalk starts the witness of w and `resume -o json -v` against
// kubeconfig, and returns once the walk is under way (its first Ready
// event): the moment a fault test injects its fault. Each of taps sees
// every event too.
func resumeToMidWalk(t *testing.T, w *testenv.World, kubeconfig string, taps ...func(wait.Event)) (*witness, *background) {
	t.Helper()
	wit := witnessFrom(t, w)
	tap, first := onFirst(isReadyEvent)
	onEvent := func(e wait.Event) {
		tap(e)
		for _, f := range taps {
			f(e)
		}
	}
	done := goRun(context.Background(), t, runSpec{kubeconfig: kubeconfig, onEvent: onEvent}, "resume", "-o", "json", "-v")
	midWalk(t, first, done)
	return wit, done
}

// midWalk waits until the first Ready event, failing if standup ends first.
func midWalk(t *testing.T, trigger <-chan struct{}, run *background) {
	t.Helper()
	select {
	case <-trigger:
	case res := <-run.done:
		t.Fatalf("standup ended (exit %d) before the fault could be injected", res.Code)
	case <-time.After(3 * time.Minute):
		t.Fatal("no Kustomization became ready within 3m")
	}
}

func TestFaultAPIServerRestartMidResume(t *testing.T) {
	outages := []struct {
		name   string
		outage func(*testenv.World) error
	}{
		{"graceful restart", func(w *testenv.World) error { return w.RestartAPIServer(context.Background()) }},
		{"crash, down 5s", func(w *testenv.World) error {
			if err := w.KillAPIServer(); err != nil {
				return err
			}
			time.Sleep(5 * time.Second)
			return w.StartAPIServer(context.Background())
		}},
	}
	names := make([]string, len(outages))
	for i, o := range outages {
		names[i] = o.name
	}
	// Each outage in a process of its own, with a world of its own, both at
	// once: a restart mostly waits for kube-apiserver.
	inChildren(t, names, func(t *testing.T, i int) {
		o := outages[i]
		w, g := suspendedGraphAlone(t)
		graph := g.kss
		wit, done := resumeToMidWalk(t, w, w.Kubeconfig)
		downAt := time.Now()
		if err := o.outage(w); err != nil {
			t.Fatal(err)
		}
		backAt := time.Now()
		res := done.await(t, 4*time.Minute)
		if res.Code != ExitOK {
			t.Fatalf("resume across a kube-apiserver %s: exit %d: %v", o.name, res.Code, res.Err)
		}
		evs := events(t, res.Stdout)
		assertConverged(t, w, graph, evs)
		if last := lastReady(evs); !last.After(backAt) {
			t.Fatalf("the walk was over at %s, before the API server came back at %s: the outage was not mid-walk", last.Format(time.StampMilli), backAt.Format(time.StampMilli))
		}
		t.Logf("kube-apiserver down %s -> back %s; walk finished %s", downAt.Format(time.StampMilli), backAt.Format(time.StampMilli), lastReady(evs).Format(time.StampMilli))
		assertCounted(t, res, true)
		wit.assertNothingLost(t)
	})
}

// TestFaultControllerKilledMidWalk kills the controller of a shared world:
// each test there runs a kustomize-controller of its own. The controller
// stays down until standup has shown it noticed: a request left
// unacknowledged, or taken up and left, with nothing changed for
// wait.DefaultAskAgainAfter, is asked again, and the walk goes on rather
// than give up.
func TestFaultControllerKilledMidWalk(t *testing.T) {
	w, g := suspendedGraph(t)
	graph := g.kss
	askedAgain := make(chan wait.Event, 64)
	wit, done := resumeToMidWalk(t, w, w.Kubeconfig, func(e wait.Event) {
		// Unacknowledged: a request the controller never took up;
		// AskedAgain: one it took up and then went quiet on.
		if e.Type == wait.EventNode && (e.Reason == "Unacknowledged" || e.Reason == "AskedAgain") {
			select {
			case askedAgain <- e:
			default:
			}
		}
	})
	killedAt := time.Now()
	w.KillController()
	for asked := false; !asked; {
		select {
		case res := <-done.done:
			t.Fatalf("standup gave up while kustomize-controller was down: exit %d: %v", res.Code, res.Err)
		case e := <-askedAgain:
			asked = e.Time.After(killedAt)
			t.Logf("%s asked again at %s: %s", e.Node, e.Time.Format(time.StampMilli), e.Message)
		case <-time.After(2 * time.Minute):
			t.Fatalf("standup never asked again while kustomize-controller was down:\n%s", tailLines(done.out.String(), 40))
		}
	}
	if err := w.RestartController(context.Background()); err != nil {
		t.Fatal(err)
	}
	restartedAt := time.Now()
	res := done.await(t, 4*time.Minute)
	if res.Code != ExitOK {
		t.Fatalf("resume across a controller kill: exit %d: %v", res.Code, res.Err)
	}
	evs := events(t, res.Stdout)
	assertConverged(t, w, graph, evs)
	// Nothing can become Ready while the controller is dead (a Ready the
	// controller wrote just before the kill may arrive a moment later).
	for _, e := range evs {
		if isReadyEvent(e) && e.Time.After(killedAt.Add(2*time.Second)) && e.Time.Before(restartedAt) {
			t.Errorf("%s reported ready at %s while kustomize-controller was dead", e.Node, e.Time.Format(time.StampMilli))
		}
	}
	if !lastReady(evs).After(restartedAt) {
		t.Fatal("the walk was over before the controller came back: the kill was not mid-walk")
	}
	assertCounted(t, res, true)
	wit.assertNothingLost(t)
}

func TestFaultExpiredWatchRelists(t *testing.T) {
	// Without the watch cache, kube-apiserver serves watches from etcd, so
	// a watch resumed after a compaction is answered 410 Gone.
	w, g := suspendedGraphAlone(t, "--watch-cache=false")
	graph := g.kss
	proxy, err := w.StartProxy()
	if err != nil {
		t.Fatal(err)
	}
	wit, done := resumeToMidWalk(t, w, proxy.Kubeconfig)
	blockedAt := time.Now()
	rev, err := w.ExpireWatches(context.Background(), proxy)
	if err != nil {
		t.Fatal(err)
	}
	expiredAt := time.Now()
	res := done.await(t, 4*time.Minute)
	if res.Code != ExitOK {
		t.Fatalf("resume across expired watches: exit %d: %v", res.Code, res.Err)
	}
	evs := events(t, res.Stdout)
	assertConverged(t, w, graph, evs)
	if !lastReady(evs).After(expiredAt) {
		t.Fatal("the walk was over before the watches expired")
	}
	assertCounted(t, res, true)
	// The API server's record: after the expiry, the Kustomization informer
	// (the one the walk needs) tried to resume from a compacted revision,
	// and then listed again. The quieter informers (CRDs, sources) may
	// reconnect after the walk is over, so they are only reported.
	log := wit.events(t)
	for _, resource := range []string{"kustomizations", "customresourcedefinitions", "gitrepositories"} {
		resumed, relisted := resumesAndRelists(t, log, resource, blockedAt, rev)
		t.Logf("%s: resumed from %v (compacted at %d), then re-listed %d time(s)", resource, resumed, rev, relisted)
		if resource == "kustomizations" && (len(resumed) == 0 || relisted == 0) {
			t.Errorf("Kustomizations after etcd compaction at revision %d: resumed from %v, re-listed %d times; want a resume from a compacted revision, then a re-list", rev, resumed, relisted)
		}
	}
	wit.assertNothingLost(t)
}

// resumesAndRelists reads standup's requests on resource received after
// since: the resourceVersions of watches resumed from before compacted, and
// how many re-lists (a list, or a watch that asks for initial events)
// followed.
func resumesAndRelists(t *testing.T, log []auditv1.Event, resource string, since time.Time, compacted int64) ([]int64, int) {
	t.Helper()
	var resumed []int64
	relisted := 0
	for _, e := range log {
		if e.UserAgent != standupAgent || e.ObjectRef == nil || e.ObjectRef.Resource != resource || e.RequestReceivedTimestamp.Time.Before(since) {
			continue
		}
		u, err := url.Parse(e.RequestURI)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		rv, _ := strconv.ParseInt(q.Get("resourceVersion"), 10, 64)
		switch {
		case e.Verb == "list", e.Verb == "watch" && q.Get("sendInitialEvents") == "true":
			if len(resumed) > 0 {
				relisted++
			}
		case e.Verb == "watch" && rv > 0 && rv < compacted:
			resumed = append(resumed, rv)
		}
	}
	return resumed, relisted
}

func TestFaultInterruptMidWalk(t *testing.T) {
	w, _ := suspendedGraph(t)
	wit := witnessFrom(t, w)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := make(chan struct{})
	var once sync.Once
	onLine := func(line string) {
		if strings.Contains(line, "✔ Kustomization/") {
			once.Do(func() { close(first) })
		}
	}
	// Plain text progress, as a person at a terminal would see in a log.
	done := goRun(ctx, t, runSpec{kubeconfig: w.Kubeconfig, onErrLine: onLine}, "resume", "-v")
	midWalk(t, first, done)
	interruptedAt := time.Now()
	cancel() // what main does on SIGINT
	res := done.await(t, 10*time.Second)
	took := time.Since(interruptedAt)
	if took > 2*time.Second {
		t.Errorf("standup took %s to stop after SIGINT, want at most 2s", took)
	}
	t.Logf("stopped %s after SIGINT", took.Round(time.Millisecond))
	if res.Code != ExitInterrupted {
		t.Fatalf("exit %d after SIGINT, want %d", res.Code, ExitInterrupted)
	}
	summary := ""
	for _, line := range strings.Split(res.Stderr, "\n") {
		if strings.Contains(line, " ready, ") && strings.Contains(line, "mutations") {
			summary = line
		}
	}
	if !strings.HasSuffix(summary, "interrupted") || strings.Contains(summary, "9/9 ready") {
		t.Fatalf("summary line %q: want a partial walk marked interrupted", summary)
	}
	// Each Kustomization is either untouched, or resumed with its reconcile
	// request: standup's patch sets both in one request.
	for _, ks := range listKS(t, w) {
		_, requested := ks.Annotations[meta.ReconcileRequestAnnotation]
		if ks.Spec.Suspend == requested {
			t.Errorf("Kustomization/%s/%s half-done: suspend=%v, reconcile requested=%v", ks.Namespace, ks.Name, ks.Spec.Suspend, requested)
		}
	}
	assertCounted(t, res, true)
	wit.assertNothingLost(t)
}

func TestFaultInterruptAroundPreApply(t *testing.T) {
	w := seedCluster(t, deadlockRepo)
	want, err := testenv.LoadCRD(seedBundle + "/" + storageCRD + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name        string
		at          func(wait.Event) bool
		wantApplied bool
	}{
		{"at the proven diagnosis, before the pre-apply", func(e wait.Event) bool {
			return e.Type == wait.EventDiagnosis && strings.Contains(e.Message, "proven")
		}, false},
		{"right after the pre-apply", func(e wait.Event) bool {
			return e.Type == wait.EventAction && e.Action == string(wait.ActionPreApplyCRDs) && e.Reason == "Applied"
		}, true},
	}
	for _, step := range steps {
		wit := witnessFrom(t, w)
		ctx, cancel := context.WithCancel(context.Background())
		var cancelledAt time.Time
		tap, fired := onFirst(step.at)
		done := goRun(ctx, t, runSpec{kubeconfig: w.Kubeconfig, onEvent: func(e wait.Event) {
			tap(e)
			select {
			case <-fired:
				if cancelledAt.IsZero() {
					cancelledAt = time.Now()
					cancel()
				}
			default:
			}
		}}, "resume", "--crds", seedBundle, "-o", "json", "-v")
		res := done.await(t, 4*time.Minute)
		returnedAt := time.Now()
		cancel()
		if cancelledAt.IsZero() {
			t.Fatalf("%s: the walk never got there (exit %d)", step.name, res.Code)
		}
		if took := returnedAt.Sub(cancelledAt); took > 2*time.Second {
			t.Errorf("%s: standup took %s to stop after SIGINT, want at most 2s", step.name, took)
		}
		if res.Code != ExitInterrupted || !summaryOf(t, events(t, res.Stdout)).Interrupted {
			t.Fatalf("%s: exit %d, want %d with an interrupted summary", step.name, res.Code, ExitInterrupted)
		}
		if applied := crdState(t, w, want); applied != step.wantApplied {
			t.Errorf("%s: CRD applied=%v, want %v", step.name, applied, step.wantApplied)
		}
		assertCounted(t, res, true)
		wit.assertNothingLost(t)
	}
	// The interrupted runs left nothing that stops a full run.
	res := runWith(context.Background(), t, runSpec{kubeconfig: w.Kubeconfig}, "resume", "--crds", seedBundle, "-o", "json")
	if res.Code != ExitOK {
		t.Fatalf("resume after two interrupts: exit %d: %v", res.Code, res.Err)
	}
	for _, ks := range listKS(t, w) {
		if !isReady(&ks) {
			t.Errorf("Kustomization/%s/%s not Ready: %v", ks.Namespace, ks.Name, ks.Status.Conditions)
		}
	}
}

// crdState reports whether the bundle CRD is on the cluster, and fails the
// test if it is there but not whole: standup's annotation and field
// manager, and the bundle's spec.
func crdState(t *testing.T, w *testenv.World, want *apiextensionsv1.CustomResourceDefinition) bool {
	t.Helper()
	got := &apiextensionsv1.CustomResourceDefinition{}
	err := w.Client.Get(context.Background(), client.ObjectKey{Name: want.Name}, got)
	if apierrors.IsNotFound(err) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	if got.Annotations[crds.PreAppliedForAnnotation] == "" || !createdByStandup(got) {
		t.Errorf("CustomResourceDefinition/%s half-applied: annotations %v, managers %v", got.Name, got.Annotations, got.ManagedFields)
	}
	if !reflect.DeepEqual(got.Spec.Names, want.Spec.Names) || got.Spec.Group != want.Spec.Group || len(got.Spec.Versions) != len(want.Spec.Versions) {
		t.Errorf("CustomResourceDefinition/%s differs from the bundle: %+v", got.Name, got.Spec)
	}
	return true
}

func TestFaultUnreachableAPIServerAtStart(t *testing.T) {
	servers := []struct {
		name  string
		start func(t *testing.T) string
	}{{"closed port", closedPort}, {"silent server", hungServer}}
	commands := [][]string{{"tiers"}, {"resume"}, {"crds", "--crds", seedBundle}}
	var names []string
	for _, server := range servers {
		for _, args := range commands {
			names = append(names, server.name+"/"+args[0])
		}
	}
	// Each case in a process of its own, all at once: a silent server
	// takes its 5 s each.
	inChildren(t, names, func(t *testing.T, i int) {
		server, args := servers[i/len(commands)], commands[i%len(commands)]
		addr := server.start(t)
		kubeconfig := kubeconfigFor(t, "https://"+addr)
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res := runWith(ctx, t, runSpec{kubeconfig: kubeconfig}, args...)
		took := time.Since(start)
		if took > 10*time.Second {
			t.Errorf("took %s to give up, want at most 10s", took)
		}
		if res.Code != ExitFailure {
			t.Fatalf("exit %d, want %d", res.Code, ExitFailure)
		}
		msg := errorLine(t, res.Stderr)
		if !strings.Contains(msg, "cannot reach the API server") || !strings.Contains(msg, addr) {
			t.Errorf("error %q: want it to say it cannot reach the API server at %s", msg, addr)
		}
		t.Logf("%s: gave up in %s: %s", server.name, took.Round(time.Millisecond), msg)
	})
}

// errorLine returns the one `standup: ...` error line on stderr.
func errorLine(t *testing.T, stderr string) string {
	t.Helper()
	line, err := errorLineOf(stderr)
	if err != nil {
		t.Fatal(err)
	}
	return line
}

func errorLineOf(stderr string) (string, error) {
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "standup: ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 {
		return "", fmt.Errorf("want exactly one `standup:` error line, got %d:\n%s", len(lines), stderr)
	}
	return lines[0], nil
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// hungServer returns the address of a server that accepts connections and
// never answers, as a wedged API server or a half-open load balancer does.
func hungServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

func kubeconfigFor(t *testing.T, server string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: %s
    insecure-skip-tls-verify: true
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
users:
- name: u
  user: {token: t}
`, server)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
