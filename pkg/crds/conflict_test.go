package crds

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func crdNamed(plural, group, kind, singular string, short ...string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: group, Names: apiextensionsv1.CustomResourceDefinitionNames{
			Plural: plural, Kind: kind, ListKind: kind + "List", Singular: singular, ShortNames: short,
		}},
	}
}

func TestNameConflicts(t *testing.T) {
	existing := []*apiextensionsv1.CustomResourceDefinition{crdNamed("widgets", "example.com", "Widget", "widget", "wd")}
	tests := []struct {
		name string
		crd  *apiextensionsv1.CustomResourceDefinition
		want string
	}{
		{name: "same kind, other plural", crd: crdNamed("gadgets", "example.com", "Widget", "gadget"), want: "widgets.example.com"},
		{name: "same short name", crd: crdNamed("gizmos", "example.com", "Gizmo", "gizmo", "wd"), want: "widgets.example.com"},
		{name: "same singular", crd: crdNamed("widgetses", "example.com", "Widgets", "widget"), want: "widgets.example.com"},
		{name: "other group", crd: crdNamed("gadgets", "other.io", "Widget", "gadget"), want: ""},
		{name: "no overlap", crd: crdNamed("sprockets", "example.com", "Sprocket", "sprocket"), want: ""},
		{name: "itself", crd: crdNamed("widgets", "example.com", "Widget", "widget"), want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(NameConflicts(tt.crd, existing), ","); got != tt.want {
				t.Fatalf("NameConflicts = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCheckConflictsNamesFileAndBoth(t *testing.T) {
	existing := []*apiextensionsv1.CustomResourceDefinition{crdNamed("widgets", "example.com", "Widget", "widget")}
	err := CheckConflicts([]BundleEntry{{CRD: crdNamed("gadgets", "example.com", "Widget", "gadget"), File: "b/gadgets.yaml"}}, existing)
	if err == nil || !strings.Contains(err.Error(), "gadgets.example.com (b/gadgets.yaml) reuses the names of [widgets.example.com]") {
		t.Fatalf("err = %v", err)
	}
}
