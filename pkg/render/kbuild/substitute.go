package kbuild

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"regexp"
	"sort"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/envsubst"
	"github.com/fluxcd/pkg/envsubst/parse"
	yamlv2 "go.yaml.in/yaml/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubestandup/standup/pkg/tiers"
)

const (
	// substituteKey is the label or annotation that turns substitution off
	// for one object when set to "disabled".
	substituteKey = "kustomize.toolkit.fluxcd.io/substitute"
	// varNamePattern is the pattern kustomize-controller requires of variable names.
	varNamePattern = "^[_[:alpha:]][_[:alpha:][:digit:]]*$"
)

// VarIndex holds the data of every ConfigMap and Secret found in the
// repository's rendered output, keyed by Kind/namespace/name. It stands in
// for the cluster that postBuild.substituteFrom reads.
type VarIndex map[tiers.ID]map[string]string

// Add indexes m when it is a core/v1 ConfigMap or Secret. The first object
// with a given ID wins. Secret values come from data (base64) and stringData,
// merged the way the API server merges them.
func (ix VarIndex) Add(m Manifest) {
	u := m.Object
	if u.GetAPIVersion() != "v1" || (u.GetKind() != "ConfigMap" && u.GetKind() != "Secret") {
		return
	}
	id := tiers.ID{Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}
	if _, seen := ix[id]; seen {
		return
	}
	values := map[string]string{}
	data, _, _ := unstructured.NestedMap(u.Object, "data")
	for k, v := range data {
		s := fmt.Sprint(v)
		if id.Kind == "Secret" {
			decoded, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				continue
			}
			s = string(decoded)
		}
		values[k] = s
	}
	if id.Kind == "Secret" {
		stringData, _, _ := unstructured.NestedMap(u.Object, "stringData")
		for k, v := range stringData {
			values[k] = fmt.Sprint(v)
		}
	}
	ix[id] = values
}

// RefsPresent reports whether every substituteFrom reference of ks,
// optional or not, is in the index.
func (ix VarIndex) RefsPresent(ks *kustomizev1.Kustomization) bool {
	if ks.Spec.PostBuild == nil {
		return true
	}
	for _, ref := range ks.Spec.PostBuild.SubstituteFrom {
		if _, ok := ix[tiers.ID{Kind: ref.Kind, Namespace: ks.Namespace, Name: ref.Name}]; !ok {
			return false
		}
	}
	return true
}

// postBuildVars resolves the variables of ks the way fluxcd/pkg/kustomize
// does: substituteFrom references in order (later ones override earlier
// ones), then the inline substitute map, newlines removed from values. It
// returns the non-optional references it could not find.
func postBuildVars(ks *kustomizev1.Kustomization, ix VarIndex) (vars map[string]string, missing []tiers.ID) {
	vars = map[string]string{}
	for _, ref := range ks.Spec.PostBuild.SubstituteFrom {
		id := tiers.ID{Kind: ref.Kind, Namespace: ks.Namespace, Name: ref.Name}
		values, ok := ix[id]
		if !ok {
			if !ref.Optional {
				missing = append(missing, id)
			}
			continue
		}
		for k, v := range values {
			vars[k] = strings.ReplaceAll(v, "\n", "")
		}
	}
	for k, v := range ks.Spec.PostBuild.Substitute {
		vars[k] = strings.ReplaceAll(v, "\n", "")
	}
	return vars, missing
}

// substitutionDisabled reports whether u opts out of substitution with the
// kustomize.toolkit.fluxcd.io/substitute: disabled label or annotation.
func substitutionDisabled(u *unstructured.Unstructured) bool {
	return u.GetLabels()[substituteKey] == "disabled" || u.GetAnnotations()[substituteKey] == "disabled"
}

// substitute runs postBuild variable substitution on the YAML of one object,
// as kustomize rendered it (quoting kept, as Flux keeps it), with
// kustomize-controller's rules and one deliberate difference: a reference
// to a variable that no variable defines, where its operator supplies no
// value of its own (${VAR}, ${VAR/./-}, ${VAR^^}...), is left as written,
// not replaced by an empty string (or the empty string transformed), so
// that the offline view shows what could not be resolved; these are the
// references Flux's strict mode refuses. Defaults such as ${VAR:=value}
// work as in Flux. It returns the substituted object, the variables so
// referenced that are not defined, sorted, and how each is written.
func substitute(data []byte, vars map[string]string) (map[string]any, []string, map[string][]string, error) {
	if err := validVarNames(vars); err != nil {
		return nil, nil, nil, err
	}
	out, unresolved, written, err := substituteText(data, vars)
	if err != nil {
		return nil, nil, nil, err
	}
	obj, err := decodeSubstituted(out)
	if err != nil {
		return nil, nil, nil, err
	}
	return obj, unresolved, written, nil
}

