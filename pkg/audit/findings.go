package audit

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/kubestandup/standup/pkg/tiers"
)

// Finding is one code for one kind, with every place it occurs: a kind used
// in 49 places is one finding, not 49.
type Finding struct {
	// Code says what is wrong.
	Code Code `json:"code"`
	// Severity is the gravest of the places'.
	Severity Severity `json:"severity"`
	// Kind is the kind of the objects at fault (Kustomization for CYCLE and
	// DANGLING_DEPENDENCY).
	Kind GroupKind `json:"kind"`
	// Message and Fix speak for every place: the places' own when they all
	// say the same, else a summary.
	Message string `json:"message"`
	Fix     string `json:"fix"`
	// Places are the hazards grouped, in report order, each with its own
	// message and fix.
	Places []Hazard `json:"places"`
}

// Kustomizations counts the distinct Kustomizations of the places.
func (f Finding) Kustomizations() int {
	seen := map[tiers.ID]bool{}
	for _, p := range f.Places {
		seen[p.Kustomization] = true
	}
	return len(seen)
}

// GroupFindings groups sorted hazards by code and kind. Findings are
// sorted by severity, then by the order of Rules, then by kind.
func GroupFindings(hazards []Hazard) []Finding {
	type key struct {
		code Code
		gk   GroupKind
	}
	index := map[key]int{}
	var out []Finding
	for _, h := range hazards {
		k := key{h.Code, GroupKind{Group: groupOf(h.Object.APIVersion), Kind: h.Object.Kind}}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, Finding{Code: h.Code, Severity: h.Severity, Kind: k.gk})
		}
		f := &out[i]
		f.Places = append(f.Places, h)
		if severityRank(h.Severity) < severityRank(f.Severity) {
			f.Severity = h.Severity
		}
	}
	for i := range out {
		out[i].Message, out[i].Fix = summarize(out[i])
	}
	slices.SortStableFunc(out, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(severityRank(a.Severity), severityRank(b.Severity)),
			cmp.Compare(codeRank(a.Code), codeRank(b.Code)),
			strings.Compare(a.Kind.Group, b.Kind.Group),
			strings.Compare(a.Kind.Kind, b.Kind.Kind),
		)
	})
	if out == nil {
		out = []Finding{}
	}
	return out
}

// summarize words a finding: its places' message and fix when they agree,
// else one that speaks for all of them.
func summarize(f Finding) (string, string) {
	first := f.Places[0]
	msg, fix := first.Message, first.Fix
	sameMsg, sameFix := true, true
	for _, p := range f.Places[1:] {
		sameMsg = sameMsg && p.Message == msg
		sameFix = sameFix && p.Fix == fix
	}
	n, kss := len(f.Places), f.Kustomizations()
	where := fmt.Sprintf("%d objects in %s", n, plural(kss, "Kustomization"))
	if !sameMsg && first.groupMessage != "" && allSame(f.Places, func(h Hazard) string { return h.groupMessage }) {
		msg, sameMsg = first.groupMessage, true
	}
	if !sameFix && first.groupFix != "" && allSame(f.Places, func(h Hazard) string { return h.groupFix }) {
		fix, sameFix = first.groupFix, true
	}
	if !sameMsg {
		switch f.Code {
		case CodeLiteralSubstitutionToken:
			msg = fmt.Sprintf("%s hold ${VAR} tokens in Kustomizations that declare no postBuild: the text is applied literally", where)
		case CodeNamespaceNotSpecified:
			msg = fmt.Sprintf("%s are Flux objects without a namespace, in Kustomizations that set no targetNamespace: kustomize-controller fails each whole apply", where)
		case CodeCycle:
			msg = fmt.Sprintf("%d dependency cycles: no Kustomization of a cycle ever becomes ready", n)
		case CodeDanglingDependency:
			msg = fmt.Sprintf("%d dependsOn entries name Kustomizations that do not exist: the Kustomizations holding them never become ready", n)
		default:
			msg = fmt.Sprintf("%s (%s); the first: %s", f.Kind, where, msg)
		}
	}
	if !sameFix {
		switch f.Code {
		case CodeMissingEdge:
			fix = "add to each Kustomization listed the dependsOn its place names"
		case CodeUnguardedProvider:
			fix = "set wait: true (or a health check) on each provider its place names"
		case CodeSecondOrderSamePass, CodeOriginCycle, CodeMutualNeed:
			fix = "for each place: " + fix
		default:
			fix = "for each place, its own fix; the first: " + fix
		}
	}
	return msg, fix
}

// allSame reports whether text gives every hazard the same string.
func allSame(hs []Hazard, text func(Hazard) string) bool {
	for _, h := range hs[1:] {
		if text(h) != text(hs[0]) {
			return false
		}
	}
	return true
}

// plural words n things: "1 Kustomization", "2 Kustomizations".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
