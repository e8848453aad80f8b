package audit

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/kubestandup/standup/pkg/tiers"
)

// mutualNeed turns a MISSING_EDGE whose edge cannot be added into a
// MUTUAL_NEED: the provider cannot turn Ready before ks has applied its
// objects (directly, or through other Kustomizations and the kinds they
// need), so dependsOn the provider on ks would deadlock the cold start.
// The two need each other; only moving objects orders them. v.cycle is
// then the chain of waits from the provider to ks.
func (ix *index) mutualNeed(c *convergence, ks tiers.ID, v *verdict) {
	if v.via == nil {
		return
	}
	if chain := c.mutualWait(v.via.at.ks, ks); chain != nil {
		v.code, v.cycle = CodeMutualNeed, chain
	}
}

// waitChain words a chain of waits: "a -> b -> c".
func waitChain(ids []tiers.ID) string {
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = id.NamespacedName()
	}
	return strings.Join(names, " -> ")
}

// mutualNeedText is the message and fix of one MUTUAL_NEED place. The
// fix names both ways out: this object moved where the provider can be
// waited for, or the provider's own objects that wait for ks moved out of
// its way, after which ks can have dependsOn the provider.
func (ix *index) mutualNeedText(v verdict, gk GroupKind, p placed, h Hazard) (string, string) {
	src := v.via.at
	what := ""
	if v.via.secondOrder() {
		what = fmt.Sprintf(" applies %s (%s) but", src.obj, fileOrUnknown(src.file))
	}
	outcome := "the pass converges on " + retryText(h)
	if v.blocked {
		outcome = fmt.Sprintf("%s itself never gets that far on a cold start (another finding says why), so neither does this pass until that is fixed", src.ks)
	}
	msg := fmt.Sprintf("%s; %s%s is not an ancestor of %s and cannot be one: it cannot turn Ready before %s has applied its objects (%s), so dependsOn %s would deadlock the cold start; without it the kind may not exist yet when %s is applied, and %s",
		cause(v, gk), src.ks, what, p.ks, p.ks, waitChain(v.cycle), src.ks.NamespacedName(), p.obj, outcome)
	return msg, fmt.Sprintf("%s; or %s, after which %s can have dependsOn %s", moveObjectsText(v, p.obj.String(), p.ks.NamespacedName()), ix.unwaitText(v.cycle), p.ks.NamespacedName(), src.ks.NamespacedName())
}

// moveObjectsText words the move of what, out of from, to where its
// provider comes first: into the provider itself for a CRD (applied, and
// waited for, in its first stage), else to a Kustomization of its own
// with dependsOn the provider, which must wait for its trigger or
// HelmRelease.
func moveObjectsText(v verdict, what, from string) string {
	src := v.via.at
	to := src.ks.NamespacedName()
	if !v.via.secondOrder() {
		return fmt.Sprintf("move %s out of %s, into %s (which applies the CRD) or to a Kustomization of its own with dependsOn %s", what, from, to, to)
	}
	wait := fmt.Sprintf(", and wait: true (or a health check on %s) on %s", src.obj, to)
	if v.guarded {
		wait = fmt.Sprintf(" (which already waits for %s)", src.obj)
	}
	return fmt.Sprintf("move %s out of %s, to a Kustomization of its own with dependsOn %s%s", what, from, to, wait)
}

// unwaitText words the other way out of a chain of waits: the first
// Kustomization's objects of the kinds the second provides, moved out of
// its way; else (a dependsOn, an applier) the wait itself, broken.
func (ix *index) unwaitText(chain []tiers.ID) string {
	from, to := chain[0], chain[1]
	if kinds := ix.neededFrom(from, to); len(kinds) > 0 {
		names := make([]string, len(kinds))
		for i, gk := range kinds {
			names[i] = gk.Kind
		}
		return fmt.Sprintf("move the %s objects of %s (%s provides their kind) out of it the same way", strings.Join(names, ", "), from.NamespacedName(), to.NamespacedName())
	}
	return fmt.Sprintf("break the wait of %s for %s (%s)", from.NamespacedName(), to.NamespacedName(), waitChain(chain))
}

// neededFrom lists the kinds ks applies whose origin, among the candidates
// the origins model knows, is applied by provider: sorted, each once.
func (ix *index) neededFrom(ks, provider tiers.ID) []GroupKind {
	var out []GroupKind
	for _, k := range ix.kinds[ks] {
		if slices.Contains(out, k.gk) || isBuiltin(k.gk) || isFlux(k.gk) {
			continue
		}
		for _, o := range ix.origins(k.gk, ix.cluster[ks]).candidates {
			if o.at.ks == provider {
				out = append(out, k.gk)
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b GroupKind) int {
		return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Kind, b.Kind))
	})
	return out
}

// mutualNeedGroupTexts speak for every place of a MUTUAL_NEED finding of
// one provider.
func mutualNeedGroupTexts(v verdict, gk GroupKind) (string, string) {
	src := v.via.at
	msg := fmt.Sprintf("%s; %s is an ancestor of none of the Kustomizations listed and cannot be one: it cannot turn Ready before they have applied their objects (each place names the chain), so dependsOn %s would deadlock the cold start; without it each pass that applies the kind fails and converges on a retry",
		cause(v, gk), src.ks, src.ks.NamespacedName())
	return msg, moveObjectsText(v, "the "+gk.Kind+" objects listed", "their Kustomizations") + "; or, for each place, the other way it names"
}
