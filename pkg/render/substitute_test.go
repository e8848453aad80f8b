package render

import (
	"slices"
	"strings"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/pkg/tiers"
)

func TestSubstitute(t *testing.T) {
	vars := map[string]string{"DOMAIN": "example.org", "EMPTY": ""}
	tests := []struct {
		name       string
		value      string
		vars       map[string]string
		want       any
		unresolved []string
		wantErr    string
	}{
		{name: "defined", value: "${DOMAIN}", want: "example.org"},
		{name: "inside text", value: "https://app.${DOMAIN}/x", want: "https://app.example.org/x"},
		{name: "undefined is left as-is", value: "app.${MISSING}", want: "app.${MISSING}", unresolved: []string{"MISSING"}},
		{name: "default for undefined", value: "${MISSING:=fallback}", want: "fallback"},
		{name: "default with nested variable", value: "${MISSING:=www.${DOMAIN}}", want: "www.example.org"},
		{name: "default not used when defined", value: "${DOMAIN:-other}", want: "example.org"},
		{name: "empty value with := default", value: "${EMPTY:=x}", want: "x"},
		{name: "escaped stays literal", value: "$${DOMAIN}", want: "${DOMAIN}"},
		{name: "escaped undefined stays literal", value: "$${MISSING}", want: "${MISSING}"},
		{name: "dollar without braces is not a reference", value: "$DOMAIN", want: "$DOMAIN"},
		{name: "mixed defined and undefined", value: "${DOMAIN}-${A}-${B}-${A}", want: "example.org-${A}-${B}-${A}", unresolved: []string{"A", "B"}},
		{name: "transformation", value: "${DOMAIN^^}", want: "EXAMPLE.ORG"},
		{name: "unquoted number becomes a number, as in Flux", value: "${PORT}", vars: map[string]string{"PORT": "8080"}, want: int64(8080)},
		{name: "invalid variable name", value: "x", vars: map[string]string{"bad-name": "1"}, wantErr: "'bad-name' var name is invalid"},
		{name: "unclosed brace", value: "${DOMAIN", wantErr: "envsubst error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := vars
			if tt.vars != nil {
				v = tt.vars
			}
			doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  key: " + tt.value + "\n"
			obj, unresolved, err := substitute([]byte(doc), v)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _, _ := unstructured.NestedFieldNoCopy(obj, "data", "key")
			if got != tt.want {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
			if !slices.Equal(unresolved, tt.unresolved) {
				t.Errorf("unresolved %q, want %q", unresolved, tt.unresolved)
			}
		})
	}
}

func TestPostBuildVars(t *testing.T) {
	ix := varIndex{}
	add := func(obj map[string]any) {
		ix.add(Manifest{Object: &unstructured.Unstructured{Object: obj}})
	}
	add(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "first", "namespace": "flux-system"},
		"data":     map[string]any{"A": "from-first", "B": "multi\nline"}})
	add(map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": "second", "namespace": "flux-system"},
		"data":       map[string]any{"A": "ZnJvbS1zZWNyZXQ=", "C": "bm90LWJhc2U2NCE=", "BAD": "%%%"},
		"stringData": map[string]any{"C": "from-stringData"}})
	add(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "first", "namespace": "flux-system"},
		"data":     map[string]any{"A": "duplicate: the first object wins"}})
	add(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "elsewhere", "namespace": "other"},
		"data":     map[string]any{"Z": "other namespace"}})

	ks := &kustomizev1.Kustomization{
		ObjectMeta: metav1.ObjectMeta{Name: "apps", Namespace: "flux-system"},
		Spec: kustomizev1.KustomizationSpec{PostBuild: &kustomizev1.PostBuild{
			Substitute: map[string]string{"D": "inline", "A2": "x"},
			SubstituteFrom: []kustomizev1.SubstituteReference{
				{Kind: "ConfigMap", Name: "first"},
				{Kind: "Secret", Name: "second"},
				{Kind: "ConfigMap", Name: "elsewhere"},
				{Kind: "ConfigMap", Name: "optional-absent", Optional: true},
			},
		}},
	}
	vars, missing := postBuildVars(ks, ix)
	want := map[string]string{"A": "from-secret", "B": "multiline", "C": "from-stringData", "D": "inline", "A2": "x"}
	if len(vars) != len(want) {
		t.Errorf("vars %v, want %v", vars, want)
	}
	for k, v := range want {
		if vars[k] != v {
			t.Errorf("%s = %q, want %q", k, vars[k], v)
		}
	}
	wantMissing := []tiers.ID{{Kind: "ConfigMap", Namespace: "flux-system", Name: "elsewhere"}}
	if !slices.Equal(missing, wantMissing) {
		t.Errorf("missing %v, want %v", missing, wantMissing)
	}
	if refsPresent(ks, ix) {
		t.Error("refsPresent is true although two references are absent")
	}
	ks.Spec.PostBuild.SubstituteFrom = ks.Spec.PostBuild.SubstituteFrom[:2]
	if !refsPresent(ks, ix) {
		t.Error("refsPresent is false although both references are indexed")
	}
}

func TestSubstitutionDisabled(t *testing.T) {
	tests := []struct {
		name string
		meta map[string]any
		want bool
	}{
		{"label", map[string]any{"labels": map[string]any{substituteKey: "disabled"}}, true},
		{"annotation", map[string]any{"annotations": map[string]any{substituteKey: "disabled"}}, true},
		{"other value", map[string]any{"annotations": map[string]any{substituteKey: "enabled"}}, false},
		{"none", map[string]any{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{"metadata": tt.meta}}
			if got := substitutionDisabled(u); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
