package crds

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/tiers"
)

var crdGR = schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}

// fakeCRDClient answers List with existing and Create with errs[name]
// (nil: created); every other method panics (the embedded nil Client),
// so a Get, Patch or Update by the code under test fails the test.
type fakeCRDClient struct {
	client.Client
	existing []apiextensionsv1.CustomResourceDefinition
	errs     map[string]error
	created  []*apiextensionsv1.CustomResourceDefinition
	opts     []*client.CreateOptions
}

func (f *fakeCRDClient) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	list.(*apiextensionsv1.CustomResourceDefinitionList).Items = f.existing
	return nil
}

func (f *fakeCRDClient) Create(_ context.Context, obj client.Object, opts ...client.CreateOption) error {
	crd := obj.(*apiextensionsv1.CustomResourceDefinition)
	if err := f.errs[crd.Name]; err != nil {
		return err
	}
	f.created = append(f.created, crd.DeepCopy())
	f.opts = append(f.opts, (&client.CreateOptions{}).ApplyOptions(opts))
	return nil
}

func TestCreate(t *testing.T) {
	sprockets := crdNamed("sprockets", "example.com", "Sprocket", "sprocket")
	sprockets.ResourceVersion, sprockets.UID = "42", "captured-uid"
	sprockets.Annotations = map[string]string{"kept": "yes"}
	sprockets.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue}}
	gadgets := crdNamed("gadgets", "example.com", "Gadget", "gadget")
	plan := Plan{Create: []BundleEntry{entry(gadgets), entry(sprockets)}, Existing: []string{"widgets.example.com"}}
	tests := []struct {
		name         string
		errs         map[string]error
		dryRun       bool
		wantCreated  []string
		wantExisting []string
		wantErr      string
	}{
		{name: "created", wantCreated: []string{"gadgets.example.com", "sprockets.example.com"}, wantExisting: []string{"widgets.example.com"}},
		{name: "dry run", dryRun: true, wantCreated: []string{"gadgets.example.com", "sprockets.example.com"}, wantExisting: []string{"widgets.example.com"}},
		{name: "created by an operator since the plan: left alone",
			errs:        map[string]error{"gadgets.example.com": apierrors.NewAlreadyExists(crdGR, "gadgets.example.com")},
			wantCreated: []string{"sprockets.example.com"}, wantExisting: []string{"gadgets.example.com", "widgets.example.com"}},
		{name: "refused: names the CRD, its file and what was refused",
			errs:         map[string]error{"sprockets.example.com": apierrors.NewForbidden(crdGR, "sprockets.example.com", errors.New(`User "u" cannot create resource "customresourcedefinitions" in API group "apiextensions.k8s.io" at the cluster scope`))},
			wantCreated:  []string{"gadgets.example.com"},
			wantExisting: []string{"widgets.example.com"},
			wantErr:      `CustomResourceDefinition/sprockets.example.com (from bundle/sprockets.example.com.yaml): forbidden: standup needs "create" on customresourcedefinitions.apiextensions.k8s.io`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeCRDClient{errs: tt.errs}
			res, err := Create(context.Background(), f, plan, ApplyOptions{DryRun: tt.dryRun, Reason: "Kustomization/flux-system/platform-config"})
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if !reflect.DeepEqual(res.Created, tt.wantCreated) || !reflect.DeepEqual(res.Existing, tt.wantExisting) {
				t.Errorf("created %v, existing %v; want %v, %v", res.Created, res.Existing, tt.wantCreated, tt.wantExisting)
			}
			for i, c := range f.created {
				if c.Annotations[PreAppliedForAnnotation] != "Kustomization/flux-system/platform-config" {
					t.Errorf("%s: annotations %v lack the pre-applied-for reason", c.Name, c.Annotations)
				}
				if c.ResourceVersion != "" || c.UID != "" || len(c.Status.Conditions) > 0 {
					t.Errorf("%s sent with server fields: resourceVersion %q, uid %q, status %v", c.Name, c.ResourceVersion, c.UID, c.Status)
				}
				if o := f.opts[i]; o.FieldManager != FieldManager || (len(o.DryRun) > 0) != tt.dryRun {
					t.Errorf("%s created with field manager %q, dry run %v", c.Name, o.FieldManager, o.DryRun)
				}
			}
			if sprockets.ResourceVersion != "42" || sprockets.Annotations[PreAppliedForAnnotation] != "" {
				t.Error("Create modified the bundle's CRD")
			}
		})
	}
}

