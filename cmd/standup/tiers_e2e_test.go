package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/internal/testenv"
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
	res := runCLI(t, w, "tiers", "-o", "json", "--kinds", "Kustomization,HelmRelease")
	if res.Code != ExitOK {
		t.Fatalf("exit %d: %v", res.Code, res.Err)
	}
	want := []string{fluxNS + "/infrastructure " + infra + "/cert-manager", infra + "/ingress-nginx", web + "/podinfo"}
	if got := tierNames(t, res.Stdout); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("tiers\n got %q\nwant %q", got, want)
	}
	if !strings.Contains(res.Stdout, `"appliedBy"`) {
		t.Error("HelmReleases should name the Kustomization that applies them")
	}
}
