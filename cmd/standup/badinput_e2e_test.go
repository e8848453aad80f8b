package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
)

// badInput is one run of standup on bad input: it must end with a one-line
// error naming the object or file, a non-zero exit code, and no mutation.
type badInput struct {
	name       string
	kubeconfig string // "" for the world's
	args       []string
	wantCode   int
	wantText   []string
}

func TestBadInputFailsCleanlyAndChangesNothing(t *testing.T) {
	// No controller: nothing but standup may write, so any moved
	// resourceVersion is standup's doing.
	cyc, dangling := testenv.UniqueName("cyc"), testenv.UniqueName("dangling")
	w := sharedWorld(t, testenv.Options{NoController: true}, cyc, dangling)
	ctx := context.Background()
	create(t, w,
		testenv.KS{Namespace: cyc, Name: "a", Path: "./ok", Suspend: true, DependsOn: deps("b")},
		testenv.KS{Namespace: cyc, Name: "b", Path: "./ok", Suspend: true, DependsOn: deps("a")},
		testenv.KS{Namespace: dangling, Name: "x", Path: "./ok", Suspend: true, DependsOn: deps("ghost")},
	)
	widgets, err := testenv.LoadCRD("testdata/widgets-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Client.Create(ctx, widgets, client.FieldOwner("another-manager")); err != nil {
		t.Fatal(err)
	}
	// The API server writes a new CRD's status a moment later; a
	// resourceVersion moved by that is not standup's doing.
	if err := w.WaitCRDEstablished(ctx, widgets.Name); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	absent := filepath.Join(dir, "no-such-kubeconfig")
	malformed := writeTree(t, filepath.Join(dir, "repo"), map[string]string{
		"standup.yaml":            "",
		"clusters/c/apps.yaml":    ksManifest("apps", "./apps"),
		"clusters/c/broken.yaml":  "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: [unclosed\n",
		"apps/configmap.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n",
		"apps/kustomization.yaml": "resources: [configmap.yaml]\n",
	})
	notCRD := writeTree(t, filepath.Join(dir, "bundle-not-crd"), map[string]string{
		"configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
	})
	// gadgets.example.com serves kind Widget in example.com, which the
	// cluster's widgets.example.com already serves: creating it would leave
	// a CRD whose names the API server never accepts.
	conflicting := writeTree(t, filepath.Join(dir, "bundle-conflict"), map[string]string{
		"gadgets.yaml":   strings.NewReplacer("widgets", "gadgets", "singular: widget", "singular: gadget").Replace(widgetCRD),
		"sprockets.yaml": strings.NewReplacer("widgets", "sprockets", "Widget", "Sprocket", "singular: widget", "singular: sprocket").Replace(widgetCRD),
	})
	cycle := fmt.Sprintf("circular dependency detected: %[1]s/a -> %[1]s/b -> %[1]s/a", cyc)
	cases := []badInput{
		{name: "missing kubeconfig", kubeconfig: absent, args: []string{"resume"}, wantCode: ExitFailure, wantText: []string{absent, "not found"}},
		{name: "unknown context", args: []string{"--context", "nope", "resume"}, wantCode: ExitFailure, wantText: []string{`context "nope" not found`, w.Kubeconfig}},
		{name: "cycle/resume", args: []string{"resume", "-n", cyc}, wantCode: ExitInvalidGraph, wantText: []string{cycle}},
		{name: "cycle/tiers", args: []string{"tiers", "-n", cyc}, wantCode: ExitInvalidGraph, wantText: []string{cycle}},
		{name: "dangling dependency", args: []string{"tiers", "-n", dangling}, wantCode: ExitInvalidGraph, wantText: []string{"Kustomization/" + dangling + "/x depends on Kustomization/" + dangling + "/ghost, which does not exist"}},
		{name: "malformed manifest under --path", args: []string{"tiers", "--path", filepath.Join(malformed, "clusters/c")}, wantCode: ExitFailure, wantText: []string{"broken.yaml"}},
		{name: "bundle holding a non-CRD/resume", args: []string{"resume", "--crds", notCRD}, wantCode: ExitFailure, wantText: []string{filepath.Join(notCRD, "configmap.yaml"), "kind ConfigMap is not"}},
		{name: "bundle holding a non-CRD/crds", args: []string{"crds", "--all", "--crds", notCRD}, wantCode: ExitFailure, wantText: []string{filepath.Join(notCRD, "configmap.yaml"), "kind ConfigMap is not"}},
		{name: "bundle CRD conflicting with an existing one", args: []string{"crds", "--all", "--crds", conflicting}, wantCode: ExitFailure, wantText: []string{"gadgets.example.com", "widgets.example.com"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runBadInput(t, w, tc) })
	}
}

func TestBadInputFluxNotInstalled(t *testing.T) {
	w := freshWorld(t, testenv.Options{NoController: true, APIAudit: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := w.UninstallFlux(ctx); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"tiers"}, {"resume"}, {"crds", "--crds", seedBundle}} {
		runBadInput(t, w, badInput{name: args[0], args: args, wantCode: ExitFailure, wantText: []string{"Flux is not installed on this cluster"}})
	}
}

func runBadInput(t *testing.T, w *testenv.World, tc badInput) {
	t.Helper()
	kubeconfig := tc.kubeconfig
	if kubeconfig == "" {
		kubeconfig = w.Kubeconfig
	}
	beforeCRDs, beforeKS := crdNames(t, w), ksVersionsIfServed(t, w)
	wit := witnessFrom(t, w)
	res := runWith(context.Background(), t, runSpec{kubeconfig: kubeconfig}, append(tc.args, "-v")...)
	if res.Code != tc.wantCode {
		t.Errorf("%s: exit %d, want %d", tc.name, res.Code, tc.wantCode)
	}
	if res.Err != nil && strings.Contains(strings.TrimSpace(res.Err.Error()), "\n") {
		t.Errorf("%s: error spans lines:\n%s", tc.name, res.Err)
	}
	msg, err := errorLineOf(res.Stderr)
	if err != nil {
		t.Errorf("%s: %v", tc.name, err)
	}
	for _, want := range tc.wantText {
		if !strings.Contains(msg, want) {
			t.Errorf("%s: error %q does not name %q", tc.name, msg, want)
		}
	}
	if counts, ok := apiRequests(res.Stderr); ok {
		if bad := countedViolations(counts, false); len(bad) > 0 {
			t.Errorf("%s: standup's counter shows writes: %v", tc.name, bad)
		}
	}
	wit.assertNoWrites(t)
	if !equalMaps(beforeCRDs, crdNames(t, w)) {
		t.Errorf("%s: a CRD was created or changed", tc.name)
	}
	if !equalMaps(beforeKS, ksVersionsIfServed(t, w)) {
		t.Errorf("%s: a Kustomization was changed", tc.name)
	}
}

// ksVersionsIfServed is ksVersions, or nothing on a cluster without Flux.
func ksVersionsIfServed(t *testing.T, w *testenv.World) map[string]string {
	t.Helper()
	if _, ok := crdNames(t, w)["kustomizations.kustomize.toolkit.fluxcd.io"]; !ok {
		return map[string]string{}
	}
	return ksVersions(t, w)
}

// writeTree writes files (relative path -> content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for rel, content := range files {
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func ksManifest(name, path string) string {
	return `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ` + name + `
  namespace: flux-system
spec:
  interval: 10m
  path: ` + path + `
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`
}
