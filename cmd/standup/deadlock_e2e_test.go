package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/kubeevents"
	"github.com/kubestandup/standup/pkg/wait"
)

const (
	deadlockRepo = "../../examples/homelab-deadlock"
	seedBundle   = deadlockRepo + "/bootstrap/crds"
	storageCRD   = "storageprofiles.cdi.kubevirt.io"
)

// seedCluster lends t the shared world holding the seed's broken layout:
// the root Kustomization only, the simulated cdi-operator, and Flux's own
// flags plus extra controller args. The seed names its namespaces
// (flux-system and those it applies), so it cannot move to namespaces of
// its own: the shared world is empty of it when a test starts.
func seedCluster(t *testing.T, repo string, controllerArgs ...string) *testenv.World {
	t.Helper()
	return seedClusterWith(t, repo, testenv.Options{ControllerArgs: controllerArgs})
}

func seedClusterWith(t *testing.T, repo string, opts testenv.Options) *testenv.World {
	t.Helper()
	w := sharedWorld(t, opts, "flux-system")
	ctx := context.Background()
	// The deadlock exists only while the runtime CRDs do not.
	for _, name := range []string{storageCRD, "datavolumes.cdi.kubevirt.io"} {
		err := w.Client.Get(ctx, client.ObjectKey{Name: name}, &apiextensionsv1.CustomResourceDefinition{})
		if !apierrors.IsNotFound(err) {
			t.Fatalf("CustomResourceDefinition/%s must be absent for the seed to deadlock: get returned %v", name, err)
		}
	}
	if _, err := w.Artifacts.Publish(ctx, w.Client, "flux-system", "flux-system", repo); err != nil {
		t.Fatal(err)
	}
	var runtimeCRDs []*apiextensionsv1.CustomResourceDefinition
	for _, f := range []string{seedBundle + "/storageprofiles.cdi.kubevirt.io.yaml", "testdata/cdi-runtime-crds/datavolumes.cdi.kubevirt.io.yaml"} {
		crd, err := testenv.LoadCRD(f)
		if err != nil {
			t.Fatal(err)
		}
		runtimeCRDs = append(runtimeCRDs, crd)
	}
	w.StartOperator(&testenv.RuntimeCRDOperator{
		Trigger: schema.GroupVersionResource{Group: "cdi.kubevirt.io", Version: "v1beta1", Resource: "cdis"},
		CRDs:    runtimeCRDs, Delay: 2 * time.Second,
	})
	create(t, w, testenv.KS{Namespace: "flux-system", Name: "flux-system", Path: "./clusters/prod", Source: "flux-system", Prune: true})
	return w
}

