package crds

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubestandup/standup/pkg/tiers"
)

func entry(crd *apiextensionsv1.CustomResourceDefinition) BundleEntry {
	return BundleEntry{CRD: crd, File: "bundle/" + crd.Name + ".yaml", Document: 1}
}

func entryNames(es []BundleEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.CRD.Name)
	}
	return out
}

func TestPlanCreate(t *testing.T) {
	widgets := crdNamed("widgets", "example.com", "Widget", "widget", "wd")
	sprockets := crdNamed("sprockets", "example.com", "Sprocket", "sprocket")
	storage := crdNamed("storageprofiles", "cdi.kubevirt.io", "StorageProfile", "storageprofile")
	// The bundle's copy of widgets may differ from the cluster's: by name it exists.
	changedWidgets := crdNamed("widgets", "example.com", "Widget", "widget", "wd", "wdg")
	tests := []struct {
		name         string
		entries      []*apiextensionsv1.CustomResourceDefinition
		existing     []*apiextensionsv1.CustomResourceDefinition
		wantCreate   []string
		wantExisting []string
		wantConflict []string // substrings of the *ConflictError
	}{
		{name: "all absent, sorted", entries: []*apiextensionsv1.CustomResourceDefinition{storage, sprockets}, wantCreate: []string{"sprockets.example.com", "storageprofiles.cdi.kubevirt.io"}},
		{name: "existing by name is left alone, whatever its content", entries: []*apiextensionsv1.CustomResourceDefinition{changedWidgets, sprockets}, existing: []*apiextensionsv1.CustomResourceDefinition{widgets},
			wantCreate: []string{"sprockets.example.com"}, wantExisting: []string{"widgets.example.com"}},
		{name: "everything exists", entries: []*apiextensionsv1.CustomResourceDefinition{widgets}, existing: []*apiextensionsv1.CustomResourceDefinition{widgets, storage}, wantExisting: []string{"widgets.example.com"}},
		{name: "nothing planned", existing: []*apiextensionsv1.CustomResourceDefinition{widgets}},
		{name: "same entry twice is planned once", entries: []*apiextensionsv1.CustomResourceDefinition{sprockets, sprockets}, wantCreate: []string{"sprockets.example.com"}},
		{name: "absent CRD reusing a kind: refused, nothing planned",
			entries:      []*apiextensionsv1.CustomResourceDefinition{sprockets, crdNamed("gadgets", "example.com", "Widget", "gadget")},
			existing:     []*apiextensionsv1.CustomResourceDefinition{widgets},
			wantConflict: []string{"CustomResourceDefinition/gadgets.example.com (bundle/gadgets.example.com.yaml) reuses the names of [widgets.example.com]", "nothing was created"}},
		{name: "absent CRD reusing a short name", entries: []*apiextensionsv1.CustomResourceDefinition{crdNamed("gizmos", "example.com", "Gizmo", "gizmo", "wd")}, existing: []*apiextensionsv1.CustomResourceDefinition{widgets},
			wantConflict: []string{"gizmos.example.com", "widgets.example.com"}},
		{name: "an existing CRD is never a conflict with itself", entries: []*apiextensionsv1.CustomResourceDefinition{changedWidgets}, existing: []*apiextensionsv1.CustomResourceDefinition{widgets, crdNamed("widgetsv2", "example.com", "Widget", "widgetv2")},
			wantExisting: []string{"widgets.example.com"}},
		{name: "same names in another group", entries: []*apiextensionsv1.CustomResourceDefinition{crdNamed("widgets", "other.io", "Widget", "widget", "wd")}, existing: []*apiextensionsv1.CustomResourceDefinition{widgets},
			wantCreate: []string{"widgets.other.io"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var entries []BundleEntry
			for _, c := range tt.entries {
				entries = append(entries, entry(c))
			}
			plan, err := PlanCreate(entries, tt.existing)
			if len(tt.wantConflict) > 0 {
				var ce *ConflictError
				if !errors.As(err, &ce) {
					t.Fatalf("err = %v, want a *ConflictError", err)
				}
				for _, want := range tt.wantConflict {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not say %q", err, want)
					}
				}
				if len(plan.Create) > 0 || len(plan.Existing) > 0 {
					t.Errorf("a refused plan holds %+v", plan)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := entryNames(plan.Create); !reflect.DeepEqual(got, tt.wantCreate) {
				t.Errorf("Create = %v, want %v", got, tt.wantCreate)
			}
			if !reflect.DeepEqual(plan.Existing, tt.wantExisting) {
				t.Errorf("Existing = %v, want %v", plan.Existing, tt.wantExisting)
			}
		})
	}
}

func TestPlanPreApply(t *testing.T) {
	sp := crdNamed("storageprofiles", "cdi.kubevirt.io", "StorageProfile", "storageprofile")
	dv := crdNamed("datavolumes", "cdi.kubevirt.io", "DataVolume", "datavolume")
	bundle, err := NewBundle([]BundleEntry{entry(sp), entry(dv)})
	if err != nil {
		t.Fatal(err)
	}
	ks := tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: "platform-config"}
	tests := []struct {
		name       string
		missing    []MissingType
		want       []string
		wantFiles  []string
		unresolved string
		noBundle   bool
	}{
		{name: "group known", missing: []MissingType{{Group: "cdi.kubevirt.io", Kind: "StorageProfile", GroupKnown: true}},
			want: []string{"storageprofiles.cdi.kubevirt.io"}, wantFiles: []string{"bundle/storageprofiles.cdi.kubevirt.io.yaml"}},
		{name: "kind only, one match; sorted by name", missing: []MissingType{{Kind: "StorageProfile"}, {Kind: "DataVolume"}},
			want: []string{"datavolumes.cdi.kubevirt.io", "storageprofiles.cdi.kubevirt.io"}, wantFiles: []string{"bundle/datavolumes.cdi.kubevirt.io.yaml", "bundle/storageprofiles.cdi.kubevirt.io.yaml"}},
		{name: "kind the bundle lacks", missing: []MissingType{{Group: "cdi.kubevirt.io", Kind: "StorageProfile", GroupKnown: true}, {Group: "example.com", Kind: "Widget", GroupKnown: true}},
			unresolved: "Kustomization/flux-system/platform-config: the CRD bundle has no CRD for Widget.example.com"},
		{name: "group known, wrong group", missing: []MissingType{{Group: "other.io", Kind: "StorageProfile", GroupKnown: true}},
			unresolved: "StorageProfile.other.io"},
		{name: "no bundle at all", missing: []MissingType{{Group: "cdi.kubevirt.io", Kind: "StorageProfile", GroupKnown: true}}, noBundle: true,
			unresolved: "Kustomization/flux-system/platform-config: no CRD bundle to supply StorageProfile.cdi.kubevirt.io: pass --crds DIR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bundle
			if tt.noBundle {
				b = nil
			}
			got, err := PlanPreApply(Diagnosis{Kustomization: ks, Missing: tt.missing}, b)
			if tt.unresolved != "" {
				var ue *UnresolvedError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.unresolved) || ue.NoBundle != tt.noBundle {
					t.Fatalf("err = %v, want an *UnresolvedError saying %q (NoBundle %v)", err, tt.unresolved, tt.noBundle)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var files []string
			for _, e := range got {
				files = append(files, e.File)
			}
			if names := entryNames(got); !reflect.DeepEqual(names, tt.want) || !reflect.DeepEqual(files, tt.wantFiles) {
				t.Errorf("planned %v from %v, want %v from %v", names, files, tt.want, tt.wantFiles)
			}
		})
	}
}
