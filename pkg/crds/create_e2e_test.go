package crds_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// racingClient is standup's client with an operator in the way: before
// standup's first write of any kind (create, patch, update), race runs,
// and only then is the write forwarded to the API server. That is the
// race a wait for an operator leaves open, made deterministic: standup has
// listed the CRDs and decided, the operator creates the CRD, standup writes.
type racingClient struct {
	client.Client
	race func(ctx context.Context)
	once sync.Once
}

func (r *racingClient) before(ctx context.Context) { r.once.Do(func() { r.race(ctx) }) }

func (r *racingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	r.before(ctx)
	return r.Client.Create(ctx, obj, opts...)
}

func (r *racingClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	r.before(ctx)
	return r.Client.Patch(ctx, obj, patch, opts...)
}

func (r *racingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	r.before(ctx)
	return r.Client.Update(ctx, obj, opts...)
}

// settled waits until the API server has written the CRD's status
// (Established, NamesAccepted) and its resourceVersion has held for a
// second, and returns it.
func settled(ctx context.Context, t *testing.T, w *testenv.World, name string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	if err := w.WaitCRDEstablished(ctx, name); err != nil {
		t.Fatal(err)
	}
	var last *apiextensionsv1.CustomResourceDefinition
	stable := time.Now()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		got := &apiextensionsv1.CustomResourceDefinition{}
		if err := w.Client.Get(ctx, client.ObjectKey{Name: name}, got); err != nil {
			t.Fatal(err)
		}
		if last == nil || got.ResourceVersion != last.ResourceVersion {
			last, stable = got, time.Now()
		}
		if time.Since(stable) >= time.Second {
			return last
		}
	}
	t.Fatalf("CustomResourceDefinition/%s: resourceVersion never settled", name)
	return nil
}

func managers(crd *apiextensionsv1.CustomResourceDefinition) []string {
	var out []string
	for _, m := range crd.ManagedFields {
		out = append(out, m.Manager+"/"+string(m.Operation))
	}
	return out
}

func getCRD(ctx context.Context, t *testing.T, w *testenv.World, name string) (*apiextensionsv1.CustomResourceDefinition, error) {
	t.Helper()
	got := &apiextensionsv1.CustomResourceDefinition{}
	return got, w.Client.Get(ctx, client.ObjectKey{Name: name}, got)
}

// TestMain takes the machine lock: the package's one world takes its turn
// with the other packages' (testenv.LockMachine).
func TestMain(m *testing.M) { testenv.Main(m, nil) }

