package testenv

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// helmOptions are the options of this package's helm-controller worlds.
var helmOptions = Options{Helm: true}

// TestHelmControllerInstallsEachTestChart installs each chart of
// testdata/charts with the real helm-controller v1.5.5, the world playing
// source-controller for the HelmChart it makes: the HelmRelease becomes
// Ready at its generation, having attempted the chart's version, and Helm's
// release secret and the chart's objects exist. Each chart brings its CRD
// its own way: none, crds/ (Helm creates it before the templates and does
// not own it), templates/ (the release owns it), and an operator that
// registers it once it runs.
func TestHelmControllerInstallsEachTestChart(t *testing.T) {
	w := worlds.Get(t, helmOptions)
	ctx := faultCtx(t)
	ns := UniqueName("charts")
	if err := w.CreateNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	gizmos, err := LoadCRD(filepath.Join("testdata", "runtime-crds", "gizmos.runtime.standup.test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	op := &RuntimeCRDOperator{
		Trigger:         schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		TriggerSelector: "standup.test/operator=gizmo",
		CRDs:            []*apiextensionsv1.CustomResourceDefinition{gizmos}, Delay: 500 * time.Millisecond,
	}
	w.StartOperator(op)
	cases := []struct {
		chart     string
		configMap string // what the chart's templates install
		crd       string // the CRD the chart brings, "" for none
		owned     bool   // whether the release owns it (Helm's ownership metadata)
	}{
		{chart: "plain", configMap: "plain-plain"},
		{chart: "gadgets", configMap: "gadgets-gadgets", crd: "gadgets.crds.standup.test"},
		{chart: "sprockets", configMap: "sprockets-sprockets", crd: "sprockets.templates.standup.test", owned: true},
		{chart: "gizmo-operator", configMap: "gizmo-operator-operator", crd: "gizmos.runtime.standup.test"},
	}
	for _, tc := range cases {
		if _, err := w.PublishChart(filepath.Join("testdata", "charts", tc.chart)); err != nil {
			t.Fatal(err)
		}
		hr := HR{Namespace: ns, Name: tc.chart, Chart: tc.chart}.HelmRelease()
		if err := w.Client.Create(ctx, hr); err != nil {
			t.Fatalf("HelmRelease/%s/%s create failed: %v", ns, tc.chart, err)
		}
	}
	for _, tc := range cases {
		eventually(t, 90*time.Second, "HelmRelease "+tc.chart+" Ready", func() (bool, string) {
			hr := getHR(t, w, ns, tc.chart)
			ready, state := hrReady(hr)
			rev, _, _ := unstructured.NestedString(hr.Object, "status", "lastAttemptedRevision")
			return ready && rev == "1.0.0", state + " lastAttemptedRevision=" + rev
		})
		secret := &corev1.Secret{}
		if err := w.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "sh.helm.release.v1." + tc.chart + ".v1"}, secret); err != nil {
			t.Errorf("%s: Helm's release secret: %v", tc.chart, err)
		}
		if err := w.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: tc.configMap}, &corev1.ConfigMap{}); err != nil {
			t.Errorf("%s: the chart's ConfigMap: %v", tc.chart, err)
		}
		if tc.crd == "" {
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		eventually(t, 30*time.Second, "CRD "+tc.crd, func() (bool, string) {
			err := w.Client.Get(ctx, client.ObjectKey{Name: tc.crd}, crd)
			return err == nil, fmt.Sprint(err)
		})
		owner := crd.Annotations["meta.helm.sh/release-name"]
		if got := owner == tc.chart && crd.Labels["app.kubernetes.io/managed-by"] == "Helm"; got != tc.owned {
			t.Errorf("%s: CRD %s owned by the release = %v, want %v (labels %v, annotations %v)", tc.chart, tc.crd, got, tc.owned, crd.Labels, crd.Annotations)
		}
	}
	if op.CreatedAt().IsZero() {
		t.Errorf("the simulated gizmo operator never ran: %v", op.Err())
	}
}

func getHR(t *testing.T, w *World, ns, name string) *unstructured.Unstructured {
	t.Helper()
	hr := &unstructured.Unstructured{}
	hr.SetGroupVersionKind(HelmReleaseGVK)
	if err := w.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, hr); err != nil {
		t.Fatalf("HelmRelease/%s/%s get failed: %v", ns, name, err)
	}
	return hr
}

// hrReady reports whether hr is Ready at its generation, and its state.
func hrReady(hr *unstructured.Unstructured) (bool, string) {
	observed, _, _ := unstructured.NestedInt64(hr.Object, "status", "observedGeneration")
	conds, _, _ := unstructured.NestedSlice(hr.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Ready" {
			state := fmt.Sprintf("Ready=%v %v: %v (generation %d, observed %d)", m["status"], m["reason"], m["message"], hr.GetGeneration(), observed)
			return m["status"] == "True" && observed == hr.GetGeneration(), state
		}
	}
	return false, "no Ready condition"
}
