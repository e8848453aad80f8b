package crds

import (
	"errors"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubestandup/standup/pkg/flux"
)

func TestStuckAndPlanRepairs(t *testing.T) {
	bundle, err := LoadBundle("testdata/bundle")
	if err != nil {
		t.Fatal(err)
	}
	established := func(c *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
		c.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{
			{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue},
			{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue},
		}
		return c
	}
	widget := `Widget/apps/w dry-run failed: no matches for kind "Widget" in version "example.com/v1alpha1"`
	objs := []flux.Object{
		kustomization("platform-config", failed(seedMessage)),
		kustomization("ready", &flux.Condition{Status: "True", Reason: "ReconciliationSucceeded"}),
		kustomization("apps", failed(widget)),
		kustomization("served-now", failed(widget)),
	}
	tests := []struct {
		name        string
		present     []*apiextensionsv1.CustomResourceDefinition
		bundle      *Bundle
		wantStuck   []string
		wantCreate  [][]string
		wantUnfixed int
	}{
		{name: "one repairable, one the bundle lacks", bundle: bundle,
			wantStuck:  []string{"platform-config", "apps", "served-now"},
			wantCreate: [][]string{{"storageprofiles.cdi.kubevirt.io"}, nil, nil}, wantUnfixed: 2},
		{name: "a served kind is no deadlock", bundle: bundle,
			present:    []*apiextensionsv1.CustomResourceDefinition{established(crdNamed("widgets", "example.com", "Widget", "widget"))},
			wantStuck:  []string{"platform-config"},
			wantCreate: [][]string{{"storageprofiles.cdi.kubevirt.io"}}},
		{name: "no bundle: stuck, nothing repairable",
			wantStuck:  []string{"platform-config", "apps", "served-now"},
			wantCreate: [][]string{nil, nil, nil}, wantUnfixed: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stuck := Stuck(objs, tt.present, tt.bundle)
			var names []string
			for _, d := range stuck {
				names = append(names, d.Kustomization.Name)
			}
			if !reflect.DeepEqual(names, tt.wantStuck) {
				t.Fatalf("Stuck = %v, want %v", names, tt.wantStuck)
			}
			repairs, err := PlanRepairs(stuck, tt.bundle)
			var create [][]string
			for i, r := range repairs {
				if r.Diagnosis.Kustomization != stuck[i].Kustomization {
					t.Errorf("repair %d is for %s, want %s", i, r.Diagnosis.Kustomization, stuck[i].Kustomization)
				}
				create = append(create, entryNames(r.Create))
			}
			if !reflect.DeepEqual(create, tt.wantCreate) {
				t.Errorf("creates = %v, want %v", create, tt.wantCreate)
			}
			unfixed := 0
			if err != nil {
				unfixed = len(err.(interface{ Unwrap() []error }).Unwrap())
				var ue *UnresolvedError
				if !errors.As(err, &ue) {
					t.Errorf("err = %v, want *UnresolvedError", err)
				}
			}
			if unfixed != tt.wantUnfixed {
				t.Errorf("%d unresolved (%v), want %d", unfixed, err, tt.wantUnfixed)
			}
		})
	}
}
