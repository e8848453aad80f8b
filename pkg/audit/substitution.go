package audit

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

// substituteKey is the label or annotation with which an object opts out of
// postBuild substitution ("disabled"): its ${...} text is meant literally.
const substituteKey = "kustomize.toolkit.fluxcd.io/substitute"

// tokenRE matches a postBuild variable reference, ${NAME} or ${NAME<op>...},
// with the variable names kustomize-controller accepts.
var tokenRE = regexp.MustCompile(`\$\{([_a-zA-Z][_a-zA-Z0-9]*)[}:=+?-]`)

// literalTokens reports the objects of ks that hold a ${VAR} when ks
// declares no spec.postBuild, so that the token is applied as it stands.
func (ix *index) literalTokens(ks tiers.ID, manifests []render.Manifest) []Hazard {
	def, ok := ix.res.Definitions[ks]
	if !ok {
		return nil
	}
	if _, declared, _ := unstructured.NestedFieldNoCopy(def.Object.Object, "spec", "postBuild"); declared {
		return nil
	}
	var hazards []Hazard
	for _, m := range manifests {
		u := m.Object
		if u.GetLabels()[substituteKey] == "disabled" || u.GetAnnotations()[substituteKey] == "disabled" {
			continue
		}
		names := map[string]bool{}
		collectTokens(u.Object, names)
		if len(names) == 0 {
			continue
		}
		tokens := make([]string, 0, len(names))
		for n := range names {
			tokens = append(tokens, "${"+n+"}")
		}
		slices.Sort(tokens)
		list := strings.Join(tokens, ", ")
		hazards = append(hazards, Hazard{
			Code: CodeLiteralSubstitutionToken, Severity: SeverityWarning, Kustomization: ks,
			Object: ix.objectOf(u), File: m.File, Line: m.Line,
			Message: fmt.Sprintf("%s holds %s, but %s declares no postBuild: the text is applied literally", ix.objectOf(u), list, ks),
			Fix: fmt.Sprintf("add postBuild.substitute or substituteFrom to %s, or label the object %s: disabled if the text is meant literally",
				ks, substituteKey),
		})
	}
	return hazards
}

// collectTokens adds the variable names referenced in the keys and string
// values under v.
func collectTokens(v any, names map[string]bool) {
	switch t := v.(type) {
	case string:
		if strings.Contains(t, "${") {
			for _, m := range tokenRE.FindAllStringSubmatch(t, -1) {
				names[m[1]] = true
			}
		}
	case map[string]any:
		for k, child := range t {
			collectTokens(k, names)
			collectTokens(child, names)
		}
	case []any:
		for _, child := range t {
			collectTokens(child, names)
		}
	}
}
