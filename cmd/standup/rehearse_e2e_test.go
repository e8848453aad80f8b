package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"

	"github.com/kubestandup/standup/internal/printer/coldstart"
	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/rehearse"
)

// TestRehearseFromCluster: the real kustomize-controller reconciles app
// and records its lastReconciledDuration in status.history; `rehearse
// --from-cluster` gives app exactly that duration, leaves after (in the
// checkout, not in the cluster) to the model, and standup's predicted
// bring-up is app's measure plus after's model cost (160 ms: a build and
// one object).
func TestRehearseFromCluster(t *testing.T) {
	const ns = "rehearse-history"
	w := sharedWorld(t, testenv.Options{}, ns)
	ks := func(name, extra string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: " + name + "\n  namespace: " + ns +
			"\nspec:\n  interval: 10m\n  path: ./app\n  prune: true\n" + extra + "  sourceRef:\n    kind: GitRepository\n    name: repo\n"
	}
	repo := writeTree(t, t.TempDir(), map[string]string{
		"standup.yaml":           "",
		"clusters/prod/app.yaml": ks("app", "  wait: true\n") + "---\n" + ks("after", "  dependsOn:\n    - name: app\n"),
		"app/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: " + ns + "\ndata:\n  a: b\n",
	})
	publish(t, w, ns, repo)
	create(t, w, testenv.KS{Namespace: ns, Name: "app", Path: "./app", Wait: true, Prune: true})
	var measured time.Duration
	for deadline := time.Now().Add(time.Minute); measured == 0; time.Sleep(250 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("app has no successful snapshot in its status.history within a minute: %+v", getKS(t, w, ns, "app").Status)
		}
		app := getKS(t, w, ns, "app")
		for _, s := range app.Status.History {
			if isReady(app) && s.LastReconciledStatus == meta.ReconciliationSucceededReason {
				measured = s.LastReconciledDuration.Duration
			}
		}
	}
	t.Logf("app's lastReconciledDuration: %s", measured)

	res := runCLI(t, w, "rehearse", "--from-cluster", "--path", filepath.Join(repo, "clusters", "prod"), "-o", "json")
	if res.Code != ExitOK {
		t.Fatalf("rehearse --from-cluster: exit %d: %v", res.Code, res.Err)
	}
	var r coldstart.Rehearsal
	if err := json.Unmarshal([]byte(res.Stdout), &r); err != nil {
		t.Fatalf("-o json: %v\n%s", err, res.Stdout)
	}
	if r.Durations.Source != rehearse.SourceCluster || r.Durations.Measured != 1 || len(r.Durations.Nodes) != 2 {
		t.Fatalf("durations %+v, want 1 of 2 measured from the cluster", r.Durations)
	}
	for _, n := range r.Durations.Nodes {
		want := rehearse.NodeDuration{Node: n.Node, Source: rehearse.SourceModel, Duration: 160 * time.Millisecond}
		if n.Node.Name == "app" {
			want.Source, want.Duration = rehearse.SourceCluster, measured
		}
		if n != want {
			t.Errorf("%s: %+v, want %+v", n.Node, n, want)
		}
	}
	if got, want := r.Results[2].AllReady, measured+160*time.Millisecond; got != want {
		t.Errorf("standup all Ready at %s, want app's %s and after's 160ms: %s", got, measured, want)
	}
}
