package main

import (
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

func deps(refs ...string) []meta.NamespacedObjectReference {
	var out []meta.NamespacedObjectReference
	for _, r := range refs {
		ns, name := "", r
		if i := indexByte(r, '/'); i >= 0 {
			ns, name = r[:i], r[i+1:]
		}
		out = append(out, testenv.Dep(ns, name))
	}
	return out
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// graph8 is 9 Kustomizations over 5 tiers, with a diamond
// (base -> left, right -> join) and a cross-namespace edge (apps/web ->
// infra/join), in namespaces of its own: infra and apps, and one target
// namespace per Kustomization.
type graph8 struct {
	infra, apps string
	kss         []testenv.KS
}

// newGraph8 names a graph8 in namespaces no other test uses.
func newGraph8(suspend bool) graph8 {
	g := graph8{infra: testenv.UniqueName("infra"), apps: testenv.UniqueName("apps")}
	ks := func(ns, name string, d ...string) testenv.KS {
		return testenv.KS{Namespace: ns, Name: name, Path: "./ok", Suspend: suspend, TargetNamespace: ns + "-" + name, DependsOn: deps(d...), SourceNamespace: g.infra}
	}
	join, side := g.infra+"/join", g.infra+"/side"
	g.kss = []testenv.KS{
		ks(g.infra, "base"),
		ks(g.infra, "left", "base"),
		ks(g.infra, "right", "base"),
		ks(g.infra, "join", "left", "right"),
		ks(g.infra, "side"),
		ks(g.apps, "web", join),
		ks(g.apps, "worker", join, side),
		ks(g.apps, "frontend", "web"),
		ks(g.apps, "edge", "frontend", "worker"),
	}
	return g
}

// namespaces are infra, apps and every target namespace.
func (g graph8) namespaces() []string {
	out := []string{g.infra, g.apps}
	for _, k := range g.kss {
		out = append(out, k.TargetNamespace)
	}
	return out
}

// TestResumeConvergesSuspendedGraphInDependencyOrder runs against every
// kustomize-controller release of the matrix (testenv.Releases).
func TestResumeConvergesSuspendedGraphInDependencyOrder(t *testing.T) {
	for _, release := range testenv.Releases() {
		t.Run(release, func(t *testing.T) { testResumeConverges(t, release) })
	}
}

func testResumeConverges(t *testing.T, release string) {
	g := newGraph8(true)
	graph := g.kss
	w := sharedWorld(t, testenv.Options{}.ForRelease(release), g.namespaces()...)
	publish(t, w, g.infra, "testdata/tree")
	create(t, w, graph...)

	res := runCLI(t, w, "resume", "-o", "json")
	if res.Code != ExitOK {
		t.Fatalf("resume exit %d: %v", res.Code, res.Err)
	}
	evs := events(t, res.Stdout)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("resume events:\n%s", res.Stdout)
		}
	})
	readyAt := firstReadyAt(evs)
	for _, k := range graph {
		id := tiers.ID{Kind: "Kustomization", Namespace: k.Namespace, Name: k.Name}
		at, ok := readyAt[id]
		if !ok {
			t.Fatalf("%s never reported ready", id)
		}
		for _, d := range k.DependsOn {
			ns := d.Namespace
			if ns == "" {
				ns = k.Namespace
			}
			depID := tiers.ID{Kind: "Kustomization", Namespace: ns, Name: d.Name}
			if dat := readyAt[depID]; !dat.Before(at) && !dat.Equal(at) {
				t.Errorf("%s ready at %s before its dependency %s (%s)", id, at, depID, dat)
			}
		}
		live := getKS(t, w, k.Namespace, k.Name)
		if !isReady(live) || live.Spec.Suspend {
			t.Errorf("%s not Ready and resumed on the cluster: suspend=%v conditions=%v", id, live.Spec.Suspend, live.Status.Conditions)
		}
	}
	s := summaryOf(t, evs)
	if s.Ready != len(graph) || s.Total != len(graph) {
		t.Fatalf("summary %+v, want %d ready", s, len(graph))
	}
	if s.Mutations > 2*len(graph) {
		t.Errorf("%d mutations for %d Kustomizations; want at most 2 each", s.Mutations, len(graph))
		for _, e := range evs {
			if e.Type == wait.EventAction || e.Reason == "DependencyNotReady" {
				t.Logf("%s %s %s %s: %s", e.Time.Format("15:04:05.000"), e.Type, e.Node, e.Reason, e.Message)
			}
		}
	}

	// A re-run on the converged graph touches nothing: no resourceVersion
	// moves, once the controller has finished what the walk set off.
	waitSettled(t, w)
	before := map[string]string{}
	for _, k := range listKS(t, w) {
		before[k.Namespace+"/"+k.Name] = k.ResourceVersion
	}
	again := runCLI(t, w, "resume", "-o", "json")
	if again.Code != ExitOK {
		t.Fatalf("second resume exit %d: %v", again.Code, again.Err)
	}
	if m := summaryOf(t, events(t, again.Stdout)).Mutations; m != 0 {
		t.Errorf("re-run made %d mutations, want 0", m)
	}
	for _, k := range listKS(t, w) {
		if rv := before[k.Namespace+"/"+k.Name]; rv != k.ResourceVersion {
			t.Errorf("Kustomization/%s/%s changed on re-run (resourceVersion %s -> %s)", k.Namespace, k.Name, rv, k.ResourceVersion)
		}
	}
}

