package kbuild

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/envsubst"
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
		{name: "default with nested undefined variable", value: "${MISSING:=www.${UNDEF}}", want: "www.${UNDEF}", unresolved: []string{"UNDEF"}},
		{name: "default not used when defined", value: "${DOMAIN:-other}", want: "example.org"},
		{name: "empty value with := default", value: "${EMPTY:=x}", want: "x"},
		{name: "escaped stays literal", value: "$${DOMAIN}", want: "${DOMAIN}"},
		{name: "escaped undefined stays literal", value: "$${MISSING}", want: "${MISSING}"},
		{name: "dollar without braces is not a reference", value: "$DOMAIN", want: "$DOMAIN"},
		{name: "mixed defined and undefined", value: "${DOMAIN}-${A}-${B}-${A}", want: "example.org-${A}-${B}-${A}", unresolved: []string{"A", "B"}},
		{name: "transformation", value: "${DOMAIN^^}", want: "EXAMPLE.ORG"},
		{name: "replacement", value: "${DOMAIN/./-}-tls", want: "example-org-tls"},
		// Flux substitutes "" for an undefined variable (its strict mode
		// refuses it): every reference that reads one is shown as written.
		{name: "undefined replacement is left as written", value: "${MISSING/./-}-tls", want: "${MISSING/./-}-tls", unresolved: []string{"MISSING"}},
		{name: "undefined transformations are left as written", value: "${MISSING^^}.${#MISSING}.${MISSING:0:2}.${MISSING%%.*}", want: "${MISSING^^}.${#MISSING}.${MISSING:0:2}.${MISSING%%.*}", unresolved: []string{"MISSING"}},
		{name: "undefined inside a default", value: "${MISSING:-${OTHER/./-}}", want: "${OTHER/./-}", unresolved: []string{"OTHER"}},
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
			obj, unresolved, _, err := substitute([]byte(doc), v)
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
	ix := VarIndex{}
	add := func(obj map[string]any) {
		ix.Add(Manifest{Object: &unstructured.Unstructured{Object: obj}})
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
	if ix.RefsPresent(ks) {
		t.Error("RefsPresent is true although two references are absent")
	}
	ks.Spec.PostBuild.SubstituteFrom = ks.Spec.PostBuild.SubstituteFrom[:2]
	if !ix.RefsPresent(ks) {
		t.Error("RefsPresent is false although both references are indexed")
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

// escapeEach is escapeUnresolved as it was for bare references, one pass per name: the reference the
// single pass must agree with.
func escapeEach(text string, names []string) string {
	for _, name := range names {
		re := regexp.MustCompile(`(\$+)\{` + regexp.QuoteMeta(name) + `\}`)
		text = re.ReplaceAllStringFunc(text, func(m string) string {
			if run := strings.Count(m, "$"); run%2 == 1 {
				return "$" + m
			}
			return m
		})
	}
	return text
}

func TestEscapeUnresolved(t *testing.T) {
	tests := []struct {
		text  string
		names []string
		want  string
		// notBare is set where a reference is not a bare ${NAME}.
		notBare bool
	}{
		{text: "${A}", names: []string{"A"}, want: "$${A}"},
		{text: "${A}", names: nil, want: "${A}"},
		{text: "${A} ${B} ${C}", names: []string{"A", "C"}, want: "$${A} ${B} $${C}"},
		{text: "$${A}", names: []string{"A"}, want: "$${A}"},
		{text: "$$${A}", names: []string{"A"}, want: "$$$${A}"},
		{text: "x${A}y${A}", names: []string{"A"}, want: "x$${A}y$${A}"},
		{text: "${A:=x} ${AB}", names: []string{"A"}, want: "${A:=x} ${AB}"},
		{text: "${x${A}}", names: []string{"A"}, want: "${x$${A}}"},
		{text: "${}", names: []string{""}, want: "$${}"},
		{text: "${a.b} ${a-b}", names: []string{"a.b"}, want: "$${a.b} ${a-b}"},
		{text: "${a$b} ${A}", names: []string{"a$b", "A"}, want: "${a$b} $${A}"},
		{text: "${{A}", names: []string{"A"}, want: "${{A}"},
		{text: "${A/./-} ${A^^} ${#A} ${A:1:2} ${A%%.*}", names: []string{"A"}, want: "$${A/./-} $${A^^} $${#A} $${A:1:2} $${A%%.*}", notBare: true},
		{text: "${A:=x} ${A:-${B/./-}} ${C//./${A}}", names: []string{"A", "B"}, want: "${A:=x} ${A:-$${B/./-}} ${C//./$${A}}", notBare: true},
	}
	for _, tt := range tests {
		got := escapeUnresolved(tt.text, tt.names)
		if got != tt.want {
			t.Errorf("escapeUnresolved(%q, %q) = %q, want %q", tt.text, tt.names, got, tt.want)
		}
		if each := escapeEach(tt.text, tt.names); !tt.notBare && got != each {
			t.Errorf("escapeUnresolved(%q, %q) = %q, one pass per name gives %q", tt.text, tt.names, got, each)
		}
	}
}

// keepUnresolved must give envsubst's output what escapeUnresolved gives it,
// except where an escape inside a default broke the function (want).
func TestKeepUnresolvedMatchesEscapeUnresolved(t *testing.T) {
	vars := map[string]string{"DOMAIN": "example.org"}
	tests := []struct {
		text  string
		names []string
		// want, when set, is the output; escapeBare gave "www.$ example.org".
		want string
	}{
		{text: "${A}", names: []string{"A"}},
		{text: "x ${A} ${B} ${DOMAIN} ${A}", names: []string{"A", "B"}},
		{text: "$${A} $$${A} $$$${A} $$$$$${A}", names: []string{"A"}},
		{text: "${C:=www.${A}} ${C:-${DOMAIN}}", names: []string{"A"}, want: "www.${A} example.org"},
		{text: "${A^^} ${A}", names: []string{"A"}},
		{text: "${x${A}} ${{A}", names: []string{"A"}},
		{text: "text \uE000 ${A}", names: []string{"A"}},
		{text: "$A ${A:=d} ${A}", names: []string{"A"}},
		{text: "${A/./-}-tls ${DOMAIN/./-} ${A^^} ${A:-${B/x/y}}", names: []string{"A", "B"}, want: "${A/./-}-tls example-org ${A^^} ${B/x/y}"},
		{text: `${A/\}/x} ${A}`, names: []string{"A"}},
	}
	mapping := func(s string) (string, bool) { return vars[s], true }
	for _, tt := range tests {
		want, wantErr := envsubst.Eval(escapeUnresolved(tt.text, tt.names), mapping)
		if tt.want != "" {
			want = tt.want
		}
		kept, restore, _ := keepUnresolved(tt.text, tt.names)
		got, err := envsubst.Eval(kept, mapping)
		if (err != nil) != (wantErr != nil) || err == nil && restore(got) != want {
			t.Errorf("%q: keepUnresolved gives %q (%v), want %q (%v)", tt.text, restore(got), err, want, wantErr)
		}
	}
}

// Substitution is bounded: an object over a limit is a *substituteLimit.
func TestCheckSubstitution(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{name: "ordinary", text: strings.Repeat("url: https://${DOMAIN}/$${KEEP}\n", 1000)},
		{name: "many references", text: strings.Repeat("${a}", maxSubstituteRefs+1), want: "200001 ${...} references"},
		{name: "many escapes", text: strings.Repeat("$$", 80_000), want: "80000 escaped $$ in 160000 bytes"},
	}
	for _, tt := range tests {
		err := checkSubstitution(tt.text)
		var limit *substituteLimit
		if tt.want == "" && err != nil || tt.want != "" && (!errors.As(err, &limit) || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: checkSubstitution = %v, want %q", tt.name, err, tt.want)
		}
	}
}
