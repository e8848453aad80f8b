package testenv

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/fluxcd/cli-utils/pkg/flowcontrol"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var cdiGVR = schema.GroupVersionResource{Group: "cdi.kubevirt.io", Version: "v1beta1", Resource: "cdis"}

// seedWorld lends t the shared world with the simulated cdi-operator and
// the seed tree published as GitRepository flux-system/flux-system.
func seedWorld(t *testing.T) (*World, *RuntimeCRDOperator) {
	t.Helper()
	w := worlds.Get(t, seedOptions)
	ctx := context.Background()
	if err := w.CreateNamespace(ctx, "flux-system"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Artifacts.Publish(ctx, w.Client, "flux-system", "flux-system", "testdata/seed"); err != nil {
		t.Fatal(err)
	}
	crd, err := LoadCRD(filepath.Join("testdata", "seed", "storageprofiles-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	op := &RuntimeCRDOperator{Trigger: cdiGVR, CRDs: []*apiextensionsv1.CustomResourceDefinition{crd}, Delay: time.Second}
	w.StartOperator(op)
	return w, op
}

func createAll(t *testing.T, w *World, kss ...KS) {
	t.Helper()
	for _, k := range kss {
		k.Namespace, k.Source = "flux-system", "flux-system"
		if err := w.Client.Create(context.Background(), k.Kustomization()); err != nil {
			t.Fatalf("Kustomization/%s create failed: %v", k.Name, err)
		}
	}
}

func readyOf(t *testing.T, w *World, name string) *kustomizev1.Kustomization {
	t.Helper()
	return readyOfIn(t, w, "flux-system", name)
}

func readyOfIn(t *testing.T, w *World, namespace, name string) *kustomizev1.Kustomization {
	t.Helper()
	ks := &kustomizev1.Kustomization{}
	if err := w.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, ks); err != nil {
		t.Fatalf("Kustomization/%s/%s get failed: %v", namespace, name, err)
	}
	return ks
}

// eventually polls cond every 200 ms until it holds or the timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s: not reached within %s; last state: %s", what, timeout, last)
}

func condition(ks *kustomizev1.Kustomization) string {
	c := apimeta.FindStatusCondition(ks.Status.Conditions, meta.ReadyCondition)
	if c == nil {
		return "no Ready condition"
	}
	return fmt.Sprintf("Ready=%s %s: %s", c.Status, c.Reason, c.Message)
}

// TestSeedDeadlockUnderFluxAlone reproduces the seed incident on the real
// controller: platform-config holds the CDI CR and the StorageProfiles, the
// dry-run of the StorageProfiles aborts the pass, the CDI CR is never
// applied, the runtime CRD never appears, and the dependent waits forever.
func TestSeedDeadlockUnderFluxAlone(t *testing.T) {
	w, op := seedWorld(t)
	createAll(t, w,
		KS{Name: "operators", Path: "./operators", Wait: true},
		KS{Name: "platform-config", Path: "./deadlock-platform-config", Wait: true, DependsOn: []meta.NamespacedObjectReference{Dep("", "operators")}},
		KS{Name: "apps-vms", Path: "./apps-vms", DependsOn: []meta.NamespacedObjectReference{Dep("", "platform-config")}},
	)
	// kustomize-controller reports the first object whose dry-run failed;
	// which of the two profiles that is depends on its apply order.
	want := regexp.MustCompile(`StorageProfile/longhorn(-vm)? dry-run failed: no matches for kind "StorageProfile" in version "cdi\.kubevirt\.io/v1beta1"`)
	eventually(t, 60*time.Second, "platform-config fails its dry-run", func() (bool, string) {
		ks := readyOf(t, w, "platform-config")
		c := apimeta.FindStatusCondition(ks.Status.Conditions, meta.ReadyCondition)
		return c != nil && c.Status == "False" && c.Reason == meta.ReconciliationFailedReason && want.MatchString(c.Message), condition(ks)
	})
	t.Logf("platform-config: %s", condition(readyOf(t, w, "platform-config")))

	// The pass aborted before applying anything: no CDI CR, so the operator
	// never creates the CRD, and a second failed pass proves nothing moves.
	ks := readyOf(t, w, "platform-config")
	firstAttempt := ks.Status.LastAttemptedRevision
	w.requestReconcile(t, "platform-config")
	eventually(t, 30*time.Second, "a requested reconcile is handled and fails again", func() (bool, string) {
		ks := readyOf(t, w, "platform-config")
		return ks.Status.LastHandledReconcileAt != "" && want.MatchString(condition(ks)), condition(ks)
	})
	cdis, err := w.Dynamic.Resource(cdiGVR).List(context.Background(), listAll)
	if err != nil {
		t.Fatalf("list CDI: %v", err)
	}
	if len(cdis.Items) != 0 {
		t.Fatalf("the CDI CR was applied (%d found); the deadlock needs it never applied", len(cdis.Items))
	}
	if !op.CreatedAt().IsZero() {
		t.Fatal("the simulated operator created the runtime CRD, yet no CDI CR exists")
	}
	if firstAttempt == "" {
		t.Fatal("platform-config never attempted a revision")
	}
	eventually(t, 30*time.Second, "apps-vms waits on its dependency", func() (bool, string) {
		ks := readyOf(t, w, "apps-vms")
		c := apimeta.FindStatusCondition(ks.Status.Conditions, meta.ReadyCondition)
		return c != nil && c.Reason == meta.DependencyNotReadyReason, condition(ks)
	})
}

// TestSeedFixedLayoutConverges is the seed's repair in the graph: the
// profiles in their own Kustomization after platform-config (wait: true)
// converge under Flux alone.
func TestSeedFixedLayoutConverges(t *testing.T) {
	w, op := seedWorld(t)
	createAll(t, w,
		KS{Name: "operators", Path: "./operators", Wait: true},
		KS{Name: "platform-config", Path: "./platform-config", Wait: true, DependsOn: []meta.NamespacedObjectReference{Dep("", "operators")}},
		KS{Name: "platform-config-cdi", Path: "./platform-config-cdi", Wait: true, DependsOn: []meta.NamespacedObjectReference{Dep("", "platform-config")}},
		KS{Name: "apps-vms", Path: "./apps-vms", DependsOn: []meta.NamespacedObjectReference{Dep("", "platform-config-cdi")}},
	)
	for _, name := range []string{"operators", "platform-config", "platform-config-cdi", "apps-vms"} {
		eventually(t, 120*time.Second, name+" becomes Ready", func() (bool, string) {
			ks := readyOf(t, w, name)
			return apimeta.IsStatusConditionTrue(ks.Status.Conditions, meta.ReadyCondition), condition(ks)
		})
	}
	if op.CreatedAt().IsZero() {
		t.Fatal("the simulated operator never created the StorageProfile CRD")
	}
	profile := &unstructured.Unstructured{}
	profile.SetGroupVersionKind(schema.GroupVersionKind{Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "StorageProfile"})
	if err := w.Client.Get(context.Background(), client.ObjectKey{Name: "longhorn-vm"}, profile); err != nil {
		t.Fatalf("StorageProfile/longhorn-vm not applied: %v", err)
	}
	t.Logf("control plane started in %s", w.StartupTime)
}

// TestPriorityAndFairnessAsFluxSeesIt: a world's API server answers Flux's
// own check for API priority and fairness (the one kustomize-controller
// makes at start to turn its client-side rate limit off) as a cluster's
// does only with Options.PriorityAndFairness; the lean default does not.
func TestPriorityAndFairnessAsFluxSeesIt(t *testing.T) {
	for _, apf := range []bool{false, true} {
		t.Run(fmt.Sprintf("apf=%v", apf), func(t *testing.T) {
			w := worlds.Get(t, Options{NoController: true, PriorityAndFairness: apf})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			on, err := flowcontrol.IsEnabled(ctx, w.Config)
			if err != nil {
				t.Fatalf("flowcontrol.IsEnabled: %v", err)
			}
			if on != apf {
				t.Errorf("API priority and fairness seen by Flux's check: %v, want %v", on, apf)
			}
		})
	}
}
