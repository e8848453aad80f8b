package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// tiersJSON is the part of the tiers JSON schema (docs/output.md) the tests read.
type tiersJSON struct {
	Tiers []struct {
		Tier  int `json:"tier"`
		Nodes []struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
		} `json:"nodes"`
	} `json:"tiers"`
	Missing []json.RawMessage `json:"missing"`
	Outside []struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
		Tier      int    `json:"tier"`
	} `json:"outside"`
}

func tierNames(t *testing.T, stdout string) []string {
	t.Helper()
	var doc tiersJSON
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("tiers -o json: %v\n%s", err, stdout)
	}
	var out []string
	for _, tier := range doc.Tiers {
		var names []string
		for _, n := range tier.Nodes {
			names = append(names, n.Namespace+"/"+n.Name)
		}
		out = append(out, strings.Join(names, " "))
	}
	return out
}

func TestTiersLive(t *testing.T) {
	g := newGraph8(true)
	w := sharedWorld(t, testenv.Options{}, g.infra, g.apps)
	create(t, w, g.kss...)
	res := runCLI(t, w, "tiers", "-o", "json")
	if res.Code != ExitOK {
		t.Fatalf("exit %d: %v", res.Code, res.Err)
	}
	i, a := g.infra, g.apps
	want := []string{
		i + "/base " + i + "/side",
		i + "/left " + i + "/right",
		i + "/join",
		a + "/web " + a + "/worker",
		a + "/frontend",
		a + "/edge",
	}
	if got := tierNames(t, res.Stdout); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("tiers\n got %q\nwant %q", got, want)
	}
	// -n apps: apps's nodes at their tiers in the whole graph, and what
	// they need in infra listed outside, not cut.
	res = runCLI(t, w, "tiers", "-n", a, "-o", "json")
	if res.Code != ExitOK {
		t.Fatalf("-n apps: exit %d: %v", res.Code, res.Err)
	}
	if got := tierNames(t, res.Stdout); strings.Join(got, "|") != strings.Join(want[3:], "|") {
		t.Errorf("-n apps: tiers\n got %q\nwant %q", got, want[3:])
	}
	var doc tiersJSON
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil {
		t.Fatal(err)
	}
	var outside []string
	for _, o := range doc.Outside {
		outside = append(outside, fmt.Sprintf("%s/%s@%d", o.Namespace, o.Name, o.Tier))
	}
	if got, want := strings.Join(outside, " "), i+"/side@0 "+i+"/join@2"; got != want || doc.Tiers[0].Tier != 3 {
		t.Errorf("-n apps: outside %q, first tier %d; want %q and 3", got, doc.Tiers[0].Tier, want)
	}
}

func TestTiersLiveReportsAbsentDependencies(t *testing.T) {
	g := newGraph8(true)
	w := sharedWorld(t, testenv.Options{}, g.infra, g.apps)
	// Only the apps tiers exist: the root has not created infra yet.
	var partial []testenv.KS
	for _, k := range g.kss {
		if k.Namespace == g.apps {
			partial = append(partial, k)
		}
	}
	create(t, w, partial...)
	res := runCLI(t, w, "tiers", "-o", "json")
	if res.Code != ExitInvalidGraph {
		t.Fatalf("exit %d, want %d", res.Code, ExitInvalidGraph)
	}
	for _, absent := range []string{"Kustomization/" + g.infra + "/join", "Kustomization/" + g.infra + "/side"} {
		if !strings.Contains(res.Stderr, absent) {
			t.Errorf("stderr does not name the absent %s:\n%s", absent, res.Stderr)
		}
	}
	res = runCLI(t, w, "tiers", "-o", "json", "--allow-missing")
	if res.Code != ExitOK {
		t.Fatalf("--allow-missing: exit %d", res.Code)
	}
	var doc tiersJSON
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Missing) != 3 {
		t.Errorf("missing = %d entries, want 3 (web->join, worker->join, worker->side)", len(doc.Missing))
	}
}

