package audit

import (
	"fmt"
	"strings"

	"github.com/kubestandup/standup/pkg/catalog"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

const configFile = render.ConfigFile

// kindHazard builds the finding v.code for one object p of kind gk.
func (ix *index) kindHazard(v verdict, gk GroupKind, p placed, opts Options) Hazard {
	h := Hazard{Code: v.code, Severity: v.severity, Kustomization: p.ks, Object: p.obj, File: p.file, Line: p.line, Evidence: v.evidence}
	if o := v.via; o != nil {
		provider := o.at.ks
		h.Provider = &provider
		if o.secondOrder() {
			trigger := o.trigger
			h.Trigger = &trigger
		}
	}
	if v.via == nil && v.set.declared {
		// The declared origin is absent: name what would make the CRD.
		switch v.origin {
		case OriginRuntime:
			trigger := ix.runtime[gk]
			h.Trigger = &trigger
		case OriginChart:
			h.Trigger = &GroupKind{Group: hrGroup, Kind: hrKind}
		}
	}
	if v.severity == SeverityWarning && !v.blocked {
		h.Retry, h.retryFrom = ix.retryOf(p.ks)
	}
	switch v.code {
	case CodeSecondOrderSamePass:
		h.Message, h.Fix = samePassText(v, gk, p, h)
		if len(v.created) > 0 {
			h.Message, h.Fix = ix.nestedPassText(v, gk, p)
		}
	case CodeOriginCycle:
		h.Message, h.Fix = originCycleText(v, gk, p)
	case CodeMissingEdge:
		h.Message, h.Fix = ix.missingEdgeText(v, gk, p, h)
		if v.via != nil && v.via.secondOrder() && !ix.guards(&v.via.at) {
			guard := v.via.at.obj
			h.Guard = &guard
		}
	case CodeMutualNeed:
		h.Message, h.Fix = ix.mutualNeedText(v, gk, p, h)
	case CodeUnguardedProvider:
		h.Message, h.Fix = unguardedText(v, gk, h)
		guard := v.via.at.obj
		h.Guard = &guard
	case CodeUnknownKind:
		if opts.Strict {
			h.Severity = SeverityError
		}
		h.Message = unknownKindText(v, gk)
		h.Fix = unknownKindFix(v, gk)
	}
	h.groupMessage, h.groupFix = groupTexts(v, gk, h)
	return h
}

// retryOf is how long ks waits before it retries a failed pass:
// spec.retryInterval, else spec.interval (GetRetryInterval in
// kustomize-controller's api/v1), as written.
func (ix *index) retryOf(ks tiers.ID) (string, string) {
	def, ok := ix.res.Definitions[ks]
	if !ok {
		return "", ""
	}
	for _, field := range []string{"retryInterval", "interval"} {
		if s, ok := def.Object.Object["spec"].(map[string]any)[field].(string); ok && s != "" {
			return s, field
		}
	}
	return "", ""
}

// retryText words a warning's delay: "a retry after 5m (its retryInterval)".
func retryText(h Hazard) string {
	if h.Retry == "" {
		return "a retry"
	}
	return fmt.Sprintf("a retry after %s (its %s)", h.Retry, h.retryFrom)
}

// unknownKindText says no origin was found for gk.
func unknownKindText(v verdict, gk GroupKind) string {
	switch {
	case v.set.elsewhere:
		return fmt.Sprintf("no origin found for %s in this cluster: what provides it lands in another cluster (spec.kubeConfig)", gk)
	case v.set.disabled != nil:
		d := v.set.disabled
		return fmt.Sprintf("no origin found for %s: the chart of HelmRelease %s/%s (%s) installs it only when %s is true, which its values do not set",
			gk, d.obj.Namespace, d.obj.Name, fileOrUnknown(d.file), strings.Join(v.set.switches, " or "))
	}
	msg := fmt.Sprintf("no origin found for %s: it is not built in, not installed before Flux, no Kustomization applies its CRD, no chart or operator of the repository is known to provide it, and %s does not declare it", gk, configFile)
	if len(v.known) > 0 {
		names := make([]string, len(v.known))
		for i, e := range v.known {
			names[i] = e.Name
		}
		msg += fmt.Sprintf(" (the catalog knows it from %s, which no rendered HelmRelease or manifest of the repository installs)", strings.Join(names, ", "))
	}
	if in := v.installer; in != nil {
		msg += fmt.Sprintf("; but it is applied in the same pass as %s (%s), which installs CRDs at runtime: if %s's CRD is one of them, the dry-run fails on the unknown kind, so the %s is never applied and the pass never converges",
			in.obj, fileOrUnknown(in.file), gk, in.obj.Kind)
	}
	return msg
}

// unknownKindFix names the likeliest origin of an unknown kind: something
// remote a build left out offline, a chart named after the kind's group, an
// ancestor the checkout does not render; else the general remedy.
func unknownKindFix(v verdict, gk GroupKind) string {
	otherwise := fmt.Sprintf("if it is installed before Flux, declare it in %s bootstrapCRDs", configFile)
	switch {
	case v.installer != nil:
		in := v.installer
		return fmt.Sprintf("if %s installs it, move the %s objects to their own Kustomization with dependsOn %s, which needs wait: true (or a health check on %s), and declare it in %s runtimeCRDs with trigger %s; %s",
			in.obj, gk, in.ks.Name, in.obj, configFile, GroupKind{Group: groupOf(in.obj.APIVersion), Kind: in.obj.Kind}, otherwise)
	case v.set.disabled != nil:
		return fmt.Sprintf("set %s in the values of HelmRelease %s/%s, or declare where its CRD comes from in %s",
			v.set.switches[0], v.set.disabled.obj.Namespace, v.set.disabled.obj.Name, configFile)
	case v.remote != nil:
		return fmt.Sprintf("if %s holds its CRD (%s's build left it out offline), declare it in %s kustomizationCRDs with that kustomization; %s",
			v.remote.what, v.remote.ks, configFile, otherwise)
	case v.likely != nil:
		r := v.likely
		return fmt.Sprintf("if the chart of HelmRelease %s/%s (applied by %s) installs it, declare it in %s chartCRDs with that helmRelease; %s",
			r.obj.Namespace, r.obj.Name, r.ks, configFile, otherwise)
	case v.unrendered != nil:
		return fmt.Sprintf("if its ancestor %s (not rendered: it builds from another source) applies the CRD, declare it in %s kustomizationCRDs with that kustomization; %s",
			v.unrendered, configFile, otherwise)
	}
	return fmt.Sprintf("declare where %s's CRD comes from in %s (bootstrapCRDs, chartCRDs, runtimeCRDs or kustomizationCRDs), or apply it in an ancestor of the Kustomizations that use it", gk, configFile)
}

// namespaceHazard reports a Flux object p rendered without a namespace.
func namespaceHazard(p placed) Hazard {
	return Hazard{Code: CodeNamespaceNotSpecified, Severity: SeverityError, Kustomization: p.ks, Object: p.obj, File: p.file, Line: p.line,
		Message: fmt.Sprintf("%s applies %s without a namespace and sets no targetNamespace: kustomize-controller fails the whole apply (namespace not specified), so %s never becomes Ready, nor anything that depends on it",
			p.ks, p.obj, p.ks),
		Fix: fmt.Sprintf("set metadata.namespace on %s (in %s), or spec.targetNamespace on %s", p.obj, fileOrUnknown(p.file), p.ks)}
}

// cause says what makes gk's CRD appear.
func cause(v verdict, gk GroupKind) string {
	if v.via != nil {
		return v.via.describe(gk)
	}
	if v.origin == OriginChart && v.set.release != nil {
		return fmt.Sprintf("%s's CRD is installed by the chart of HelmRelease %s", gk, v.set.release)
	}
	return fmt.Sprintf("%s's CRD is created at runtime", gk)
}

func samePassText(v verdict, gk GroupKind, p placed, h Hazard) (string, string) {
	src := v.via.at
	if v.opaque != nil {
		return fmt.Sprintf("%s, and %s applies it in the same pass as %s (%s): the dry-run fails on the unknown kind, so the %s is never applied; the pass converges on %s only if %s (not rendered: it builds from another source) applies the CRD, else never",
				cause(v, gk), p.ks, src.obj, fileOrUnknown(src.file), src.obj.Kind, retryText(h), v.opaque),
			fmt.Sprintf("move %s to its own Kustomization with dependsOn %s; %s needs wait: true (or a health check on %s)", p.obj, p.ks.Name, p.ks.Name, src.obj)
	}
	if v.via.assumed {
		return fmt.Sprintf("%s, if its values (which spec.valuesFrom completes) switch the CRDs on, and %s applies it in the same pass as %s (%s): then the dry-run fails on the unknown kind, the %s is never applied and the pass never converges",
				cause(v, gk), p.ks, src.obj, fileOrUnknown(src.file), src.obj.Kind),
			fmt.Sprintf("move %s to its own Kustomization with dependsOn %s; %s needs wait: true (or a health check on %s)", p.obj, p.ks.Name, p.ks.Name, src.obj)
	}
	if v.severity == SeverityWarning {
		return fmt.Sprintf("%s, and %s applies it in the same pass as %s (%s), in its %s, after the %s's %s: the first attempt fails on the unknown kind, and the pass converges on %s",
				cause(v, gk), p.ks, src.obj, fileOrUnknown(src.file), stageNames[v.stage], src.obj.Kind, stageNames[src.stage], retryText(h)),
			fmt.Sprintf("move %s to its own Kustomization with dependsOn %s, which needs wait: true (or a health check on %s)", p.obj, p.ks.Name, src.obj)
	}
	where := "in the same pass"
	if src.stage != v.stage {
		where = fmt.Sprintf("in the same pass (its %s, before the %s's %s)", stageNames[v.stage], src.obj.Kind, stageNames[src.stage])
	}
	msg := fmt.Sprintf("%s, and %s applies it %s as %s (%s): the dry-run fails on the unknown kind, so the %s is never applied and the pass never converges",
		cause(v, gk), p.ks, where, src.obj, fileOrUnknown(src.file), src.obj.Kind)
	fix := fmt.Sprintf("move %s to its own Kustomization with dependsOn %s; %s needs wait: true (or a health check on %s)",
		p.obj, p.ks.Name, p.ks.Name, src.obj)
	if v.guarded {
		fix = fmt.Sprintf("move %s to its own Kustomization with dependsOn %s (which already waits for %s)", p.obj, p.ks.Name, src.obj)
	}
	if ownsTemplatedCRD(*v.via, gk) {
		fix += fmt.Sprintf("; until then, a CRD pre-applied to break the deadlock (standup resume --crds) must carry Helm's ownership metadata for %s (label app.kubernetes.io/managed-by=Helm, annotations meta.helm.sh/release-name and meta.helm.sh/release-namespace): its chart ships %s's CRD in templates/ and it sets install.disableTakeOwnership, so Helm refuses a CRD without it (standup crds capture keeps the metadata)",
			src.obj, gk)
	}
	return msg, fix
}

// ownsTemplatedCRD reports whether o is a HelmRelease whose chart ships
// gk's CRD in templates/ and that refuses to take ownership of an existing
// object (install.disableTakeOwnership): Helm installs it only over a CRD
// that carries the release's ownership metadata.
func ownsTemplatedCRD(o origin, gk GroupKind) bool {
	if o.src != srcChart || o.entry == nil || o.at.release == nil || !o.at.release.noTakeOwnership {
		return false
	}
	in := o.entry.Installs(catalog.GroupKind(gk))
	return in != nil && in.From == catalog.FromTemplates
}

// groupTexts are the message and fix of a finding whose places differ only
// in the objects (and Kustomizations) they name.
func groupTexts(v verdict, gk GroupKind, h Hazard) (string, string) {
	if v.via == nil {
		return "", ""
	}
	src := v.via.at
	switch h.Code {
	case CodeSecondOrderSamePass:
		if len(v.created) > 0 {
			return "", nestedPassGroupFix(v, gk)
		}
		if v.severity == SeverityError && v.opaque == nil {
			fix := fmt.Sprintf("move the %s objects listed to a Kustomization of their own with dependsOn %s; %s needs wait: true (or a health check on %s)", gk.Kind, src.ks.Name, src.ks.Name, src.obj)
			if v.guarded {
				fix = fmt.Sprintf("move the %s objects listed to a Kustomization of their own with dependsOn %s (which already waits for %s)", gk.Kind, src.ks.Name, src.obj)
			}
			return "", fix
		}
	case CodeMissingEdge:
		fix := fmt.Sprintf("add dependsOn %s to each Kustomization listed", src.ks.NamespacedName())
		if v.via.secondOrder() && !v.guarded {
			fix += fmt.Sprintf(", and wait: true (or a health check on %s) to %s", src.obj, src.ks)
		}
		outcome := "each pass that applies it fails and converges on a retry (each place says after how long)"
		if v.blocked {
			outcome = fmt.Sprintf("%s itself never gets that far on a cold start (another finding says why)", src.ks)
		}
		what := ""
		if v.via.secondOrder() {
			what = fmt.Sprintf(" applies %s (%s) but", src.obj, fileOrUnknown(src.file))
		}
		return fmt.Sprintf("%s; %s%s is an ancestor of none of the Kustomizations listed: on a cold start the kind may not exist yet, and %s",
			cause(v, gk), src.ks, what, outcome), fix
	case CodeMutualNeed:
		return mutualNeedGroupTexts(v, gk)
	case CodeUnguardedProvider:
		return fmt.Sprintf("%s; the ancestor %s applies %s (%s) but has neither wait: true nor a health check on it, so it turns Ready before the CRD exists, and each pass that applies it converges on a retry (each place says after how long)",
			cause(v, gk), src.ks, src.obj, fileOrUnknown(src.file)), ""
	}
	return "", ""
}

func originCycleText(v verdict, gk GroupKind, p placed) (string, string) {
	src := v.via.at
	chain := make([]string, len(v.cycle))
	for i, id := range v.cycle {
		chain[i] = id.NamespacedName()
	}
	if g := v.gate; g != nil {
		return fmt.Sprintf("%s, and %s cannot act before %s is Ready (%s), while %s waits for CustomResourceDefinition/%s (a health check) before it turns Ready, and %s is applied only after it: neither ever converges",
				cause(v, gk), src.ks, g.ks, strings.Join(chain, " -> "), g.ks, g.crd, p.ks),
			fmt.Sprintf("break the cycle: move what provides %s out of %s's way (to a Kustomization that does not wait for %s), or drop the health check on CustomResourceDefinition/%s from %s", gk, src.ks.Name, g.ks.Name, g.crd, g.ks)
	}
	return fmt.Sprintf("%s, and %s cannot act before %s is Ready (%s), while %s cannot get past the dry-run of %s until the CRD exists: neither ever converges",
			cause(v, gk), src.ks, p.ks, strings.Join(chain, " -> "), p.ks, gk),
		fmt.Sprintf("break the cycle: move what provides %s out of %s's way (to a Kustomization that does not wait for %s), or move %s after it", gk, src.ks.Name, p.ks.Name, p.obj)
}

func (ix *index) missingEdgeText(v verdict, gk GroupKind, p placed, h Hazard) (string, string) {
	set := v.set
	if v.severity == SeverityError {
		switch {
		case set.absent != nil:
			return fmt.Sprintf("%s kustomizationCRDs declares %s's CRD applied by %s, which the repository does not define", configFile, gk, set.absent),
				fmt.Sprintf("name in kustomizationCRDs the Kustomization that applies the CRD (one of the graph), or add %s to the repository", set.absent)
		case v.origin == OriginKustomization && set.elsewhere:
			return fmt.Sprintf("%s's CRD is applied by a Kustomization %s declares in kustomizationCRDs, but none of them applies to the cluster %s applies to (spec.kubeConfig)", gk, configFile, p.ks),
				fmt.Sprintf("declare in kustomizationCRDs the Kustomization that applies the CRD to this cluster, and add it to the dependsOn of %s", p.ks)
		case v.origin == OriginChart && set.elsewhere:
			return fmt.Sprintf("%s, which installs it into another cluster than the one %s applies to (spec.kubeConfig)", cause(v, gk), p.ks),
				fmt.Sprintf("declare in chartCRDs of %s the HelmRelease that installs the chart into this cluster, applied in an ancestor of %s", configFile, p.ks)
		case set.elsewhere:
			trigger := ix.runtime[gk]
			return fmt.Sprintf("%s's CRD is created at runtime, once a %s is reconciled, and every %s of the repository lands in another cluster than the one %s applies to (spec.kubeConfig)", gk, trigger.Kind, trigger.Kind, p.ks),
				fmt.Sprintf("apply a %s to this cluster in an ancestor of %s", trigger.Kind, p.ks)
		case v.origin == OriginChart:
			return fmt.Sprintf("%s, which no Kustomization of the repository applies: the CRD never appears", cause(v, gk)),
				fmt.Sprintf("apply the HelmRelease in an ancestor of %s, or correct chartCRDs in %s", p.ks, configFile)
		default:
			trigger := ix.runtime[gk]
			return fmt.Sprintf("%s's CRD is created at runtime, once a %s is reconciled, and no Kustomization of the repository applies a %s: the CRD never appears", gk, trigger.Kind, trigger.Kind),
				fmt.Sprintf("apply a %s in an ancestor of %s, or correct runtimeCRDs in %s", trigger.Kind, p.ks, configFile)
		}
	}
	src := v.via.at
	what := ""
	if v.via.secondOrder() {
		what = fmt.Sprintf(" applies %s (%s) but", src.obj, fileOrUnknown(src.file))
	}
	fix := fmt.Sprintf("add dependsOn %s to %s", depRef(p.ks, src.ks), p.ks)
	if v.via.secondOrder() && !ix.guards(&src) {
		fix += fmt.Sprintf(", and wait: true (or a health check on %s) to %s", src.obj, src.ks)
	}
	outcome := "the pass converges on " + retryText(h)
	if v.blocked {
		outcome = fmt.Sprintf("%s itself never gets that far on a cold start (another finding says why), so neither does this pass until that is fixed", src.ks)
	}
	return fmt.Sprintf("%s; %s%s is not an ancestor of %s: on a cold start the kind may not exist yet when %s is applied, and %s",
		cause(v, gk), src.ks, what, p.ks, p.obj, outcome), fix
}

func unguardedText(v verdict, gk GroupKind, h Hazard) (string, string) {
	src := v.via.at
	return fmt.Sprintf("%s; the ancestor %s applies %s (%s) but has neither wait: true nor a health check on it, so it turns Ready before the CRD exists, and the pass converges on %s",
			cause(v, gk), src.ks, src.obj, fileOrUnknown(src.file), retryText(h)),
		fmt.Sprintf("set wait: true on %s, or add a health check on %s", src.ks, src.obj)
}

// depRef names to as a dependsOn entry of from would: by name within a
// namespace, namespace/name across namespaces.
func depRef(from, to tiers.ID) string {
	if from.Namespace == to.Namespace {
		return to.Name
	}
	return to.NamespacedName()
}

func fileOrUnknown(file string) string {
	if file == "" {
		return "file unknown"
	}
	return file
}