// TestCreateOnTheAPIServer runs the one pre-apply path against the real
// API server of the test world (no kustomize-controller).
func TestCreateOnTheAPIServer(t *testing.T) {
	w := testenv.New(t, testenv.Options{NoController: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	standup, err := flux.NewClient(w.Config)
	if err != nil {
		t.Fatal(err)
	}
	bundle, err := crds.LoadBundle("testdata/bundle")
	if err != nil {
		t.Fatal(err)
	}
	const (
		storageCRD = "storageprofiles.cdi.kubevirt.io"
		volumesCRD = "datavolumes.cdi.kubevirt.io"
	)
	ks := tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: "platform-config"}
	missing := func(kinds ...string) crds.Diagnosis {
		d := crds.Diagnosis{Kustomization: ks}
		for _, k := range kinds {
			d.Missing = append(d.Missing, crds.MissingType{Group: "cdi.kubevirt.io", Kind: k, GroupKnown: true})
		}
		return d
	}

	t.Run("operator creates the CRD between standup's decision and its write", func(t *testing.T) {
		bundled, _, ok := bundle.Lookup("cdi.kubevirt.io", "StorageProfile")
		if !ok {
			t.Fatal("testdata/bundle lacks StorageProfile")
		}
		// The operator's CRD differs from the bundle's: a label, and a
		// schema description standup's copy does not have.
		theirs := bundled.DeepCopy()
		theirs.Labels = map[string]string{"app.kubernetes.io/managed-by": "cdi-operator"}
		theirs.Spec.Versions[0].Schema.OpenAPIV3Schema.Description = "written by cdi-operator"
		var before *apiextensionsv1.CustomResourceDefinition
		racing := &racingClient{Client: standup, race: func(ctx context.Context) {
			if err := w.Client.Create(ctx, theirs, client.FieldOwner("operator")); err != nil {
				t.Errorf("the operator's create failed: %v", err)
				return
			}
			before = settled(ctx, t, w, storageCRD)
		}}

		res, err := crds.PreApply(ctx, racing, bundle, missing("StorageProfile"), crds.ApplyOptions{})
		if err != nil {
			t.Fatalf("PreApply: %v", err)
		}
		if before == nil {
			t.Fatal("standup never wrote: the race did not run")
		}
		if want := (crds.Result{Existing: []string{storageCRD}}); !reflect.DeepEqual(res, want) {
			t.Errorf("result %+v, want %+v (left alone)", res, want)
		}
		after, err := getCRD(ctx, t, w, storageCRD)
		if err != nil {
			t.Fatal(err)
		}
		if after.ResourceVersion != before.ResourceVersion {
			t.Errorf("the operator's CRD was written: resourceVersion %s -> %s, managers %v", before.ResourceVersion, after.ResourceVersion, managers(after))
		}
		if v, ok := after.Annotations[crds.PreAppliedForAnnotation]; ok {
			t.Errorf("the operator's CRD carries %s=%q", crds.PreAppliedForAnnotation, v)
		}
		for _, m := range after.ManagedFields {
			if m.Manager == crds.FieldManager {
				t.Errorf("the operator's CRD has a %q managedFields entry: %v", crds.FieldManager, managers(after))
			}
		}
		if after.Labels["app.kubernetes.io/managed-by"] != "cdi-operator" || after.Spec.Versions[0].Schema.OpenAPIV3Schema.Description != "written by cdi-operator" {
			t.Errorf("the operator's content changed: labels %v", after.Labels)
		}
	})

	t.Run("absent CRD is created, not applied", func(t *testing.T) {
		res, err := crds.PreApply(ctx, standup, bundle, missing("DataVolume", "StorageProfile"), crds.ApplyOptions{})
		if err != nil {
			t.Fatalf("PreApply: %v", err)
		}
		if want := (crds.Result{Created: []string{volumesCRD}, Existing: []string{storageCRD}}); !reflect.DeepEqual(res, want) {
			t.Errorf("result %+v, want %+v", res, want)
		}
		got, err := getCRD(ctx, t, w, volumesCRD)
		if err != nil {
			t.Fatal(err)
		}
		if got.Annotations[crds.PreAppliedForAnnotation] != ks.String() {
			t.Errorf("annotations %v, want %s=%s", got.Annotations, crds.PreAppliedForAnnotation, ks)
		}
		// A create is recorded as an Update by its field manager; a
		// server-side apply would be Apply.
		if ms := managers(got); !slices.Contains(ms, crds.FieldManager+"/Update") || slices.Contains(ms, crds.FieldManager+"/Apply") {
			t.Errorf("managedFields %v, want %s/Update and no Apply", ms, crds.FieldManager)
		}
	})

	t.Run("a name conflict is refused and nothing is created", func(t *testing.T) {
		widgets := &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptrTo(true)}}}},
			},
		}
		gadgets := widgets.DeepCopy()
		gadgets.Name, gadgets.Spec.Names.Plural, gadgets.Spec.Names.Singular = "gadgets.example.com", "gadgets", "gadget"
		sprockets := widgets.DeepCopy()
		sprockets.Name, sprockets.Spec.Names = "sprockets.example.com", apiextensionsv1.CustomResourceDefinitionNames{Plural: "sprockets", Singular: "sprocket", Kind: "Sprocket", ListKind: "SprocketList"}
		if err := w.Client.Create(ctx, widgets, client.FieldOwner("operator")); err != nil {
			t.Fatal(err)
		}
		entries := []crds.BundleEntry{{CRD: sprockets, File: "bundle/sprockets.yaml"}, {CRD: gadgets, File: "bundle/gadgets.yaml"}}
		res, err := crds.CreateAbsent(ctx, standup, entries, crds.ApplyOptions{Reason: "standup crds --all"})
		var ce *crds.ConflictError
		if !errors.As(err, &ce) {
			t.Fatalf("err = %v, want a *crds.ConflictError", err)
		}
		if len(res.Created) > 0 {
			t.Errorf("created %v", res.Created)
		}
		for _, name := range []string{"sprockets.example.com", "gadgets.example.com"} {
			if _, err := getCRD(ctx, t, w, name); !apierrors.IsNotFound(err) {
				t.Errorf("CustomResourceDefinition/%s: %v, want not found: nothing may be created", name, err)
			}
		}
	})
}

func ptrTo[T any](v T) *T { return &v }
