package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
)

// The RBAC world adds to the suspended graph what makes every verb of the
// roles matter: Kustomizations building from an OCIRepository and a Bucket,
// a HelmRelease, and a Kustomization deadlocked on a CRD the bundle holds.
const (
	stuckName = "needs-sprockets"
	// sprocketsCRD is the CRD stuck/needs-sprockets waits for; gearsCRD is
	// in the bundle only, for crds --all.
	sprocketsCRD = "sprockets.example.com"
	gearsCRD     = "gears.example.com"
)

// rbacBundle writes the CRD bundle: sprockets (the deadlock) and gears.
func rbacBundle(t *testing.T) string {
	t.Helper()
	crd := func(plural, kind string) string {
		return strings.NewReplacer("widgets", plural, "Widget", kind, "singular: widget", "singular: "+strings.ToLower(kind)).Replace(widgetCRD)
	}
	return writeTree(t, t.TempDir(), map[string]string{
		"sprockets.yaml": crd("sprockets", "Sprocket"),
		"gears.yaml":     crd("gears", "Gear"),
	})
}

// rbacScene is the RBAC world: the graph, the namespace of the deadlocked
// Kustomization, and every Kustomization the walk must bring to Ready.
type rbacScene struct {
	g     graph8
	stuck string
	all   []testenv.KS
}

// rbacWorld adds the sources, Kustomizations and HelmRelease to w (which
// holds g, from suspendedGraph).
func rbacWorld(t *testing.T, w *testenv.World, g graph8) rbacScene {
	t.Helper()
	ctx := context.Background()
	sc := rbacScene{g: g, stuck: testenv.UniqueName("stuck"), all: append([]testenv.KS{}, g.kss...)}
	for _, ns := range []string{sc.stuck, g.infra + "-from-oci", g.infra + "-from-bucket"} {
		if err := w.CreateNamespace(ctx, ns); err != nil {
			t.Fatal(err)
		}
	}
	git := &sourcev1.GitRepository{}
	if err := w.Client.Get(ctx, client.ObjectKey{Namespace: g.infra, Name: "repo"}, git); err != nil {
		t.Fatal(err)
	}
	oci := &sourcev1.OCIRepository{ObjectMeta: metav1.ObjectMeta{Namespace: g.infra, Name: "oci"},
		Spec: sourcev1.OCIRepositorySpec{URL: "oci://registry.invalid/standup-test", Interval: metav1.Duration{Duration: time.Hour}, Suspend: true}}
	bucket := &sourcev1.Bucket{ObjectMeta: metav1.ObjectMeta{Namespace: g.infra, Name: "bucket"},
		Spec: sourcev1.BucketSpec{BucketName: "standup-test", Endpoint: "bucket.invalid", Interval: metav1.Duration{Duration: time.Hour}, Suspend: true}}
	servesArtifact(t, w, oci, git.Status.Artifact, &oci.Status.Artifact, &oci.Status.Conditions)
	servesArtifact(t, w, bucket, git.Status.Artifact, &bucket.Status.Artifact, &bucket.Status.Conditions)
	for kind, name := range map[string]string{sourcev1.OCIRepositoryKind: "from-oci", sourcev1.BucketKind: "from-bucket"} {
		k := testenv.KS{Namespace: g.infra, Name: name, Path: "./ok", Suspend: true, TargetNamespace: g.infra + "-" + name, Source: strings.TrimPrefix(name, "from-")}
		ks := k.Kustomization()
		ks.Spec.SourceRef.Kind = kind
		if err := w.Client.Create(ctx, ks); err != nil {
			t.Fatalf("Kustomization/%s/%s create failed: %v", g.infra, name, err)
		}
		sc.all = append(sc.all, k)
	}

	stuckDir := writeTree(t, t.TempDir(), map[string]string{
		"sprocket.yaml": "apiVersion: example.com/v1\nkind: Sprocket\nmetadata:\n  name: s\n  namespace: " + sc.stuck + "\n",
	})
	publish(t, w, sc.stuck, stuckDir)
	stuckKS := testenv.KS{Namespace: sc.stuck, Name: stuckName, Path: "./"}
	create(t, w, stuckKS)
	sc.all = append(sc.all, stuckKS)
	waitStuck(t, w, sc.stuck)

	installHelmRelease(t, w, g.apps)
	return sc
}

// servesArtifact creates src (suspended: no source-controller runs) and
// gives it the GitRepository's artifact, as source-controller would.
func servesArtifact(t *testing.T, w *testenv.World, src client.Object, artifact *meta.Artifact, into **meta.Artifact, conds *[]metav1.Condition) {
	t.Helper()
	ctx := context.Background()
	if err := w.Client.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	*into = artifact.DeepCopy()
	apimeta.SetStatusCondition(conds, metav1.Condition{Type: meta.ReadyCondition, Status: metav1.ConditionTrue, Reason: meta.SucceededReason,
		Message: "stored artifact for revision '" + artifact.Revision + "'", ObservedGeneration: src.GetGeneration()})
	if err := w.Client.Status().Update(ctx, src); err != nil {
		t.Fatal(err)
	}
}

// waitStuck waits until Flux alone has deadlocked ns/needs-sprockets.
func waitStuck(t *testing.T, w *testenv.World, ns string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		ks := &kustomizev1.Kustomization{}
		if err := w.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: stuckName}, ks); err == nil {
			if c := readyCondition(ks); c != nil && strings.Contains(c.Message, `no matches for kind "Sprocket"`) {
				return
			}
		}
	}
	t.Fatalf("%s/%s never deadlocked on the Sprocket dry-run", ns, stuckName)
}

// installHelmRelease installs the HelmRelease CRD and one HelmRelease,
// ns/podinfo, Ready as helm-controller would leave it installed (no
// helm-controller runs here).
func installHelmRelease(t *testing.T, w *testenv.World, ns string) {
	t.Helper()
	ctx := context.Background()
	crd, err := testenv.LoadCRD("testdata/helmrelease-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Client.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	if err := w.WaitCRDEstablished(ctx, crd.Name); err != nil {
		t.Fatal(err)
	}
	hr := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"name": "podinfo", "namespace": ns},
		"spec":     map[string]any{"interval": "1h", "chart": map[string]any{"spec": map[string]any{"chart": "podinfo"}}},
	}}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		// A CRD just established may take a moment more to be served.
		if err = w.Client.Create(ctx, hr); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	hr.Object["status"] = map[string]any{
		"observedGeneration": hr.GetGeneration(),
		"conditions": []any{map[string]any{
			"type": "Ready", "status": "True", "reason": "InstallSucceeded", "message": "Helm install succeeded",
			"lastTransitionTime": time.Now().UTC().Format(time.RFC3339), "observedGeneration": hr.GetGeneration(),
		}},
	}
	if err := w.Client.Status().Update(ctx, hr); err != nil {
		t.Fatalf("HelmRelease/%s/podinfo status update failed: %v", ns, err)
	}
}

// suspendGraph suspends every Kustomization but the deadlocked one (in
// namespace stuck), as the admin, so that a walk has work.
func suspendGraph(t *testing.T, w *testenv.World, stuck string) {
	t.Helper()
	for _, ks := range listKS(t, w) {
		if ks.Spec.Suspend || ks.Namespace == stuck {
			continue
		}
		patch := client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"suspend":true}}`))
		if err := w.Client.Patch(context.Background(), &ks, patch); err != nil {
			t.Fatal(err)
		}
	}
}

// capturedFile reports whether crds capture wrote name into dir.
func capturedFile(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name+".yaml"))
	return err == nil
}
