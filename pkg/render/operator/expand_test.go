package operator

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// resourceSet decodes a ResourceSet written as YAML, as a build hands it
// over.
func resourceSet(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// names lists the objects of every step as Kind/namespace/name.
func names(x *Expansion) []string {
	var out []string
	for _, st := range x.Steps {
		for _, obj := range st.Objects {
			out = append(out, describe(obj))
		}
	}
	return out
}

const header = `
apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: my-rset
  namespace: flux-system
`

// templateCases are the cases of TestExpandTemplates.
var templateCases = []struct {
	name string
	spec string
	want []string
	// data is the ConfigMap data of the first object, when checked.
	data map[string]string
}{{
	name: "delimiters, inputs and the built-in provider",
	spec: `
  inputs:
    - tenant: team1
    - tenant: team2
  resources:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: cm-<< inputs.tenant >>
        namespace: << inputs.provider.namespace >>
      data:
        kind: << inputs.provider.kind >>
        name: << inputs.provider.name >>
        apiVersion: << inputs.provider.apiVersion >>
        helm: "{{ .Values.x }}"`,
	want: []string{"ConfigMap/flux-system/cm-team1", "ConfigMap/flux-system/cm-team2"},
	data: map[string]string{"kind": "ResourceSet", "name": "my-rset", "apiVersion": "fluxcd.controlplane.io/v1", "helm": "{{ .Values.x }}"},
}, {
	name: "slim-sprig functions, slugify, toYaml",
	spec: `
  inputs:
    - tenant: Team One
      replicas: 3
      selector:
        app: web
  resources:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: << inputs.tenant | slugify >>
        namespace: default
      data:
        upper: << inputs.tenant | upper | quote >>
        fallback: << get inputs "missing" | default "none" >>
        replicas: << inputs.replicas | int | quote >>
        selector: << inputs.selector | toYaml | quote >>
        trimmed: << trimPrefix "Team " inputs.tenant >>`,
	want: []string{"ConfigMap/default/team-one"},
	data: map[string]string{"upper": "TEAM ONE", "fallback": "none", "replicas": "3", "selector": "app: web\n", "trimmed": "One"},
}, {
	name: "resources win over the template, disabled objects are left out",
	spec: `
  inputs:
    - tenant: a
    - tenant: b
  resources:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: shared
        namespace: default
      data:
        from: resources
    - apiVersion: v1
      kind: ServiceAccount
      metadata:
        name: sa-<< inputs.tenant >>
        namespace: default
        annotations:
          fluxcd.controlplane.io/reconcile: << if eq inputs.tenant "a" >>enabled<< else >>disabled<< end >>
  resourcesTemplate: |
    ---
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: shared
      namespace: default
    data:
      from: template
    <<- range $i, $c := list "x" "y" >>
    ---
    apiVersion: v1
    kind: Secret
    metadata:
      name: << inputs.tenant >>-<< $c >>
      namespace: default
    <<- end >>`,
	want: []string{"ConfigMap/default/shared", "ServiceAccount/default/sa-a", "Secret/default/a-x", "Secret/default/a-y", "Secret/default/b-x", "Secret/default/b-y"},
	data: map[string]string{"from": "resources"},
}, {
	name: "no inputs: built once",
	spec: `
  resources:
    - apiVersion: v1
      kind: Namespace
      metadata:
        name: apps`,
	want: []string{"Namespace/apps"},
}, {
	name: "permute without providers: the ResourceSet's inputs scoped under its name",
	spec: `
  inputStrategy:
    name: Permute
  inputs:
    - tenant: a
    - tenant: b
  resources:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: cm-<< inputs.id >>
        namespace: default
      data:
        tenant: << inputs.my_rset.tenant >>
        kind: << inputs.my_rset.provider.kind >>`,
	want: []string{"ConfigMap/default/cm-" + inputID("my_rset=0"), "ConfigMap/default/cm-" + inputID("my_rset=1")},
	data: map[string]string{"tenant": "a", "kind": "ResourceSet"},
}}

func TestExpandTemplates(t *testing.T) {
	tests := templateCases
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := Expand(resourceSet(t, header+"spec:"+tt.spec))
			if err != nil {
				t.Fatal(err)
			}
			if got := names(x); strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("objects:\n got %q\nwant %q", got, tt.want)
			}
			if len(x.Notes) > 0 {
				t.Errorf("notes %q, want none", x.Notes)
			}
			if tt.data == nil {
				return
			}
			data, _, _ := unstructured.NestedStringMap(x.Steps[0].Objects[0].Object, "data")
			for k, v := range tt.data {
				if data[k] != v {
					t.Errorf("data[%s] = %q, want %q", k, data[k], v)
				}
			}
		})
	}
}