// stuck waits until Flux alone has deadlocked platform-config on the
// StorageProfile dry-run.
func stuck(t *testing.T, w *testenv.World) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		ks := &kustomizev1Kustomization{}
		if err := w.Client.Get(context.Background(), client.ObjectKey{Namespace: "flux-system", Name: "platform-config"}, ks); err == nil {
			if c := readyCondition(ks); c != nil && strings.Contains(c.Message, `no matches for kind "StorageProfile"`) {
				return
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatal("platform-config never reached the seed's deadlock under Flux alone")
}

func crdNames(t *testing.T, w *testenv.World) map[string]string {
	t.Helper()
	list := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := w.Client.List(context.Background(), list); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range list.Items {
		out[c.Name] = c.ResourceVersion
	}
	return out
}

// TestResumeRepairsSeedDeadlock runs against every kustomize-controller
// release of the matrix (testenv.Releases).
func TestResumeRepairsSeedDeadlock(t *testing.T) {
	for _, release := range testenv.Releases() {
		t.Run(release, func(t *testing.T) { testResumeRepairsSeedDeadlock(t, release) })
	}
}

// testResumeRepairsSeedDeadlock repairs the seed, captures the runtime
// CRDs, and repairs a fresh stuck cluster with that capture: two turns in
// the shared world, the capture kept between them.
func testResumeRepairsSeedDeadlock(t *testing.T, release string) {
	captured := filepath.Join(t.TempDir(), "bundle")
	if !t.Run("repair and capture", func(t *testing.T) { repairSeedAndCapture(t, release, captured) }) {
		return
	}
	t.Run("the capture repairs a fresh stuck cluster", func(t *testing.T) {
		fresh := seedClusterWith(t, deadlockRepo, testenv.Options{ControllerArgs: []string{"--requeue-dependency=2s"}}.ForRelease(release))
		stuck(t, fresh)
		repair := runCLI(t, fresh, "crds", "--crds", captured)
		if repair.Code != ExitOK {
			t.Fatalf("crds with the captured bundle: exit %d: %v", repair.Code, repair.Err)
		}
		if ks := getKS(t, fresh, "flux-system", "platform-config"); !isReady(ks) {
			t.Fatalf("platform-config not Ready after crds: %v", ks.Status.Conditions)
		}
	})
}

// repairSeedAndCapture resumes the seed with the bundle, checks the repair
// on the cluster, and writes the runtime CRD crds capture finds into the
// directory captured.
func repairSeedAndCapture(t *testing.T, release, captured string) {
	w := seedClusterWith(t, deadlockRepo, testenv.Options{}.ForRelease(release))
	res := runCLI(t, w, "resume", "--crds", seedBundle, "-o", "json")
	if res.Code != ExitOK {
		t.Fatalf("exit %d: %v", res.Code, res.Err)
	}
	evs := events(t, res.Stdout)
	var applied []string
	var firstFailure, proven time.Time
	for _, e := range evs {
		switch {
		case e.Type == wait.EventDiagnosis && strings.Contains(e.Message, "suspected") && firstFailure.IsZero():
			firstFailure = e.Time
		case e.Type == wait.EventDiagnosis && strings.Contains(e.Message, "proven"):
			proven = e.Time
			if e.Node.Name != "platform-config" || e.Diagnosis == nil || e.Diagnosis.Missing[0].Kind != "StorageProfile" {
				t.Errorf("diagnosis names %v %+v, want platform-config missing StorageProfile", e.Node, e.Diagnosis)
			}
		case e.Type == wait.EventAction && e.Action == string(wait.ActionPreApplyCRDs):
			applied = append(applied, e.Message)
		}
	}
	s := summaryOf(t, evs)
	if len(applied) != 1 || !strings.Contains(applied[0], storageCRD) {
		t.Fatalf("pre-apply actions = %v, want exactly one creating %s", applied, storageCRD)
	}
	if firstFailure.IsZero() || proven.IsZero() {
		t.Fatal("no suspected-then-proven diagnosis in the events")
	}
	t.Logf("first failure -> proven diagnosis: %s; walk to all Ready: %.1fs; mutations: %d",
		proven.Sub(firstFailure).Round(time.Millisecond), time.Duration(s.Elapsed).Seconds(), s.Mutations)
	// Flux may re-run a Ready Kustomization on its own (the root re-applies
	// the tiers); a dependent checking it at that moment waits for Flux's
	// next re-check. standup's claim is checked against the cluster, allowing
	// for that one re-check.
	allReady(t, w, 45*time.Second)
	if t.Failed() {
		t.Logf("events:\n%s", res.Stdout)
	}
	if s.Ready != len(listKS(t, w)) {
		t.Errorf("summary %+v does not cover every Kustomization", s)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := w.Client.Get(context.Background(), client.ObjectKey{Name: storageCRD}, crd); err != nil {
		t.Fatal(err)
	}
	if got := crd.Annotations[crds.PreAppliedForAnnotation]; got != "Kustomization/flux-system/platform-config" {
		t.Errorf("annotation %s = %q", crds.PreAppliedForAnnotation, got)
	}

	// A second `standup crds` finds nothing to do and changes nothing.
	beforeCRDs, beforeKS := crdNames(t, w), ksVersions(t, w)
	again := runCLI(t, w, "crds", "--crds", seedBundle)
	if again.Code != ExitOK || !strings.Contains(again.Stdout, "nothing to do") {
		t.Fatalf("second crds: exit %d, stdout %q", again.Code, again.Stdout)
	}
	if !equalMaps(beforeCRDs, crdNames(t, w)) || !equalMaps(beforeKS, ksVersions(t, w)) {
		t.Error("second crds run changed the cluster")
	}

	// Capture on the converged cluster writes the runtime CRDs, not Flux's.
	out := t.TempDir()
	capture := runCLI(t, w, "crds", "capture", "--out", out)
	if capture.Code != ExitOK {
		t.Fatalf("capture exit %d: %v", capture.Code, capture.Err)
	}
	files := dirNames(t, out)
	if !slices.Contains(files, storageCRD+".yaml") || slices.Contains(files, "cdis.cdi.kubevirt.io.yaml") {
		t.Fatalf("captured %v: want %s and not the CRDs Flux applied", files, storageCRD)
	}
	if err := os.MkdirAll(captured, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(out, storageCRD+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(captured, storageCRD+".yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCRDsRefusesBadBundlesAndChangesNothing(t *testing.T) {
	w := seedCluster(t, deadlockRepo, "--requeue-dependency=2s")
	stuck(t, w)
	otherCRD := filepath.Join(t.TempDir(), "other")
	if err := os.MkdirAll(otherCRD, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(otherCRD, "widgets.yaml"), []byte(widgetCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	malformed := filepath.Join(t.TempDir(), "malformed")
	if err := os.MkdirAll(malformed, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(malformed, "bad.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		bundle   string
		wantCode int
		wantText string
	}{
		{name: "kind not in bundle", bundle: otherCRD, wantCode: ExitDeadlock, wantText: "move those objects into their own Kustomization"},
		{name: "malformed bundle", bundle: malformed, wantCode: ExitFailure, wantText: "bad.yaml"},
		{name: "missing bundle dir", bundle: filepath.Join(t.TempDir(), "nope"), wantCode: ExitFailure, wantText: "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			beforeCRDs, beforeKS := crdNames(t, w), ksVersions(t, w)
			res := runCLI(t, w, "crds", "--crds", tt.bundle)
			if res.Code != tt.wantCode {
				t.Fatalf("exit %d, want %d", res.Code, tt.wantCode)
			}
			if text := res.Stdout + res.Stderr; !strings.Contains(text, tt.wantText) {
				t.Fatalf("output does not say %q:\n%s", tt.wantText, text)
			}
			if !equalMaps(beforeCRDs, crdNames(t, w)) {
				t.Error("a CRD was created or changed")
			}
			if !equalMaps(beforeKS, ksVersions(t, w)) {
				t.Error("a Kustomization was changed")
			}
		})
	}
}

func TestCRDsAllNeverTouchesExistingCRDs(t *testing.T) {
	w := sharedWorld(t, testenv.Options{NoController: true})
	ctx := context.Background()
	existing, err := testenv.LoadCRD("testdata/widgets-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Client.Create(ctx, existing, client.FieldOwner("another-manager")); err != nil {
		t.Fatal(err)
	}
	// Read it as the API server's last status write (Established) left it:
	// from there on, only another client moves its resourceVersion.
	before, err := w.SettledCRD(ctx, existing.Name)
	if err != nil {
		t.Fatal(err)
	}
	bundle := t.TempDir()
	data, _ := os.ReadFile(seedBundle + "/storageprofiles.cdi.kubevirt.io.yaml")
	// The bundle's copy of widgets differs from the cluster's: it must not be applied.
	other := strings.Replace(widgetCRD, "served: true", "served: true\n      deprecated: true", 1)
	for name, content := range map[string]string{"sp.yaml": string(data), "widgets.yaml": other} {
		if err := os.WriteFile(filepath.Join(bundle, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	beforeEvents := standupEvents(t, w, "default", "CustomResourceDefinition", storageCRD)
	for run := 1; run <= 2; run++ {
		res := runCLI(t, w, "crds", "--all", "--crds", bundle)
		if res.Code != ExitOK {
			t.Fatalf("run %d: exit %d: %v", run, res.Code, res.Err)
		}
		// The CRD it created has its PreApplied Event, once: the second
		// run created nothing and posts nothing. The CRD it left alone has
		// none.
		evs := newEvents(beforeEvents, standupEvents(t, w, "default", "CustomResourceDefinition", storageCRD))
		if len(evs) != 1 || evs[0].Reason != kubeevents.ReasonPreApplied || evs[0].Count > 1 || evs[0].Series != nil {
			t.Errorf("run %d: CustomResourceDefinition/%s's Events %v: want one %s", run, storageCRD, reasonsOf(evs), kubeevents.ReasonPreApplied)
		}
	}
	if evs := standupEvents(t, w, "default", "CustomResourceDefinition", existing.Name); len(evs) != 0 {
		t.Errorf("the CRD --all left alone has standup Events: %v", reasonsOf(evs))
	}
	after := &apiextensionsv1.CustomResourceDefinition{}
	if err := w.Client.Get(ctx, client.ObjectKey{Name: existing.Name}, after); err != nil {
		t.Fatal(err)
	}
	if after.ResourceVersion != before.ResourceVersion || len(after.ManagedFields) != len(before.ManagedFields) || after.Spec.Versions[0].Deprecated {
		t.Fatalf("existing CRD was modified: resourceVersion %s -> %s", before.ResourceVersion, after.ResourceVersion)
	}
	sp := &apiextensionsv1.CustomResourceDefinition{}
	if err := w.Client.Get(ctx, client.ObjectKey{Name: storageCRD}, sp); err != nil {
		if apierrors.IsNotFound(err) {
			t.Fatal("--all did not apply the absent bundle CRD")
		}
		t.Fatal(err)
	}
	if !createdByStandup(sp) {
		t.Errorf("managedFields %v: want a create by field manager %q", sp.ManagedFields, crds.FieldManager)
	}
}

// createdByStandup reports whether standup's field manager wrote crd with
// a create (recorded as an Update; a server-side apply would be an Apply).
func createdByStandup(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, m := range crd.ManagedFields {
		if m.Manager == crds.FieldManager {
			return m.Operation == metav1.ManagedFieldsOperationUpdate && m.Subresource == ""
		}
	}
	return false
}

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    listKind: WidgetList
    plural: widgets
    singular: widget
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
`

func ksVersions(t *testing.T, w *testenv.World) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, k := range listKS(t, w) {
		out[k.Namespace+"/"+k.Name] = k.ResourceVersion
	}
	return out
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// allReady waits until every Kustomization on the cluster is Ready, failing
// the test with those that are not when the time runs out.
func allReady(t *testing.T, w *testenv.World, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var notReady []string
		for _, ks := range listKS(t, w) {
			if !isReady(&ks) {
				notReady = append(notReady, fmt.Sprintf("Kustomization/%s/%s %v", ks.Namespace, ks.Name, ks.Status.Conditions))
			}
		}
		if len(notReady) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("not Ready:\n%s", strings.Join(notReady, "\n"))
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
}