func TestResumeFailsFastAndBlocksDependents(t *testing.T) {
	ns := testenv.UniqueName("ns")
	w := sharedWorld(t, testenv.Options{}, ns, ns+"-good", ns+"-after", ns+"-bad", ns+"-child")
	publish(t, w, ns, "testdata/tree")
	create(t, w,
		testenv.KS{Namespace: ns, Name: "good", Path: "./ok", Suspend: true, TargetNamespace: ns + "-good"},
		testenv.KS{Namespace: ns, Name: "after", Path: "./ok", Suspend: true, TargetNamespace: ns + "-after", DependsOn: deps("good")},
		testenv.KS{Namespace: ns, Name: "bad", Path: "./does-not-exist", Suspend: true, TargetNamespace: ns + "-bad", Timeout: 4 * time.Minute},
		testenv.KS{Namespace: ns, Name: "child", Path: "./ok", Suspend: true, TargetNamespace: ns + "-child", DependsOn: deps("bad")},
	)
	start := time.Now()
	res := runCLI(t, w, "resume", "-o", "json")
	elapsed := time.Since(start)
	if res.Code != ExitFailure {
		t.Fatalf("exit %d, want %d (failure): %v", res.Code, ExitFailure, res.Err)
	}
	if elapsed > time.Minute {
		t.Errorf("took %s: a hard failure must fail fast, well before the 4m timeout", elapsed)
	}
	evs := events(t, res.Stdout)
	final := map[string]wait.Event{}
	for _, e := range evs {
		if e.Type == wait.EventNode {
			final[e.Node.Name] = e
		}
	}
	if e := final["bad"]; e.Phase != wait.PhaseFailed {
		t.Errorf("bad ended %s (%s), want failed", e.Phase, e.Message)
	} else {
		t.Logf("bad failed with %s: %s", e.Reason, e.Message)
	}
	if e := final["child"]; e.Phase != wait.PhaseBlocked {
		t.Errorf("child ended %s, want blocked by bad", e.Phase)
	}
	for _, name := range []string{"good", "after"} {
		if e := final[name]; e.Phase != wait.PhaseReady {
			t.Errorf("%s ended %s, want ready (independent branch)", name, e.Phase)
		}
	}
	if getKS(t, w, ns, "child").Spec.Suspend != true {
		t.Error("child was resumed although its dependency failed")
	}
}

// TestResumeFollowsColdStartFromRoot keeps the namespace "cold": the
// tiers the root applies (testdata/tree/cold) name it.
func TestResumeFollowsColdStartFromRoot(t *testing.T) {
	w := sharedWorld(t, testenv.Options{}, "cold")
	publish(t, w, "cold", "testdata/tree")
	create(t, w, testenv.KS{Namespace: "cold", Name: "root", Path: "./cold/tiers", SourceNamespace: "cold"})
	res := runCLI(t, w, "resume", "-o", "json")
	if res.Code != ExitOK {
		t.Fatalf("exit %d: %v", res.Code, res.Err)
	}
	s := summaryOf(t, events(t, res.Stdout))
	if s.Ready != 4 {
		t.Fatalf("summary %+v: want root and its 3 tiers ready", s)
	}
	for _, name := range []string{"root", "infra", "config", "apps"} {
		if ks := getKS(t, w, "cold", name); !isReady(ks) {
			t.Errorf("Kustomization/cold/%s not Ready: %v", name, ks.Status.Conditions)
		}
	}
}