func TestExpandFailsAsTheOperatorDoes(t *testing.T) {
	tests := []struct{ name, spec, want string }{{
		name: "missing key",
		spec: `
  inputs:
    - tenant: a
  resources:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: cm-<< inputs.id >>
        namespace: default`,
		want: `map has no entry for key "id"`,
	}, {
		name: "steps beside resources",
		spec: `
  resources:
    - {apiVersion: v1, kind: Namespace, metadata: {name: a}}
  steps:
    - name: one
      resources:
        - {apiVersion: v1, kind: Namespace, metadata: {name: b}}`,
		want: "mutually exclusive",
	}, {
		name: "one object in two steps",
		spec: `
  steps:
    - name: one
      resources:
        - {apiVersion: v1, kind: Namespace, metadata: {name: a}}
    - name: two
      resources:
        - {apiVersion: v1, kind: Namespace, metadata: {name: a}}`,
		want: `duplicate resource Namespace/a in step "two", already defined in step "one"`,
	}, {
		name: "nothing to build",
		spec: `
  inputs:
    - tenant: a`,
		want: "at least one of",
	}, {
		name: "unparsable template",
		spec: `
  resourcesTemplate: "<< if >>"`,
		want: "failed to parse template",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Expand(resourceSet(t, header+"spec:"+tt.spec))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// TestExpandInputsFromIsNoted: inputs from ResourceSetInputProviders are
// not known offline; the one note names each provider (in the
// ResourceSet's namespace, by name or by selector) and says what was
// expanded without them: the in-line inputs with Flatten, nothing with
// Permute or without in-line inputs.
func TestExpandInputsFromIsNoted(t *testing.T) {
	tests := []struct {
		name, spec string
		want       []string
		note       string
		providers  string
	}{{
		name: "flatten: the in-line inputs are expanded",
		spec: `
  inputsFrom:
    - name: prs
  inputs:
    - tenant: a
  resources:
    - {apiVersion: v1, kind: Namespace, metadata: {name: "<< inputs.tenant >>"}}`,
		want:      []string{"Namespace/a"},
		note:      "only its 1 in-line input set(s) are expanded",
		providers: "its inputs from ResourceSetInputProvider/flux-system/prs (spec.inputsFrom) are not known offline",
	}, {
		name: "a selector and a name",
		spec: `
  inputsFrom:
    - selector: {matchLabels: {team: web, env: dev}}
    - kind: ResourceSetInputProvider
      name: tags
  inputs:
    - tenant: a
  resources:
    - {apiVersion: v1, kind: Namespace, metadata: {name: "<< inputs.tenant >>"}}`,
		want:      []string{"Namespace/a"},
		note:      "only its 1 in-line input set(s) are expanded",
		providers: "its inputs from the ResourceSetInputProviders of flux-system labelled env=dev,team=web, ResourceSetInputProvider/flux-system/tags (spec.inputsFrom)",
	}, {
		name: "flatten without in-line inputs: nothing",
		spec: `
  inputsFrom:
    - name: prs
  resources:
    - {apiVersion: v1, kind: Namespace, metadata: {name: "<< inputs.tenant >>"}}`,
		note:      "it has no in-line inputs: nothing is expanded",
		providers: "ResourceSetInputProvider/flux-system/prs",
	}, {
		name: "permute: nothing",
		spec: `
  inputStrategy: {name: Permute}
  inputsFrom:
    - name: prs
  inputs:
    - tenant: a
  resources:
    - {apiVersion: v1, kind: Namespace, metadata: {name: "<< inputs.id >>"}}`,
		note:      "with the Permute strategy every input set holds them",
		providers: "ResourceSetInputProvider/flux-system/prs",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := Expand(resourceSet(t, header+"spec:"+tt.spec))
			if err != nil {
				t.Fatal(err)
			}
			if got := names(x); strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("objects %q, want %q", got, tt.want)
			}
			if len(x.Notes) != 1 || !strings.Contains(x.Notes[0], tt.note) || !strings.Contains(x.Notes[0], tt.providers) {
				t.Errorf("notes %q, want one saying %q and %q", x.Notes, tt.providers, tt.note)
			}
		})
	}
}

func TestExpandLabelsAndSteps(t *testing.T) {
	x, err := Expand(resourceSet(t, header+`spec:
  wait: true
  commonMetadata:
    labels: {team: web}
    annotations: {note: "yes"}
  dependsOn:
    - apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      name: clusterissuers.cert-manager.io
      ready: true
  steps:
    - name: crds
      resources:
        - {apiVersion: v1, kind: Namespace, metadata: {name: a}}
    - name: rest
      resources:
        - {apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: a}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Steps) != 2 || x.Steps[0].Name != "crds" || x.Steps[1].Name != "rest" || !x.Wait {
		t.Fatalf("expansion %+v", x)
	}
	if d := x.DependsOn; len(d) != 1 || !d[0].IsCRD() || !d[0].Ready || d[0].FluxKind() != "" {
		t.Errorf("dependsOn %+v", d)
	}
	obj := x.Steps[1].Objects[0]
	want := map[string]string{"team": "web", "resourceset.fluxcd.controlplane.io/name": "my-rset", "resourceset.fluxcd.controlplane.io/namespace": "flux-system"}
	for k, v := range want {
		if obj.GetLabels()[k] != v {
			t.Errorf("label %s = %q, want %q", k, obj.GetLabels()[k], v)
		}
	}
	if obj.GetAnnotations()["note"] != "yes" {
		t.Errorf("annotations %v", obj.GetAnnotations())
	}
}

func TestExpandDisabled(t *testing.T) {
	x, err := Expand(resourceSet(t, `
apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: off
  namespace: default
  annotations:
    fluxcd.controlplane.io/reconcile: Disabled
spec:
  resources:
    - {apiVersion: v1, kind: Namespace, metadata: {name: a}}
`))
	if err != nil || len(x.Steps) != 0 || len(x.Notes) != 1 {
		t.Fatalf("expansion %+v, %v; want nothing, noted", x, err)
	}
}