// substituteText is substitute of valid variables, up to the text: the
// substituted YAML, not yet decoded.
func substituteText(data []byte, vars map[string]string) (string, []string, map[string][]string, error) {
	if err := checkSubstitution(string(data)); err != nil {
		return "", nil, nil, err
	}
	tree, err := parse.Parse(string(data))
	if err != nil {
		return "", nil, nil, fmt.Errorf("envsubst error: variable substitution failed: %w", err)
	}
	refs := map[string]bool{}
	collectRefs(tree.Root, refs)
	var unresolved []string
	for name, withoutDefault := range refs {
		if _, ok := vars[name]; !ok && withoutDefault {
			unresolved = append(unresolved, name)
		}
	}
	sort.Strings(unresolved)
	text, restore, written := keepUnresolved(string(data), unresolved)
	out, err := envsubst.Eval(text, func(s string) (string, bool) {
		return vars[s], true
	})
	if err != nil {
		return "", nil, nil, fmt.Errorf("envsubst error: variable substitution failed: %w", err)
	}
	return restore(out), unresolved, written, nil
}

// decodeSubstituted decodes the YAML substitution made, as
// kustomize-controller does.
func decodeSubstituted(out string) (map[string]any, error) {
	obj, err := decodeJSON(sigsyaml.YAMLToJSON([]byte(out)))
	if err != nil {
		return nil, fmt.Errorf("post build: %w", err)
	}
	return obj, nil
}

// varName matches what kustomize-controller takes as a variable name.
var varName = regexp.MustCompile(varNamePattern)

// validVarNames checks every variable name as kustomize-controller does
// before it substitutes an object.
func validVarNames(vars map[string]string) error {
	for k := range vars {
		if !varName.MatchString(k) {
			return fmt.Errorf("'%s' var name is invalid, must match '%s'", k, varNamePattern)
		}
	}
	return nil
}

// collectRefs records every variable referenced under node; refs[name] is
// true when some reference has no default operator (-, :-, =, :=, +, :+, ?, :?).
func collectRefs(node parse.Node, refs map[string]bool) {
	switch n := node.(type) {
	case *parse.ListNode:
		for _, child := range n.Nodes {
			collectRefs(child, refs)
		}
	case *parse.FuncNode:
		refs[n.Param] = refs[n.Param] || !isDefaultOp(n.Name)
		for _, arg := range n.Args {
			collectRefs(arg, refs)
		}
	}
}

// isDefaultOp reports whether an envsubst operator supplies a value for an
// unset variable.
func isDefaultOp(name string) bool {
	switch name {
	case "-", "+", "=", "?", ":-", ":+", ":=", ":?":
		return true
	}
	return false
}

// unchangedBySubstitution reports whether substitution would give m back as
// it is: its text holds no "$", so envsubst has nothing to do and its bounds
// nothing to count, and the trip through YAML and back is the identity on
// kustomize's JSON (numbers included: kustomize prints 1.0 as 1 already).
// Most objects of a repository hold no variable, and that trip was a tenth
// of a render. TestShortcutsMatchExactRender holds it to substitute's own
// output.
func unchangedBySubstitution(m *built) bool {
	return m.json != nil && !bytes.ContainsRune(m.json, '$')
}

// substitutionText returns the text postBuild substitutes in: toYAML's,
// which is kustomize-controller's (sigs.k8s.io/yaml's JSONToYAML: the JSON
// parsed by yaml.v2, and printed by it). The object decoded from that
// JSON holds the same values (whole numbers as int64 rather than int or
// uint64, which print alike, and numbers past uint64 as float64 in both),
// so unless exact, it is printed directly, without parsing the JSON again
// (half of the cost of an object with variables).
func (m *built) substitutionText(exact bool) ([]byte, error) {
	if !exact && m.Object != nil {
		if data, err := yamlv2.Marshal(m.Object.Object); err == nil {
			return data, nil
		}
	}
	return m.toYAML()
}
