package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"

	"github.com/kubestandup/standup/internal/testenv"
)

// Issue 34: many clusters at once. Two real clusters (two kube-apiservers,
// each with its kustomize-controller), each with a suspended chain of two
// Kustomizations, and a third cluster that cannot be reached, named by a
// directory of kubeconfigs: resume walks both real ones to Ready, side by
// side, tags every -o json event with its cluster, fails the unreachable
// one alone, writes one record per cluster, and exits with the worst code.
func TestFleetResumeWalksEveryClusterAndFailsOnlyTheDeadOne(t *testing.T) {
	ctx := context.Background()
	ns := testenv.UniqueName("fleet")
	worlds := map[string]*testenv.World{
		"east": sharedWorld(t, testenv.Options{}, ns),
		"west": freshWorld(t, testenv.Options{}, ns),
	}
	kdir := t.TempDir()
	for name, w := range worlds {
		repo := writeTree(t, t.TempDir(), map[string]string{
			"a/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: " + ns + "\n",
			"b/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: " + ns + "\n",
		})
		publish(t, w, ns, repo)
		create(t, w,
			testenv.KS{Namespace: ns, Name: "a", Path: "./a", Suspend: true},
			testenv.KS{Namespace: ns, Name: "b", Path: "./b", Suspend: true, DependsOn: []meta.NamespacedObjectReference{testenv.Dep("", "a")}})
		data, err := os.ReadFile(w.Kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(kdir, name+".yaml"), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(kdir, "dead.yaml"), []byte(deadKubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	recDir := t.TempDir()
	res := runWith(ctx, t, runSpec{}, "resume", "--kubeconfig-dir", kdir, "-n", ns, "--request-timeout", "3s",
		"--record", filepath.Join(recDir, "bringup.ndjson"), "-o", "json")
	if res.Code != ExitFailure {
		t.Fatalf("exit %d, want %d (the dead cluster's failure is the worst)\nstderr:\n%s", res.Code, ExitFailure, res.Stderr)
	}
	ready := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(res.Stdout))
	for sc.Scan() {
		var line struct {
			Cluster string `json:"cluster"`
			Type    string `json:"type"`
			Summary *struct {
				Ready, Total int
			} `json:"summary"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil || line.Cluster == "" {
			t.Fatalf("a line without its cluster: %q (%v)", sc.Text(), err)
		}
		if line.Type == "summary" && line.Summary != nil {
			ready[line.Cluster] = line.Summary.Ready
		}
	}
	if ready["east"] != 2 || ready["west"] != 2 {
		t.Errorf("summaries: %v, want east and west 2 Ready each", ready)
	}
	for name, w := range worlds {
		for _, ks := range []string{"a", "b"} {
			if k := getKS(t, w, ns, ks); !isReady(k) {
				t.Errorf("%s: %s/%s not Ready", name, ns, ks)
			}
		}
		if _, err := os.Stat(filepath.Join(recDir, "bringup-"+name+".ndjson")); err != nil {
			t.Errorf("%s's record: %v", name, err)
		}
	}
	for _, want := range []string{"[dead] standup:", "CLUSTER", "dead", "east", "west", "1 of 3 clusters failed: dead (exit 1)"} {
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.Stderr)
		}
	}
}