func TestCreateAbsentRefusesConflictBeforeAnyWrite(t *testing.T) {
	f := &fakeCRDClient{existing: []apiextensionsv1.CustomResourceDefinition{*crdNamed("widgets", "example.com", "Widget", "widget")}}
	entries := []BundleEntry{entry(crdNamed("sprockets", "example.com", "Sprocket", "sprocket")), entry(crdNamed("gadgets", "example.com", "Widget", "gadget"))}
	res, err := CreateAbsent(context.Background(), f, entries, ApplyOptions{Reason: "standup crds --all"})
	var ce *ConflictError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "gadgets.example.com (bundle/gadgets.example.com.yaml) reuses the names of [widgets.example.com]") {
		t.Fatalf("err = %v, want a *ConflictError naming both CRDs and the file", err)
	}
	if len(f.created) > 0 || len(res.Created) > 0 {
		t.Errorf("created %v despite the conflict", res.Created)
	}
}

func TestPreApplyListsOnceAndCreatesOnlyTheAbsent(t *testing.T) {
	sp := crdNamed("storageprofiles", "cdi.kubevirt.io", "StorageProfile", "storageprofile")
	dv := crdNamed("datavolumes", "cdi.kubevirt.io", "DataVolume", "datavolume")
	bundle, err := NewBundle([]BundleEntry{entry(sp), entry(dv)})
	if err != nil {
		t.Fatal(err)
	}
	live := dv.DeepCopy()
	live.ObjectMeta = metav1.ObjectMeta{Name: dv.Name, ResourceVersion: "7"}
	f := &fakeCRDClient{existing: []apiextensionsv1.CustomResourceDefinition{*live}}
	d := Diagnosis{
		Kustomization: tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: "platform-config"},
		Missing:       []MissingType{{Group: "cdi.kubevirt.io", Kind: "StorageProfile", GroupKnown: true}, {Group: "cdi.kubevirt.io", Kind: "DataVolume", GroupKnown: true}},
	}
	res, err := PreApply(context.Background(), f, bundle, d, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res, Result{Created: []string{sp.Name}, Existing: []string{dv.Name}}) {
		t.Errorf("result %+v", res)
	}
	if len(f.created) != 1 || f.created[0].Annotations[PreAppliedForAnnotation] != "Kustomization/flux-system/platform-config" {
		t.Errorf("created %v, want %s annotated for its Kustomization", f.created, sp.Name)
	}
}

func TestPlanAbsentListsAndPlansWithoutWriting(t *testing.T) {
	widgets := crdNamed("widgets", "example.com", "Widget", "widget")
	f := &fakeCRDClient{existing: []apiextensionsv1.CustomResourceDefinition{*widgets}}
	entries := []BundleEntry{entry(crdNamed("sprockets", "example.com", "Sprocket", "sprocket")), entry(widgets)}
	plan, err := PlanAbsent(context.Background(), f, entries)
	if err != nil {
		t.Fatal(err)
	}
	if got := entryNames(plan.Create); !reflect.DeepEqual(got, []string{"sprockets.example.com"}) || !reflect.DeepEqual(plan.Existing, []string{"widgets.example.com"}) {
		t.Errorf("plan creates %v, leaves %v", got, plan.Existing)
	}
	if len(f.created) > 0 {
		t.Errorf("PlanAbsent created %d CRDs", len(f.created))
	}
	conflicting := []BundleEntry{entry(crdNamed("gadgets", "example.com", "Widget", "gadget"))}
	var ce *ConflictError
	if _, err := PlanAbsent(context.Background(), f, conflicting); !errors.As(err, &ce) {
		t.Errorf("err = %v, want *ConflictError", err)
	}
}
