package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// chartsDir holds the test world's charts (internal/testenv/testdata/charts).
const chartsDir = "../../internal/testenv/testdata/charts"

// helmWorld lends t the shared world running helm-controller v1.5.5 beside
// kustomize-controller, with the charts published and namespaces created.
func helmWorld(t *testing.T, opts testenv.Options, charts []string, namespaces ...string) *testenv.World {
	t.Helper()
	opts.Helm = true
	w := sharedWorld(t, opts, namespaces...)
	for _, c := range charts {
		if _, err := w.PublishChart(filepath.Join(chartsDir, c)); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func hrYAML(t *testing.T, hrs ...testenv.HR) string {
	t.Helper()
	out := ""
	for _, h := range hrs {
		data, err := h.YAML()
		if err != nil {
			t.Fatal(err)
		}
		out += "---\n" + string(data)
	}
	return out
}

func createHR(t *testing.T, w *testenv.World, hrs ...testenv.HR) {
	t.Helper()
	for _, h := range hrs {
		if err := w.Client.Create(context.Background(), h.HelmRelease()); err != nil {
			t.Fatalf("HelmRelease/%s/%s create failed: %v", h.Namespace, h.Name, err)
		}
	}
}

func getHR(t *testing.T, w *testenv.World, ns, name string) flux.Object {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(flux.HelmReleaseGVK)
	if err := w.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		t.Fatalf("HelmRelease/%s/%s get failed: %v", ns, name, err)
	}
	obj, err := flux.FromHelmRelease(u)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// releaseInstalled checks what a HelmRelease installed shows on the
// cluster: Ready at its generation, not suspended, and Helm's release
// secret in the storage namespace.
func releaseInstalled(t *testing.T, w *testenv.World, ns, name string) flux.Object {
	t.Helper()
	hr := getHR(t, w, ns, name)
	if st := wait.Classify(hr); st.State != wait.Ready || hr.Suspended {
		t.Errorf("%s is %s (%s), suspended=%v; want Ready and resumed", hr.ID, st.State, st.Message, hr.Suspended)
	}
	secret := &corev1.Secret{}
	if err := w.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "sh.helm.release.v1." + name + ".v1"}, secret); err != nil {
		t.Errorf("%s: Helm's release secret: %v", hr.ID, err)
	}
	return hr
}

// checkOrder fails t unless every node with dependencies was first Ready
// no earlier than each of them.
func checkOrder(t *testing.T, readyAt map[tiers.ID]time.Time, edges map[tiers.ID][]tiers.ID) {
	t.Helper()
	for id, deps := range edges {
		at, ok := readyAt[id]
		if !ok {
			t.Errorf("%s never reported Ready", id)
			continue
		}
		for _, d := range deps {
			if dat, ok := readyAt[d]; !ok || dat.After(at) {
				t.Errorf("%s Ready at %s, before its dependency %s (%s)", id, at.Format(time.StampMilli), d, dat.Format(time.StampMilli))
			}
		}
	}
}

func hrNode(ns, name string) tiers.ID {
	return tiers.ID{Kind: flux.KindHelmRelease, Namespace: ns, Name: name}
}
func ksNode(ns, name string) tiers.ID {
	return tiers.ID{Kind: flux.KindKustomization, Namespace: ns, Name: name}
}

// seedMixedGraph puts the mixed graph in ns of w, cold: the suspended
// Kustomization infra (wait: true) applies HelmReleases db and gadgets
// (gadgets on db, its chart bringing the Gadget CRD), and apps, on infra,
// applies web (on gadgets) and a Gadget.
func seedMixedGraph(t *testing.T, w *testenv.World, ns string) {
	t.Helper()
	tree := writeTree(t, t.TempDir(), map[string]string{
		"infra/releases.yaml": hrYAML(t,
			testenv.HR{Namespace: ns, Name: "db", Chart: "plain"},
			testenv.HR{Namespace: ns, Name: "gadgets", Chart: "gadgets", DependsOn: deps("db")},
		),
		"apps/releases.yaml": hrYAML(t, testenv.HR{Namespace: ns, Name: "web", Chart: "plain", DependsOn: deps("gadgets")}),
		"apps/gadget.yaml":   fmt.Sprintf("apiVersion: crds.standup.test/v1\nkind: Gadget\nmetadata:\n  name: g1\n  namespace: %s\n", ns),
	})
	publish(t, w, ns, tree)
	create(t, w,
		testenv.KS{Namespace: ns, Name: "infra", Path: "./infra", Wait: true, Suspend: true},
		testenv.KS{Namespace: ns, Name: "apps", Path: "./apps", Wait: true, Suspend: true, DependsOn: deps("infra")},
	)
}

