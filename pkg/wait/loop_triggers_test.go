package wait

import (
	"context"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/kubestandup/standup/pkg/kube"
)

var cdisGVR = schema.GroupVersionResource{Group: "cdi.kubevirt.io", Version: "v1beta1", Resource: "cdis"}

func cdiCRD(established bool) *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "cdis.cdi.kubevirt.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "cdi.kubevirt.io", Scope: apiextensionsv1.ClusterScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "CDI", Plural: "cdis", ListKind: "CDIList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1alpha1", Served: true},
				{Name: "v1beta1", Served: true, Storage: true},
			},
		},
	}
	if established {
		for _, c := range []apiextensionsv1.CustomResourceDefinitionConditionType{apiextensionsv1.Established, apiextensionsv1.NamesAccepted} {
			crd.Status.Conditions = append(crd.Status.Conditions, apiextensionsv1.CustomResourceDefinitionCondition{Type: c, Status: apiextensionsv1.ConditionTrue})
		}
	}
	return crd
}

func cdiObject(name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("cdi.kubevirt.io/v1beta1")
	u.SetKind("CDI")
	u.SetName(name)
	return u
}

// TestTriggerFactReadsTheCluster: the loop's reading of a trigger kind,
// from the CRD watch (or a fresh list when the watch lacks the CRD) to one
// list of the kind, turned into the fact the walker decides on.
func TestTriggerFactReadsTheCluster(t *testing.T) {
	forbidden := func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(cdisGVR.GroupResource(), "", nil)
	}
	gone := func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(cdisGVR.GroupResource(), "")
	}
	tests := []struct {
		name    string
		watched *apiextensionsv1.CustomResourceDefinition // in the CRD watch
		listed  *apiextensionsv1.CustomResourceDefinition // in a fresh list only
		objects []runtime.Object
		react   k8stesting.ReactionFunc
		want    TriggerFact
	}{
		{name: "an object exists", watched: cdiCRD(true), objects: []runtime.Object{cdiObject("cdi")},
			want: TriggerFact{Resource: "cdis.cdi.kubevirt.io", Object: "cdi"}},
		{name: "no object exists", watched: cdiCRD(true),
			want: TriggerFact{Resource: "cdis.cdi.kubevirt.io"}},
		{name: "the list is forbidden", watched: cdiCRD(true), react: forbidden,
			want: TriggerFact{Resource: "cdis.cdi.kubevirt.io", Refused: true}},
		{name: "the CRD went since the watch saw it", watched: cdiCRD(true), react: gone,
			want: TriggerFact{Resource: "cdis.cdi.kubevirt.io", CRDAbsent: true}},
		{name: "a CRD the watch has not seen yet", listed: cdiCRD(true), objects: []runtime.Object{cdiObject("cdi")},
			want: TriggerFact{Resource: "cdis.cdi.kubevirt.io", Object: "cdi"}},
		{name: "no CRD at all", want: TriggerFact{CRDAbsent: true}},
		{name: "a CRD not established", watched: cdiCRD(false), want: TriggerFact{CRDAbsent: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scheme, err := kube.NewScheme()
			if err != nil {
				t.Fatal(err)
			}
			store := toolscache.NewStore(toolscache.MetaNamespaceKeyFunc)
			builder := fake.NewClientBuilder().WithScheme(scheme)
			for _, crd := range []*apiextensionsv1.CustomResourceDefinition{tt.watched, tt.listed} {
				if crd == nil {
					continue
				}
				builder = builder.WithObjects(crd.DeepCopy())
				if crd == tt.watched {
					u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(crd)
					if err != nil {
						t.Fatal(err)
					}
					if err := store.Add(&unstructured.Unstructured{Object: u}); err != nil {
						t.Fatal(err)
					}
				}
			}
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{cdisGVR: "CDIList"}, tt.objects...)
			if tt.react != nil {
				dyn.PrependReactor("list", "cdis", tt.react)
			}
			l := &Loop{Dynamic: dyn, Client: builder.Build()}
			got := l.triggerFact(context.Background(), store, cdiGK)
			want := tt.want
			want.Kind = cdiGK
			if got.Refused && got.Err == "" {
				t.Error("a refusal without its error")
			}
			got.Err = ""
			if got != want {
				t.Fatalf("fact = %+v, want %+v", got, want)
			}
		})
	}
}
