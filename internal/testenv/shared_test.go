package testenv

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// worlds are this package's shared worlds (see Shared).
var worlds Pool

func TestMain(m *testing.M) { Main(m, &worlds) }

// seedOptions are the options of the seed's worlds: Flux's default
// re-check of a not-ready dependency is 30 s; a short one keeps the
// converging case quick without changing what converges.
var seedOptions = Options{ControllerArgs: []string{"--requeue-dependency=2s"}}

// TestSharedWorldIsBackAtItsBaselineForTheNextTest leaves in a shared world
// what tests leave (a Kustomization that applied a namespace, a ConfigMap
// and a CRD, its source, a CRD of the test's own with an object, a
// ClusterRole, an operator still waiting for its trigger) and checks that
// the next test finds none of it: nothing pruned (the namespace Flux
// applied is empty but not terminating), the operator stopped, and
// kustomize-controller started afresh.
func TestSharedWorldIsBackAtItsBaselineForTheNextTest(t *testing.T) {
	ns, applied := UniqueName("left"), UniqueName("applied")
	role := UniqueName("left-behind")
	const appliedCRD = "cdis.cdi.kubevirt.io"
	operatorCRD, err := LoadCRD(filepath.Join("testdata", "seed", "storageprofiles-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var first *Controller
	operator := &RuntimeCRDOperator{Trigger: cdiGVR, CRDs: []*apiextensionsv1.CustomResourceDefinition{operatorCRD}}
	t.Run("leaves everything behind", func(t *testing.T) {
		w := worlds.Get(t, seedOptions)
		ctx := faultCtx(t)
		first = w.Controller
		if err := w.CreateNamespace(ctx, ns); err != nil {
			t.Fatal(err)
		}
		tree := writeTree(t, map[string]string{
			"namespace.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + applied + "\n",
			"configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: " + applied + "\n",
		})
		crd, err := os.ReadFile(filepath.Join("testdata", "seed", "operators", "cdi-crd.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tree, "cdi-crd.yaml"), crd, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Artifacts.Publish(ctx, w.Client, ns, "src", tree); err != nil {
			t.Fatal(err)
		}
		ks := KS{Namespace: ns, Name: "left", Path: "./", Source: "src", Prune: true}
		if err := w.Client.Create(ctx, ks.Kustomization()); err != nil {
			t.Fatal(err)
		}
		eventually(t, 60*time.Second, "the Kustomization applies its namespace", func() (bool, string) {
			k := readyOfIn(t, w, ns, "left")
			return apimeta.IsStatusConditionTrue(k.Status.Conditions, meta.ReadyCondition) && len(k.Finalizers) > 0, condition(k)
		})
		dc := w.StartDelayController()
		if err := dc.Err(); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Dynamic.Resource(DelayGVR).Namespace(ns).Create(ctx, newDelay(ns, "d", 3600), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role}}
		if err := w.Client.Create(ctx, cr); err != nil {
			t.Fatal(err)
		}
		// Its trigger, a CDI, is created only by the next test.
		w.StartOperator(operator)
	})
	if t.Failed() {
		return
	}

	w := worlds.Get(t, seedOptions)
	ctx := faultCtx(t)
	if w.Controller == first || w.Controller.Starts != 1 || first.running() {
		t.Errorf("kustomize-controller of the first test still running (%v) or started again (%d starts): want a new one", first.running(), w.Controller.Starts)
	}
	gone := []struct {
		what string
		obj  client.Object
		key  client.ObjectKey
	}{
		{"the Kustomization", &unstructured.Unstructured{}, client.ObjectKey{Namespace: ns, Name: "left"}},
		{"the applied ConfigMap", &corev1.ConfigMap{}, client.ObjectKey{Namespace: applied, Name: "cm"}},
		{"the applied CRD", &apiextensionsv1.CustomResourceDefinition{}, client.ObjectKey{Name: appliedCRD}},
		{"the Delay CRD", &apiextensionsv1.CustomResourceDefinition{}, client.ObjectKey{Name: DelayCRD().Name}},
		{"the ClusterRole", &rbacv1.ClusterRole{}, client.ObjectKey{Name: role}},
	}
	gone[0].obj.(*unstructured.Unstructured).SetGroupVersionKind(schema.GroupVersionKind{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Kind: "Kustomization"})
	for _, g := range gone {
		if err := w.Client.Get(ctx, g.key, g.obj); !isNotFound(err) {
			t.Errorf("%s %s is still there (get: %v)", g.what, g.key, err)
		}
	}
	space := &corev1.Namespace{}
	if err := w.Client.Get(ctx, client.ObjectKey{Name: applied}, space); err != nil {
		t.Fatal(err)
	}
	if space.DeletionTimestamp != nil {
		t.Errorf("Namespace/%s is terminating: the Kustomization was pruned, and it will never finish without a namespace controller", applied)
	}

	// The first test's operator would create its CRD once a CDI exists; its
	// loop has returned, so it cannot.
	if !operator.stopped() {
		t.Error("the first test's operator is still running")
	}
	if err := w.Client.Create(ctx, crdOf(t, filepath.Join("testdata", "seed", "operators", "cdi-crd.yaml"))); err != nil {
		t.Fatal(err)
	}
	if err := w.WaitCRDEstablished(ctx, appliedCRD); err != nil {
		t.Fatal(err)
	}
	cdi := &unstructured.Unstructured{}
	cdi.SetGroupVersionKind(schema.GroupVersionKind{Group: cdiGVR.Group, Version: cdiGVR.Version, Kind: "CDI"})
	cdi.SetName("cdi")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		// A CRD just established may take a moment more to be served.
		if err = w.Client.Create(ctx, cdi); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Client.Get(ctx, client.ObjectKey{Name: operatorCRD.Name}, &apiextensionsv1.CustomResourceDefinition{}); !isNotFound(err) {
		t.Errorf("the first test's operator is still running: CustomResourceDefinition/%s (get: %v)", operatorCRD.Name, err)
	}
}

// TestPoolLendsOneControlPlaneToEveryController: worlds of one control
// plane run whichever controller each test names, or none.
func TestPoolLendsOneControlPlaneToEveryController(t *testing.T) {
	var first *World
	t.Run("seed controller", func(t *testing.T) {
		first = worlds.Get(t, seedOptions)
		if !slices.Equal(first.Controller.Args, seedOptions.ControllerArgs) {
			t.Errorf("controller args %v, want %v", first.Controller.Args, seedOptions.ControllerArgs)
		}
	})
	t.Run("no controller", func(t *testing.T) {
		w := worlds.Get(t, Options{NoController: true})
		if w != first {
			t.Error("a second world was started for the same control plane")
		}
		if w.Controller != nil {
			t.Errorf("a controller runs: %s %v", w.Controller.Binary, w.Controller.Args)
		}
	})
	t.Run("default controller", func(t *testing.T) {
		w := worlds.Get(t, Options{})
		if w != first || w.Controller == nil || len(w.Controller.Args) != 0 || filepath.Base(w.Controller.Binary) != "kustomize-controller" {
			t.Errorf("want the same world running the default controller without flags")
		}
	})
	t.Run("controller temp dir", func(t *testing.T) {
		dir := t.TempDir()
		w := worlds.Get(t, Options{ControllerTempDir: dir})
		entries, err := os.ReadDir(dir)
		if w != first || err != nil || len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), "standup-kustomize-controller-") {
			t.Fatalf("want the same world with the controller's TMPDIR made in %s: %v %v", dir, entries, err)
		}
		w.Controller.Stop()
		if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
			t.Errorf("the controller stopped but left %v in %s (%v)", entries, dir, err)
		}
	})
}