// TestResumeWalksMixedKustomizationsAndHelmReleases is a cold start of a
// mixed graph against the real kustomize-controller v1.9.6 and
// helm-controller v1.5.5, with Flux's own 30 s dependency re-check on both:
// the suspended Kustomization infra (wait: true) applies HelmReleases db
// and gadgets, gadgets depending on db and bringing the Gadget CRD in its
// chart's crds/; apps depends on infra and applies web, which depends on
// gadgets, and a Gadget. resume walks it to all Ready in dependency order,
// by default (no --kinds): the HelmReleases join the walk as infra and apps
// apply them, each is asked to reconcile the moment its dependency is
// Ready (helm-controller would have waited 30 s), and the Kustomization
// that waits on them is Ready only after they are.
func TestResumeWalksMixedKustomizationsAndHelmReleases(t *testing.T) {
	ns := testenv.UniqueName("mixed")
	w := helmWorld(t, testenv.Options{}, []string{"plain", "gadgets"}, ns)
	seedMixedGraph(t, w, ns)

	res := runCLI(t, w, "resume", "-o", "json", "--node-timeout", "2m")
	if res.Code != ExitOK {
		t.Fatalf("resume exit %d: %v\n%s", res.Code, res.Err, res.Stdout)
	}
	evs := events(t, res.Stdout)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("resume events:\n%s", res.Stdout)
		}
	})
	if s := summaryOf(t, evs); s.Ready != 5 || s.Total != 5 {
		t.Errorf("summary %+v: want 5 nodes walked to Ready (2 Kustomizations, 3 HelmReleases)", s)
	}
	checkOrder(t, firstReadyAt(evs), map[tiers.ID][]tiers.ID{
		hrNode(ns, "gadgets"): {hrNode(ns, "db")},
		ksNode(ns, "infra"):   {hrNode(ns, "db"), hrNode(ns, "gadgets")},
		ksNode(ns, "apps"):    {ksNode(ns, "infra"), hrNode(ns, "web")},
		hrNode(ns, "web"):     {hrNode(ns, "gadgets")},
	})
	for _, name := range []string{"infra", "apps"} {
		if ks := getKS(t, w, ns, name); !isReady(ks) || ks.Spec.Suspend {
			t.Errorf("Kustomization %s not Ready and resumed: %v", name, ks.Status.Conditions)
		}
	}
	for _, name := range []string{"db", "gadgets", "web"} {
		releaseInstalled(t, w, ns, name)
	}
	// gadgets found db not ready when infra applied them together; it
	// became Ready on standup's request, not on helm-controller's re-check.
	requested := map[string]bool{}
	for _, e := range evs {
		if e.Type == wait.EventNode && e.Reason == "Requested" && e.Node.Kind == flux.KindHelmRelease {
			requested[e.Node.Name] = true
		}
	}
	if gadgets := getHR(t, w, ns, "gadgets"); !requested["gadgets"] || gadgets.LastHandledReconcileAt == "" {
		t.Errorf("gadgets: requested=%v, lastHandledReconcileAt=%q: want Ready on standup's request", requested["gadgets"], gadgets.LastHandledReconcileAt)
	}
}

