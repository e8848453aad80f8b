package wait

import (
	"context"
	"slices"
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

// TestProgressFactReadsTheCluster: the loop's progress reads, one list
// each: a trigger kind's objects in every namespace (none when no CRD in
// the watch serves it), and an operator's Deployment by name in its
// namespace (a field selector, which the API server applies and the fake
// records), turned into the objects' progress.
func TestProgressFactReadsTheCluster(t *testing.T) {
	installing := cdiObject("cdi")
	_ = unstructured.SetNestedSlice(installing.Object, []any{map[string]any{"type": "Reconciling", "status": "True", "reason": "Progressing"}}, "status", "conditions")
	op := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "cdi-operator", "namespace": "cdi"}, "status": map[string]any{"updatedReplicas": int64(1)}}}
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	tests := []struct {
		name    string
		watched *apiextensionsv1.CustomResourceDefinition
		target  ProgressTarget
		react   k8stesting.ReactionFunc
		want    []string // object: working
		refused bool
	}{
		{name: "the trigger kind's objects", watched: cdiCRD(true), target: ProgressTarget{Trigger: cdiGK}, want: []string{"cdi: Reconciling=True (Progressing)"}},
		{name: "no CRD serves the trigger kind", target: ProgressTarget{Trigger: cdiGK}},
		{name: "the list is forbidden", watched: cdiCRD(true), target: ProgressTarget{Trigger: cdiGK}, refused: true,
			react: func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewForbidden(cdisGVR.GroupResource(), "", nil)
			}},
		{name: "the operator's Deployment", target: ProgressTarget{Deployment: "cdi/cdi-operator"}, want: []string{"cdi/cdi-operator: "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := toolscache.NewStore(toolscache.MetaNamespaceKeyFunc)
			if tt.watched != nil {
				u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(tt.watched)
				if err != nil {
					t.Fatal(err)
				}
				if err := store.Add(&unstructured.Unstructured{Object: u}); err != nil {
					t.Fatal(err)
				}
			}
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
				map[schema.GroupVersionResource]string{cdisGVR: "CDIList", deployments: "DeploymentList"}, installing, op)
			var lists []string
			dyn.PrependReactor("list", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
				l := a.(k8stesting.ListAction)
				lists = append(lists, a.GetResource().Resource+" ns="+a.GetNamespace()+" "+l.GetListRestrictions().Fields.String())
				return false, nil, nil
			})
			if tt.react != nil {
				dyn.PrependReactor("list", "cdis", tt.react)
			}
			l := &Loop{Dynamic: dyn}
			got := l.progressFact(context.Background(), store, tt.target)
			if got.Refused != tt.refused {
				t.Fatalf("refused %t, want %t (%s)", got.Refused, tt.refused, got.Err)
			}
			var objs []string
			for _, o := range got.Objects {
				objs = append(objs, o.Name+": "+o.Progress.Working)
			}
			if !slices.Equal(objs, tt.want) {
				t.Errorf("objects %q, want %q", objs, tt.want)
			}
			if tt.target.Deployment != "" && (len(lists) != 1 || lists[0] != "deployments ns=cdi metadata.name=cdi-operator") {
				t.Errorf("lists %q, want one of cdi's Deployments by name", lists)
			}
			if tt.target.Deployment == "" && tt.watched != nil && tt.react == nil && len(lists) != 1 {
				t.Errorf("lists %q, want one", lists)
			}
		})
	}
}
