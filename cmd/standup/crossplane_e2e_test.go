package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/wait"
)

// Issue 35, the live side of Crossplane: a Kustomization applies a
// Crossplane Provider and its ProviderConfig in one pass, as Crossplane's
// getting-started guide lists them. Crossplane's package manager, simulated
// (testenv.RuntimeCRDOperator, as the CDI operator is), creates the
// provider's CRDs only once the Provider exists. Under Flux alone the
// dry-run fails on ProviderConfig, so the Provider is never applied and
// the CRD never appears. standup knows the trigger with no standup.yaml
// (the provider's group names it: Crossplane's provider package naming),
// so the failure of its own request proves the deadlock at once, and it
// pre-applies the CRD from the bundle.

var providersGVR = schema.GroupVersionResource{Group: "pkg.crossplane.io", Version: "v1", Resource: "providers"}

// clusterCRD is a cluster-scoped CRD that keeps any field.
func clusterCRD(t *testing.T, group, kind, plural string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	text := fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %[3]s.%[1]s
spec:
  group: %[1]s
  names:
    kind: %[2]s
    listKind: %[2]sList
    plural: %[3]s
    singular: %[4]s
  scope: Cluster
  versions:
    - name: v1
      served: true
      storage: true
      subresources: {status: {}}
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
`, group, kind, plural, strings.ToLower(kind))
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict([]byte(text), crd); err != nil {
		t.Fatal(err)
	}
	return crd
}

func TestCrossplaneProviderDeadlockRepairedWithTheFastProof(t *testing.T) {
	ctx := context.Background()
	ns := testenv.UniqueName("xp")
	w := sharedWorld(t, testenv.Options{}, ns)
	// Crossplane's own CRD is there (its init container installs it); the
	// family provider's group is unique to this test, as the CRDs are
	// cluster-wide in a shared world.
	providers := clusterCRD(t, "pkg.crossplane.io", "Provider", "providers")
	if err := w.Client.Create(ctx, providers); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if err := w.WaitCRDEstablished(ctx, providers.Name); err != nil {
		t.Fatal(err)
	}
	family := strings.ReplaceAll(ns, "-", "")
	group := family + ".upbound.io"
	configs := clusterCRD(t, group, "ProviderConfig", "providerconfigs")
	op := &testenv.RuntimeCRDOperator{Trigger: providersGVR, TriggerSelector: "xp=" + ns, CRDs: []*apiextensionsv1.CustomResourceDefinition{configs}, Delay: 2 * time.Second}
	w.StartOperator(op)

	configYAML, err := yaml.Marshal(configs)
	if err != nil {
		t.Fatal(err)
	}
	bundle := writeTree(t, t.TempDir(), map[string]string{"crds/providerconfigs.yaml": string(configYAML)}) + "/crds"
	repo := writeTree(t, t.TempDir(), map[string]string{
		"providers/provider.yaml": "apiVersion: pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-family-" + family + "\n  labels: {xp: " + ns + "}\n" +
			"spec:\n  package: xpkg.upbound.io/upbound/provider-family-" + family + ":v1.14.0\n",
		"providers/providerconfig.yaml": "apiVersion: " + group + "/v1\nkind: ProviderConfig\nmetadata:\n  name: default-" + ns + "\nspec:\n  credentials:\n    source: Secret\n",
		"after/cm.yaml":                 "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: after\n  namespace: " + ns + "\n",
	})
	publish(t, w, ns, repo)
	create(t, w,
		testenv.KS{Namespace: ns, Name: "providers", Path: "./providers"},
		testenv.KS{Namespace: ns, Name: "after", Path: "./after", DependsOn: []meta.NamespacedObjectReference{testenv.Dep("", "providers")}})

	// Flux alone: the dry-run fails on ProviderConfig, and nothing
	// creates its CRD, since the Provider was never applied.
	waitStuckOn(t, w, ns, "providers", "ProviderConfig")
	list, err := w.Dynamic.Resource(providersGVR).List(ctx, metav1.ListOptions{LabelSelector: "xp=" + ns})
	if err != nil || len(list.Items) != 0 {
		t.Fatalf("Providers under Flux alone: %v, %d; want none applied", err, len(list.Items))
	}
	if err := w.Client.Get(ctx, client.ObjectKey{Name: configs.Name}, &apiextensionsv1.CustomResourceDefinition{}); !apierrors.IsNotFound(err) {
		t.Fatalf("%s under Flux alone: %v, want it never created (the deadlock)", configs.Name, err)
	}

	res := runWith(ctx, t, runSpec{kubeconfig: w.Kubeconfig}, "resume", "--crds", bundle, "-o", "json")
	if res.Code != ExitOK {
		t.Fatalf("exit %d: %v\n%s", res.Code, res.Err, tailLines(res.Stdout, 40))
	}
	evs := events(t, res.Stdout)
	assertNoFalseProof(t, evs)
	suspected, proven := diagnoses(evs)
	if suspected == nil || proven == nil || proven.Proof == nil || proven.Proof.Kind != wait.ProofCertain {
		t.Fatalf("want a certain proof:\n%s", res.Stdout)
	}
	if want := "no Provider.pkg.crossplane.io object exists (trigger from Crossplane's provider package naming (" + group + "))"; !strings.Contains(proven.Proof.Reason, want) {
		t.Errorf("proof reason %q does not say %q", proven.Proof.Reason, want)
	}
	if took := proven.Time.Sub(suspected.Time); took > time.Second {
		t.Errorf("suspected -> proven took %s: the certain proof waits for nothing", took)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := w.Client.Get(ctx, client.ObjectKey{Name: configs.Name}, crd); err != nil {
		t.Fatal(err)
	}
	if got, want := crd.Annotations[crds.PreAppliedForAnnotation], "Kustomization/"+ns+"/providers"; got != want {
		t.Errorf("%s pre-applied for %q, want %q", configs.Name, got, want)
	}
	for _, name := range []string{"providers", "after"} {
		if ks := getKS(t, w, ns, name); !isReady(ks) {
			t.Errorf("%s/%s not Ready: %v", ns, name, ks.Status.Conditions)
		}
	}
	if err := op.Err(); err != nil {
		t.Errorf("the package manager: %v", err)
	}
}