// TestResumeKindsHelmReleaseWalksOnlyHelmReleases: --kinds hr walks the
// HelmReleases (a suspended chain a <- b <- c, resumed and reconciled in
// order) and leaves a suspended Kustomization alone.
func TestResumeKindsHelmReleaseWalksOnlyHelmReleases(t *testing.T) {
	ns := testenv.UniqueName("hronly")
	w := helmWorld(t, testenv.Options{}, []string{"plain"}, ns)
	publish(t, w, ns, "testdata/tree")
	create(t, w, testenv.KS{Namespace: ns, Name: "left-alone", Path: "./ok", Suspend: true})
	createHR(t, w,
		testenv.HR{Namespace: ns, Name: "a", Chart: "plain", Suspend: true},
		testenv.HR{Namespace: ns, Name: "b", Chart: "plain", Suspend: true, DependsOn: deps("a")},
		testenv.HR{Namespace: ns, Name: "c", Chart: "plain", Suspend: true, DependsOn: deps("b")},
	)
	planOf := func() map[string]string {
		plan := runCLI(t, w, "resume", "--kinds", "hr", "-n", ns, "--dry-run", "-o", "json")
		if plan.Code != ExitOK {
			t.Fatalf("resume --dry-run exit %d: %v", plan.Code, plan.Err)
		}
		steps := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(plan.Stdout), "\n") {
			var step wait.PlanStep
			if err := json.Unmarshal([]byte(line), &step); err != nil {
				t.Fatalf("plan line %q: %v", line, err)
			}
			steps[step.Node.String()] = step.Action
		}
		return steps
	}
	before := planOf()
	res := runCLI(t, w, "resume", "--kinds", "hr", "-o", "json")
	if res.Code != ExitOK {
		t.Fatalf("resume --kinds hr exit %d: %v", res.Code, res.Err)
	}
	after := planOf()
	for _, name := range []string{"a", "b", "c"} {
		id := hrNode(ns, name).String()
		if before[id] != "resume+reconcile" || after[id] != "none" {
			t.Errorf("%s: the plan says %q before the walk and %q after, want resume+reconcile, then none (Ready at its HelmChart's revision)", id, before[id], after[id])
		}
	}
	if len(before) != 3 {
		t.Errorf("the plan of --kinds hr holds %v, want the 3 HelmReleases alone", before)
	}
	evs := events(t, res.Stdout)
	if s := summaryOf(t, evs); s.Ready != 3 || s.Total != 3 {
		t.Errorf("summary %+v: want the 3 HelmReleases walked, nothing else", s)
	}
	checkOrder(t, firstReadyAt(evs), map[tiers.ID][]tiers.ID{
		hrNode(ns, "b"): {hrNode(ns, "a")},
		hrNode(ns, "c"): {hrNode(ns, "b")},
	})
	for _, name := range []string{"a", "b", "c"} {
		releaseInstalled(t, w, ns, name)
	}
	if ks := getKS(t, w, ns, "left-alone"); !ks.Spec.Suspend || ks.Annotations[flux.ReconcileRequestAnnotation] != "" {
		t.Errorf("the Kustomization was touched: suspend=%v annotations=%v", ks.Spec.Suspend, ks.Annotations)
	}
}

// TestResumeHelmReleasesUnderTheOperatorRoles: under standup-operator
// alone (docs/rbac.yaml), resume warns that it may not list HelmReleases
// and walks the Kustomizations alone, leaving the HelmReleases as they
// were; with standup-operator-helm (docs/rbac-helm.yaml) bound too, it
// walks both kinds to Ready without a warning.
func TestResumeHelmReleasesUnderTheOperatorRoles(t *testing.T) {
	operator, _ := rbacRoles(t)
	helm, _ := rbacRolesIn(t, "../../docs/rbac-helm.yaml")
	for _, withHelm := range []bool{false, true} {
		t.Run(fmt.Sprintf("standup-operator-helm bound: %v", withHelm), func(t *testing.T) {
			ns := testenv.UniqueName("hrrbac")
			w := helmWorld(t, testenv.Options{}, []string{"plain"}, ns)
			publish(t, w, ns, "testdata/tree")
			create(t, w, testenv.KS{Namespace: ns, Name: "app", Path: "./ok", Suspend: true, TargetNamespace: ns})
			createHR(t, w,
				testenv.HR{Namespace: ns, Name: "a", Chart: "plain", Suspend: true},
				testenv.HR{Namespace: ns, Name: "b", Chart: "plain", Suspend: true, DependsOn: deps("a")},
			)
			roles := []*rbacv1.ClusterRole{operator["standup-operator"]}
			if withHelm {
				roles = append(roles, helm["standup-operator-helm"])
			}
			kubeconfig := userBoundToAll(t, w, testenv.UniqueName("hr-operator"), roles...)
			res := runWith(context.Background(), t, runSpec{kubeconfig: kubeconfig}, "resume", "-n", ns, "-o", "json", "--timeout", "3m")
			if res.Code != ExitOK {
				t.Fatalf("resume exit %d: %v\n%s", res.Code, res.Err, res.Stderr)
			}
			warned := strings.Contains(res.Stderr, `warning: forbidden: standup needs "list" on helmreleases.helm.toolkit.fluxcd.io`) &&
				strings.Contains(res.Stderr, "walking Kustomizations only")
			if warned == withHelm {
				t.Errorf("warned that HelmReleases are not walked = %v, want %v:\n%s", warned, !withHelm, res.Stderr)
			}
			want := 1
			if withHelm {
				want = 3
			}
			if s := summaryOf(t, events(t, res.Stdout)); s.Ready != want || s.Total != want {
				t.Errorf("summary %+v, want %d walked to Ready", s, want)
			}
			for _, name := range []string{"a", "b"} {
				hr := getHR(t, w, ns, name)
				if hr.Suspended == withHelm {
					t.Errorf("%s: suspended=%v after resume with standup-operator-helm bound=%v", hr.ID, hr.Suspended, withHelm)
				}
			}
		})
	}
}