func TestTiersLiveWithHelmReleases(t *testing.T) {
	fluxNS, infra, web := testenv.UniqueName("flux-system"), testenv.UniqueName("infra"), testenv.UniqueName("web")
	w := sharedWorld(t, testenv.Options{}, fluxNS, infra, web)
	ctx := context.Background()
	crd, err := testenv.LoadCRD("testdata/helmrelease-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Client.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	create(t, w, testenv.KS{Namespace: fluxNS, Name: "infrastructure", Path: "./ok", Suspend: true})
	hr := func(ns, name string, deps ...map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
			"metadata": map[string]any{"name": name, "namespace": ns, "labels": map[string]any{
				"kustomize.toolkit.fluxcd.io/name": "infrastructure", "kustomize.toolkit.fluxcd.io/namespace": fluxNS}},
			"spec": map[string]any{"interval": "1h", "chart": map[string]any{"spec": map[string]any{"chart": name}}},
		}}
		if name == "unlabelled" {
			u.SetLabels(nil)
		}
		if len(deps) > 0 {
			list := make([]any, len(deps))
			for i, d := range deps {
				list[i] = d
			}
			u.Object["spec"].(map[string]any)["dependsOn"] = list
		}
		return u
	}
	for _, u := range []*unstructured.Unstructured{
		hr(infra, "cert-manager"),
		hr(infra, "ingress-nginx", map[string]any{"name": "cert-manager"}),
		hr(web, "podinfo", map[string]any{"name": "ingress-nginx", "namespace": infra}),
		hr(web, "unlabelled"),
	} {
		var err error
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			// The new CRD takes a moment to be served.
			if err = w.Client.Create(ctx, u); err == nil || time.Now().After(deadline) {
				break
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// The unlabelled release is known to be applied by infrastructure
	// from its inventory alone, as kustomize-controller writes it.
	ks := getKS(t, w, fluxNS, "infrastructure")
	ks.Status.Inventory = &kustomizev1.ResourceInventory{Entries: []kustomizev1.ResourceRef{
		{ID: web + "_unlabelled_helm.toolkit.fluxcd.io_HelmRelease", Version: "v2"},
	}}
	if err := w.Client.Status().Update(ctx, ks); err != nil {
		t.Fatalf("Kustomization/%s/infrastructure status update failed: %v", fluxNS, err)
	}
	res := runCLI(t, w, "tiers", "-o", "json", "--kinds", "Kustomization,HelmRelease")
	if res.Code != ExitOK {
		t.Fatalf("exit %d: %v", res.Code, res.Err)
	}
	want := []string{fluxNS + "/infrastructure " + infra + "/cert-manager " + web + "/unlabelled", infra + "/ingress-nginx", web + "/podinfo"}
	if got := tierNames(t, res.Stdout); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("tiers\n got %q\nwant %q", got, want)
	}
	var doc struct {
		Tiers []struct {
			Nodes []struct {
				tiers.ID
				AppliedBy *tiers.ID `json:"appliedBy"`
			} `json:"nodes"`
		} `json:"tiers"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tier := range doc.Tiers {
		for _, n := range tier.Nodes {
			if n.Kind == "HelmRelease" && (n.AppliedBy == nil || n.AppliedBy.String() != "Kustomization/"+fluxNS+"/infrastructure") {
				t.Errorf("%s: appliedBy %v, want Kustomization/%s/infrastructure (labels, or its inventory)", n.ID, n.AppliedBy, fluxNS)
			}
		}
	}
	// The picture draws each release under infrastructure, in its tier.
	dot := runCLI(t, w, "tiers", "-o", "dot", "--kinds", "Kustomization,HelmRelease")
	for _, name := range []string{infra + "/cert-manager", infra + "/ingress-nginx", web + "/podinfo", web + "/unlabelled"} {
		edge := fmt.Sprintf("%q -> %q [dir=back, arrowtail=odot", "Kustomization/"+fluxNS+"/infrastructure", "HelmRelease/"+name)
		if !strings.Contains(dot.Stdout, edge) {
			t.Errorf("tiers -o dot lacks the applied-by edge %s:\n%s", edge, dot.Stdout)
		}
	}
}

// TestTiersListsWhatResumeWalks: with no flags, tiers graphs the live
// HelmReleases beside the Kustomizations, the very nodes resume walks: the
// nodes of tiers -o json are those resume --dry-run -o json plans, and
// --kinds ks narrows the graph to the Kustomizations. The world runs the
// real helm-controller; the objects are suspended, so nothing reconciles.
func TestTiersListsWhatResumeWalks(t *testing.T) {
	ns := testenv.UniqueName("tiershr")
	w := helmWorld(t, testenv.Options{}, []string{"plain"}, ns)
	publish(t, w, ns, "testdata/tree")
	create(t, w,
		testenv.KS{Namespace: ns, Name: "base", Path: "./ok", Suspend: true},
		testenv.KS{Namespace: ns, Name: "apps", Path: "./ok", Suspend: true, DependsOn: deps("base")},
	)
	createHR(t, w,
		testenv.HR{Namespace: ns, Name: "db", Chart: "plain", Suspend: true},
		testenv.HR{Namespace: ns, Name: "web", Chart: "plain", Suspend: true, DependsOn: deps("db")},
	)
	nodesOf := func(args ...string) []string {
		t.Helper()
		res := runCLI(t, w, append([]string{"tiers", "-n", ns, "-o", "json"}, args...)...)
		if res.Code != ExitOK {
			t.Fatalf("tiers %v: exit %d: %v", args, res.Code, res.Err)
		}
		var doc struct {
			Tiers []struct {
				Nodes []tiers.ID `json:"nodes"`
			} `json:"tiers"`
		}
		if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil {
			t.Fatalf("tiers -o json: %v\n%s", err, res.Stdout)
		}
		var out []string
		for _, tier := range doc.Tiers {
			for _, n := range tier.Nodes {
				out = append(out, n.String())
			}
		}
		slices.Sort(out)
		return out
	}
	plan := runCLI(t, w, "resume", "-n", ns, "--dry-run", "-o", "json")
	if plan.Code != ExitOK {
		t.Fatalf("resume --dry-run exit %d: %v", plan.Code, plan.Err)
	}
	var planned []string
	for _, line := range strings.Split(strings.TrimSpace(plan.Stdout), "\n") {
		var step wait.PlanStep
		if err := json.Unmarshal([]byte(line), &step); err != nil {
			t.Fatalf("plan line %q: %v", line, err)
		}
		planned = append(planned, step.Node.String())
	}
	slices.Sort(planned)
	want := []string{ksNode(ns, "apps").String(), ksNode(ns, "base").String(), hrNode(ns, "db").String(), hrNode(ns, "web").String()}
	slices.Sort(want)
	if !slices.Equal(planned, want) {
		t.Fatalf("resume --dry-run plans %q, want %q", planned, want)
	}
	if got := nodesOf(); !slices.Equal(got, planned) {
		t.Errorf("tiers with no flags graphs %q; resume --dry-run plans %q", got, planned)
	}
	if got, want := nodesOf("--kinds", "ks"), []string{ksNode(ns, "apps").String(), ksNode(ns, "base").String()}; !slices.Equal(got, want) {
		t.Errorf("tiers --kinds ks graphs %q, want the Kustomizations alone %q", got, want)
	}
	text := runCLI(t, w, "tiers", "-n", ns, "--no-color")
	for _, row := range []string{ns + "/web", "HelmRelease", "db"} {
		if !strings.Contains(text.Stdout, row) {
			t.Errorf("tiers' table lacks %q:\n%s", row, text.Stdout)
		}
	}
}

// TestTiersLiveShowsTargets: live, tiers names the cluster each
// Kustomization applies to, from its spec.kubeConfig (the Secret in its
// own namespace, or the workload-identity ConfigMap), in json and in the
// table's TARGET column; the hub's own Kustomization reads <local>. The
// Kustomizations are suspended and no Secret exists: tiers reads no Secret.
func TestTiersLiveShowsTargets(t *testing.T) {
	hub, spoke := testenv.UniqueName("hub"), testenv.UniqueName("staging")
	w := sharedWorld(t, testenv.Options{}, hub, spoke)
	ctx := context.Background()
	root := testenv.KS{Namespace: hub, Name: "flux-system", Path: "./hub", Source: "repo", Suspend: true}.Kustomization()
	tenants := testenv.KS{Namespace: spoke, Name: "tenants", Path: "./tenants", Source: "repo", SourceNamespace: hub, Suspend: true}.Kustomization()
	tenants.Spec.KubeConfig = &meta.KubeConfigReference{SecretRef: &meta.SecretKeyReference{Name: "cluster-kubeconfig"}}
	configs := testenv.KS{Namespace: spoke, Name: "infra-configs", Path: "./configs", Source: "repo", SourceNamespace: hub, Suspend: true,
		DependsOn: []meta.NamespacedObjectReference{testenv.Dep("", "tenants")}}.Kustomization()
	configs.Spec.KubeConfig = &meta.KubeConfigReference{ConfigMapRef: &meta.LocalObjectReference{Name: "aks"}}
	for _, ks := range []*kustomizev1.Kustomization{root, tenants, configs} {
		if err := w.Client.Create(ctx, ks); err != nil {
			t.Fatalf("Kustomization/%s/%s create failed: %v", ks.Namespace, ks.Name, err)
		}
	}
	res := runCLI(t, w, "tiers", "-o", "json", "--kinds", "ks")
	if res.Code != ExitOK {
		t.Fatalf("exit %d: %v", res.Code, res.Err)
	}
	var doc struct {
		Tiers []struct {
			Nodes []struct {
				tiers.ID
				Target *string `json:"target"`
			} `json:"nodes"`
		} `json:"tiers"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		hub + "/flux-system":     "",
		spoke + "/tenants":       spoke + "/cluster-kubeconfig",
		spoke + "/infra-configs": "ConfigMap/" + spoke + "/aks",
	}
	got := map[string]string{}
	for _, tier := range doc.Tiers {
		for _, n := range tier.Nodes {
			switch {
			case n.Target == nil:
				got[n.NamespacedName()] = ""
			case *n.Target == "":
				t.Errorf("%s: target written empty; it is left out for the local cluster", n.ID)
			default:
				got[n.NamespacedName()] = *n.Target
			}
		}
	}
	for name, target := range want {
		if g, ok := got[name]; !ok || g != target {
			t.Errorf("%s: target %q (listed %v), want %q", name, g, ok, target)
		}
	}
	table := runCLI(t, w, "tiers", "--kinds", "ks", "--no-headers")
	for name, target := range want {
		if target == "" {
			target = "<local>"
		}
		if !slices.ContainsFunc(strings.Split(table.Stdout, "\n"), func(row string) bool {
			f := strings.Fields(row)
			return len(f) > 2 && f[1] == name && slices.Contains(f, target)
		}) {
			t.Errorf("the table has no row of %s with the target %s:\n%s", name, target, table.Stdout)
		}
	}
}
