package audit

import (
	"encoding/json"
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
// declares no spec.postBuild, so that the token is applied as it stands:
// text that looks as if it wanted substitution and gets none. A Grafana
// dashboard a ConfigMap holds is left out (literalTokensOf).
func (ix *index) literalTokens(ks tiers.ID, manifests []render.Manifest) []Hazard {
	def, ok := ix.res.Definitions[ks]
	if !ok {
		return nil
	}
	if _, declared, _ := unstructured.NestedFieldNoCopy(def.Object.Object, "spec", "postBuild"); declared || ix.postBuildBy != "" {
		return nil
	}
	var hazards []Hazard
	for _, m := range manifests {
		u := m.Object
		if u.GetLabels()[substituteKey] == "disabled" || u.GetAnnotations()[substituteKey] == "disabled" {
			continue
		}
		names := literalTokensOf(u)
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

// literalTokensOf gathers the variable names u references, but for the
// data of a ConfigMap key ending in .json that holds a Grafana dashboard
// (grafanaDashboard): there ${DS_PROMETHEUS}, ${instance} are Grafana's
// own placeholders (an export's inputs, template variables), text to apply
// as written, which is what happens without postBuild. The rest of the
// ConfigMap is read as any object is.
func literalTokensOf(u *unstructured.Unstructured) map[string]bool {
	names := map[string]bool{}
	if groupKindOf(u) != (GroupKind{Kind: "ConfigMap"}) {
		collectTokens(u.Object, names)
		return names
	}
	for field, v := range u.Object {
		data, ok := v.(map[string]any)
		if field != "data" || !ok {
			collectTokens(field, names)
			collectTokens(v, names)
			continue
		}
		for key, value := range data {
			collectTokens(key, names)
			if text, ok := value.(string); ok && strings.HasSuffix(key, ".json") && grafanaDashboard(text) {
				continue
			}
			collectTokens(value, names)
		}
	}
	return names
}

// grafanaDashboard reports whether text is a Grafana dashboard's JSON with
// a token of Grafana's: an export declaring its inputs (__inputs), or a
// dashboard naming a datasource by a token (datasource: ${DS_X}, or its
// uid). JSON that is no dashboard, or none that parses, is not.
func grafanaDashboard(text string) bool {
	if !strings.Contains(text, "${") {
		return false
	}
	var doc map[string]any
	if json.Unmarshal([]byte(text), &doc) != nil {
		return false
	}
	if _, ok := doc["__inputs"]; ok {
		return true
	}
	return datasourceToken(doc)
}

// datasourceToken reports whether a datasource under v, a string or an
// object's uid, is a token.
func datasourceToken(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		ds := t["datasource"]
		if ref, ok := ds.(map[string]any); ok {
			ds = ref["uid"]
		}
		if s, ok := ds.(string); ok && tokenRE.MatchString(s) {
			return true
		}
		for _, child := range t {
			if datasourceToken(child) {
				return true
			}
		}
	case []any:
		for _, child := range t {
			if datasourceToken(child) {
				return true
			}
		}
	}
	return false
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

// postBuildInjectors are the charts of mutating webhooks that give every
// Kustomization a spec.postBuild as it is created, so that no Kustomization
// goes without one: xunholy/fluxcd-kustomize-mutating-webhook ("it
// dynamically injects substitution variables into the Kustomization
// resource", from its cluster-config ConfigMap; README), which
// xunholy/k8s-gitops installs before Flux.
var postBuildInjectors = []string{"kustomize-mutating-webhook"}

// postBuildInjector names the HelmRelease or bootstrap release whose chart
// is one of postBuildInjectors, "" when there is none.
func (ix *index) postBuildInjector(boot *Bootstrap) string {
	for _, nn := range sortedReleases(ix.releases) {
		for _, p := range ix.releases[nn] {
			if p.release != nil && isPostBuildInjector(p.release.chart) {
				return "HelmRelease/" + nn.String()
			}
		}
	}
	if boot != nil {
		for _, r := range boot.Releases {
			if isPostBuildInjector(r.Chart) {
				return fmt.Sprintf("%s release %s", r.File, r.Name)
			}
		}
	}
	return ""
}

// isPostBuildInjector reports whether chart, a reference as written (a
// name, repo/name, an OCI URL), names a chart of postBuildInjectors by
// its last path segment.
func isPostBuildInjector(chart string) bool {
	chart = strings.TrimSuffix(chart, "/")
	if i := strings.LastIndex(chart, "/"); i >= 0 {
		chart = chart[i+1:]
	}
	return slices.Contains(postBuildInjectors, chart)
}
