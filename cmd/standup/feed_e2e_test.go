package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	"sigs.k8s.io/yaml"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/wait"
)

// TestResumeFeedsSlowChainsFirst: given the checkout (--path), standup
// learns which Kustomization waits on a controller (here through
// spec.healthChecks) and, on a real kustomize-controller with one worker,
// hands it that one first and holds the rest in its own queue, a few
// requests ahead of the controller. Without the checkout the same graph
// is requested all at once, in name order. Both walks end Ready.
func TestResumeFeedsSlowChainsFirst(t *testing.T) {
	for _, tc := range []struct {
		name     string
		checkout bool
	}{{"with the checkout", true}, {"without", false}} {
		t.Run(tc.name, func(t *testing.T) {
			ns := testenv.UniqueName("feed")
			names := []string{"q0", "q1", "q2", "q3", "q4", "s"}
			namespaces := []string{ns, ns + "-a"}
			kss := []*kustomizev1.Kustomization{testenv.KS{Namespace: ns, Name: "a", Path: "./ok", Source: "repo", Suspend: true, TargetNamespace: ns + "-a"}.Kustomization()}
			for _, name := range names {
				target := ns + "-" + name
				namespaces = append(namespaces, target)
				k := testenv.KS{Namespace: ns, Name: name, Path: "./ok", Source: "repo", Suspend: true, TargetNamespace: target, DependsOn: deps("a")}.Kustomization()
				if name == "s" {
					k.Spec.HealthChecks = []meta.NamespacedObjectKindReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "marker", Namespace: target}}
				}
				kss = append(kss, k)
			}
			w := sharedWorld(t, testenv.Options{ControllerArgs: []string{"--concurrent=1"}}, namespaces...)
			publish(t, w, ns, "testdata/tree")
			var docs []string
			for _, k := range kss {
				if err := w.Client.Create(context.Background(), k.DeepCopy()); err != nil {
					t.Fatal(err)
				}
				k.APIVersion, k.Kind = kustomizev1.GroupVersion.String(), kustomizev1.KustomizationKind
				data, err := yaml.Marshal(k)
				if err != nil {
					t.Fatal(err)
				}
				docs = append(docs, string(data))
			}
			args := []string{"resume", "-o", "json"}
			if tc.checkout {
				root := t.TempDir()
				writeCheckoutFile(t, filepath.Join(root, "ok", "configmap.yaml"), readTestdata(t, "testdata/tree/ok/configmap.yaml"))
				writeCheckoutFile(t, filepath.Join(root, "clusters", "e2e", "ks.yaml"), "---\n"+strings.Join(docs, "---\n"))
				args = append(args, "--path", filepath.Join(root, "clusters", "e2e"), "--repo-root", root)
			}
			res := runCLI(t, w, args...)
			if res.Code != ExitOK {
				t.Fatalf("resume exit %d: %v\n%s", res.Code, res.Err, res.Stderr)
			}
			var requested []string
			queued := 0
			for _, e := range events(t, res.Stdout) {
				if e.Type != wait.EventNode || e.Node == nil || e.Node.Name == "a" {
					continue
				}
				switch {
				case e.Phase == wait.PhaseReconciling && e.Reason == "Requested":
					requested = append(requested, e.Node.Name)
				case e.Reason == "Queued":
					queued++
				}
			}
			if s := summaryOf(t, events(t, res.Stdout)); s.Ready != len(kss) {
				t.Fatalf("summary %+v, want all %d Ready", s, len(kss))
			}
			want, wantQueued := names, 0
			if tc.checkout {
				// s first; q0–q2 with it fill the controller's queue
				// (wait.FeedAhead); q3 and q4 wait their turn in standup's.
				want, wantQueued = []string{"s", "q0", "q1", "q2", "q3", "q4"}, 2
				if !strings.Contains(res.Stderr, "1 of 7 Kustomizations wait on a controller") {
					t.Errorf("stderr does not say what the checkout told:\n%s", res.Stderr)
				}
			}
			if !slices.Equal(requested, want) || queued < wantQueued || (!tc.checkout && queued != 0) {
				t.Fatalf("requested %v with %d held, want %v with at least %d held", requested, queued, want, wantQueued)
			}
		})
	}
}

func writeCheckoutFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readTestdata(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
