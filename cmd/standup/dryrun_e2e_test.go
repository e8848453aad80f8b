package main

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/wait"
)

// TestResumeNameDryRunWritesNothing: `resume NAME --dry-run` on a suspended
// graph, in every spelling a user types, writes nothing (the API server's
// audit log is the witness), plans only the node and what it needs, and
// leaves every Kustomization suspended. Before names were taken, urfave/cli
// stopped at the name and dropped --dry-run: the walk unsuspended all nine.
func TestResumeNameDryRunWritesNothing(t *testing.T) {
	w, g := suspendedGraph(t)
	wit := witnessFrom(t, w)
	spec := runSpec{kubeconfig: w.Kubeconfig}
	web := g.apps + "/web"
	lines := [][]string{
		{"resume", "web", "--dry-run"},
		{"resume", web, "--dry-run"},
		{"resume", "ks", "web", "--dry-run", "-o", "json"},
		{"resume", "kustomization", web, "--dry-run=true"},
		{"resume", "--dry-run", "web", "--no-unsuspend"},
	}
	in := func(ns string, names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, ns+"/"+n)
		}
		return out
	}
	needed := append([]string{web}, in(g.infra, "join", "left", "right", "base")...)
	notNeeded := append(in(g.infra, "side"), in(g.apps, "worker", "frontend", "edge")...)
	for _, args := range lines {
		res := runWith(context.Background(), t, spec, args...)
		if res.Code != ExitOK {
			t.Fatalf("%s: exit %d: %v", strings.Join(args, " "), res.Code, res.Err)
		}
		// web needs join, left, right and base; side, worker, frontend and
		// edge are not its ancestors and must not be planned.
		for _, want := range needed {
			if !plans(res.Stdout, want) {
				t.Errorf("%s: the plan does not name %s:\n%s", strings.Join(args, " "), want, res.Stdout)
			}
		}
		for _, unwanted := range notNeeded {
			if plans(res.Stdout, unwanted) {
				t.Errorf("%s: the plan names %s, which web does not need:\n%s", strings.Join(args, " "), unwanted, res.Stdout)
			}
		}
	}
	// An empty filter would pass the no-writes check: standup's own reads
	// must be in the same log.
	reads := 0
	for _, e := range wit.events(t) {
		if e.UserAgent == standupAgent && (e.Verb == "list" || e.Verb == "get") {
			reads++
		}
	}
	if reads < len(lines) {
		t.Fatalf("the audit log shows %d reads by standup for %d runs: the witness sees nothing", reads, len(lines))
	}
	wit.assertNoWrites(t)
	for _, k := range g.kss {
		ks := &kustomizev1.Kustomization{}
		if err := w.Client.Get(context.Background(), client.ObjectKey{Namespace: k.Namespace, Name: k.Name}, ks); err != nil {
			t.Fatal(err)
		}
		if !ks.Spec.Suspend {
			t.Errorf("Kustomization/%s/%s was resumed by a dry run", k.Namespace, k.Name)
		}
	}
}

// plans reports whether a dry run's plan (text or JSON lines) has a step
// for the Kustomization NAMESPACE/NAME.
func plans(stdout, nsName string) bool {
	ns, name, _ := strings.Cut(nsName, "/")
	return strings.Contains(stdout, " Kustomization/"+nsName+" ") ||
		strings.Contains(stdout, `"namespace":"`+ns+`","name":"`+name+`"`)
}

// TestResumeDryRunPlansTheDeadlockRepair (issue 31): on the seed's stuck
// cluster, `resume --dry-run` prints a plan that says where it looked, what
// it would do to each node and why, the deadlock platform-config is stuck
// in with the bundle CRD that would repair it and how the proof would go,
// and the count of writes; -o json carries the same deadlock; and nothing
// is written, the CRD least of all.
func TestResumeDryRunPlansTheDeadlockRepair(t *testing.T) {
	w := seedCluster(t, deadlockRepo)
	stuck(t, w)
	wit := witnessFrom(t, w)
	before := crdNames(t, w)

	text := runCLI(t, w, "resume", "--dry-run", "--crds", seedBundle)
	if text.Code != ExitOK {
		t.Fatalf("resume --dry-run: exit %d: %v", text.Code, text.Err)
	}
	for _, want := range []string{
		"Plan for cluster ",
		"1 cold-start deadlock to repair",
		"~ Kustomization/flux-system/platform-config",
		"! cold-start deadlock: its server-side dry-run fails on StorageProfile.cdi.kubevirt.io (v1beta1; used by StorageProfile/",
		"+ CustomResourceDefinition/" + storageCRD + " from " + seedBundle + "/" + storageCRD + ".yaml, once the deadlock is proven",
		"      proof: ",
		"= Kustomization/flux-system/flux-system",
		"1 CRD to create.",
	} {
		if !strings.Contains(text.Stdout, want) {
			t.Errorf("the plan lacks %q:\n%s", want, text.Stdout)
		}
	}

	js := runCLI(t, w, "resume", "--dry-run", "--crds", seedBundle, "-o", "json")
	if js.Code != ExitOK {
		t.Fatalf("resume --dry-run -o json: exit %d: %v", js.Code, js.Err)
	}
	var planned *wait.PlanDeadlock
	for _, line := range strings.Split(strings.TrimSpace(js.Stdout), "\n") {
		var step wait.PlanStep
		if err := json.Unmarshal([]byte(line), &step); err != nil {
			t.Fatalf("plan line %q: %v", line, err)
		}
		if step.Node.Name == "platform-config" {
			planned = step.Deadlock
		}
	}
	if planned == nil || !planned.Resolvable || len(planned.Create) != 1 || planned.Create[0].Name != storageCRD || planned.Proof.Kind == "" {
		t.Errorf("platform-config's planned deadlock: %+v", planned)
	}

	wit.assertNoWrites(t)
	if after := crdNames(t, w); !maps.Equal(before, after) {
		t.Errorf("the CRDs changed during a dry run: before %v, after %v", before, after)
	}
	if _, ok := crdNames(t, w)[storageCRD]; ok {
		t.Errorf("a dry run created %s", storageCRD)
	}
}