func TestBaselineDiff(t *testing.T) {
	cm := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	crd := crdResource
	ref := func(r schema.GroupVersionResource, ns, name string) objectRef {
		return objectRef{Resource: r, Namespace: ns, Name: name}
	}
	base := baseline{ref(cm, "default", "keep"): true, ref(crd, "", "kustomizations.kustomize.toolkit.fluxcd.io"): true}
	tests := []struct {
		name           string
		now            []objectRef
		extra, missing []string
	}{
		{name: "at rest", now: []objectRef{ref(crd, "", "kustomizations.kustomize.toolkit.fluxcd.io"), ref(cm, "default", "keep")}},
		{name: "left behind, sorted",
			now:   []objectRef{ref(cm, "default", "keep"), ref(crd, "", "kustomizations.kustomize.toolkit.fluxcd.io"), ref(cm, "b", "x"), {Resource: crd, Name: "widgets.example.com", finalizers: true}, ref(cm, "a", "x")},
			extra: []string{"configmaps/a/x", "configmaps/b/x", "customresourcedefinitions.apiextensions.k8s.io/widgets.example.com"}},
		{name: "baseline object deleted", now: []objectRef{ref(cm, "default", "keep")},
			missing: []string{"customresourcedefinitions.apiextensions.k8s.io/kustomizations.kustomize.toolkit.fluxcd.io"}},
	}
	str := func(objs []objectRef) []string {
		var out []string
		for _, o := range objs {
			out = append(out, o.String())
		}
		return out
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			extra, missing := base.diff(tt.now)
			if !slices.Equal(str(extra), tt.extra) || !slices.Equal(str(missing), tt.missing) {
				t.Errorf("diff = extra %v, missing %v; want %v, %v", str(extra), str(missing), tt.extra, tt.missing)
			}
		})
	}
}

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func crdOf(t *testing.T, path string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd, err := LoadCRD(path)
	if err != nil {
		t.Fatal(err)
	}
	return crd
}
