package flux

import (
	"context"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	"github.com/kubestandup/standup/pkg/tiers"
)

// liveHelmRelease is a HelmRelease as helm-controller v1.5.5 leaves it
// after installing a chart whose crds/ holds a CRD.
const liveHelmRelease = `
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: web
  namespace: apps
  generation: 3
  annotations:
    reconcile.fluxcd.io/requestedAt: t1
  labels:
    kustomize.toolkit.fluxcd.io/name: apps
    kustomize.toolkit.fluxcd.io/namespace: flux-system
spec:
  interval: 10m
  timeout: 90s
  dependsOn:
    - name: db
    - name: cache
      namespace: infra
  chart:
    spec:
      chart: web
      sourceRef:
        kind: HelmRepository
        name: charts
status:
  observedGeneration: 3
  helmChart: flux-system/apps-web
  lastAttemptedRevision: 1.0.0
  lastHandledReconcileAt: t1
  conditions:
    - type: Ready
      status: "True"
      reason: InstallSucceeded
      message: Helm install succeeded
    - type: Released
      status: "True"
      reason: InstallSucceeded
      message: Helm install succeeded
  inventory:
    entries:
      - id: _gadgets.crds.standup.test_apiextensions.k8s.io_CustomResourceDefinition
        v: v1
      - id: apps_web-gadgets__ConfigMap
        v: v1
`

func TestFromHelmReleaseLive(t *testing.T) {
	data, err := yaml.YAMLToJSON([]byte(liveHelmRelease))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil { // as the API server's answers are decoded
		t.Fatal(err)
	}
	got, err := FromHelmRelease(u)
	if err != nil {
		t.Fatal(err)
	}
	got.Raw = nil
	want := Object{
		Node: tiers.Node{ID: tiers.ID{Kind: KindHelmRelease, Namespace: "apps", Name: "web"}, DependsOn: []tiers.Dependency{
			{ID: tiers.ID{Kind: KindHelmRelease, Namespace: "apps", Name: "db"}},
			{ID: tiers.ID{Kind: KindHelmRelease, Namespace: "infra", Name: "cache"}},
		}},
		SourceRef:              tiers.ID{Kind: "HelmRepository", Namespace: "apps", Name: "charts"},
		Chart:                  tiers.ID{Kind: HelmChartKind, Namespace: "flux-system", Name: "apps-web"},
		AppliedBy:              &tiers.ID{Kind: KindKustomization, Namespace: "flux-system", Name: "apps"},
		Ready:                  &Condition{Status: "True", Reason: "InstallSucceeded", Message: "Helm install succeeded"},
		LastAppliedRevision:    "1.0.0",
		Generation:             3,
		ObservedGeneration:     3,
		RequestedAt:            "t1",
		LastHandledReconcileAt: "t1",
		Inventory:              []string{"_gadgets.crds.standup.test_apiextensions.k8s.io_CustomResourceDefinition", "apps_web-gadgets__ConfigMap"},
		Timeout:                90 * time.Second,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FromHelmRelease =\n%+v\nwant\n%+v", got, want)
	}
	if got.RevisionSource() != want.Chart {
		t.Errorf("RevisionSource = %v, want the HelmChart", got.RevisionSource())
	}
	if nodes := NodesInInventory(got.Inventory); len(nodes) != 0 {
		t.Errorf("NodesInInventory = %v, want none", nodes)
	}
}

// TestRequestReconcileHelmRelease: the same merge patch as on a
// Kustomization, sent to the HelmRelease (flux reconcile hr; flux resume hr).
func TestRequestReconcileHelmRelease(t *testing.T) {
	hr := &unstructured.Unstructured{}
	hr.SetGroupVersionKind(HelmReleaseGVK)
	hr.SetNamespace("apps")
	hr.SetName("web")
	if err := unstructured.SetNestedField(hr.Object, true, "spec", "suspend"); err != nil {
		t.Fatal(err)
	}
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(hr).Build()
	id := tiers.ID{Kind: KindHelmRelease, Namespace: "apps", Name: "web"}
	if err := RequestReconcile(context.Background(), c, id, "t2", true); err != nil {
		t.Fatal(err)
	}
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(HelmReleaseGVK)
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "apps", Name: "web"}, got); err != nil {
		t.Fatal(err)
	}
	suspend, _, _ := unstructured.NestedBool(got.Object, "spec", "suspend")
	if got.GetAnnotations()[ReconcileRequestAnnotation] != "t2" || suspend {
		t.Errorf("annotations %v, suspend %v: want requestedAt t2 and resumed", got.GetAnnotations(), suspend)
	}
}

func TestNodesInInventory(t *testing.T) {
	ids := []string{
		"flux-system_apps_kustomize.toolkit.fluxcd.io_Kustomization",
		"apps_web_helm.toolkit.fluxcd.io_HelmRelease",
		"apps_web_source.toolkit.fluxcd.io_HelmRepository",
		"apps_cm__ConfigMap",
	}
	want := []tiers.ID{
		{Kind: KindKustomization, Namespace: "flux-system", Name: "apps"},
		{Kind: KindHelmRelease, Namespace: "apps", Name: "web"},
	}
	if got := NodesInInventory(ids); !reflect.DeepEqual(got, want) {
		t.Errorf("NodesInInventory = %v, want %v", got, want)
	}
}
