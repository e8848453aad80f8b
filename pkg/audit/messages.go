package audit

import (
	"fmt"

	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

const configFile = render.ConfigFile

// kindHazard builds the hazard v.code for one object p of kind gk.
func kindHazard(v verdict, gk GroupKind, p placed, opts Options) Hazard {
	h := Hazard{Code: v.code, Severity: SeverityError, Kustomization: p.ks, Object: p.obj, File: p.file, Trigger: v.trigger}
	if v.provider != nil {
		provider := v.provider.ks
		h.Provider = &provider
	}
	switch v.code {
	case CodeSecondOrderSamePass:
		h.Message, h.Fix = samePassText(v, gk, p)
	case CodeMissingEdge:
		h.Message, h.Fix = missingEdgeText(v, gk, p)
	case CodeUnguardedProvider:
		h.Severity = SeverityWarning
		h.Message, h.Fix = unguardedText(v, gk)
	case CodeUnknownKind:
		if opts.AllowUnknownKinds {
			h.Severity = SeverityWarning
		}
		h.Message = fmt.Sprintf("no origin found for %s: it is not built in, no Kustomization in the repository applies its CRD, and %s does not declare it", gk, configFile)
		if v.elsewhere {
			h.Message = fmt.Sprintf("no origin found for %s in the cluster %s applies to: its CRD is applied only to another cluster (spec.kubeConfig), and %s does not declare it", gk, p.ks, configFile)
		}
		h.Fix = unknownKindFix(v, p)
	}
	return h
}

// unknownKindFix names the likeliest origin of an unknown kind: something
// remote a build left out offline, a chart named after the kind's group, an
// ancestor the checkout does not render; else the general remedy.
func unknownKindFix(v verdict, p placed) string {
	otherwise := fmt.Sprintf("else apply its CRD in an ancestor of %s", p.ks)
	switch {
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
	return fmt.Sprintf("apply its CRD in an ancestor of %s, or declare it in %s (runtimeCRDs, chartCRDs or kustomizationCRDs)", p.ks, configFile)
}

// namespaceHazard reports a Flux object p rendered without a namespace.
func namespaceHazard(p placed) Hazard {
	return Hazard{Code: CodeNamespaceNotSpecified, Severity: SeverityError, Kustomization: p.ks, Object: p.obj, File: p.file,
		Message: fmt.Sprintf("%s applies %s without a namespace and sets no targetNamespace: kustomize-controller fails the whole apply (namespace not specified), so %s never becomes Ready, nor anything that depends on it",
			p.ks, p.obj, p.ks),
		Fix: fmt.Sprintf("set metadata.namespace on %s (in %s), or spec.targetNamespace on %s", p.obj, fileOrUnknown(p.file), p.ks)}
}

// cause says what makes gk's CRD appear.
func cause(v verdict, gk GroupKind) string {
	if v.origin == OriginChart {
		return fmt.Sprintf("%s's CRD is installed by the chart of HelmRelease %s", gk, v.release)
	}
	return fmt.Sprintf("%s's CRD is created at runtime, once a %s is reconciled", gk, v.trigger.Kind)
}

func samePassText(v verdict, gk GroupKind, p placed) (string, string) {
	src := v.provider
	msg := fmt.Sprintf("%s, and %s applies it in the same pass as %s (%s): the dry-run fails on the unknown kind, so the %s is never applied and the pass never converges",
		cause(v, gk), p.ks, src.obj, fileOrUnknown(src.file), src.obj.Kind)
	fix := fmt.Sprintf("move %s to its own Kustomization with dependsOn %s; %s needs wait: true (or a health check on %s)",
		p.obj, p.ks.Name, p.ks.Name, src.obj)
	if v.guarded {
		fix = fmt.Sprintf("move %s to its own Kustomization with dependsOn %s (which already waits for %s)", p.obj, p.ks.Name, src.obj)
	}
	return msg, fix
}

func missingEdgeText(v verdict, gk GroupKind, p placed) (string, string) {
	src := v.provider
	switch {
	case v.absent != nil:
		return fmt.Sprintf("%s kustomizationCRDs declares %s's CRD applied by %s, which the repository does not define", configFile, gk, v.absent),
			fmt.Sprintf("name in kustomizationCRDs the Kustomization that applies the CRD (one of the graph), or add %s to the repository", v.absent)
	case v.origin == OriginKustomization && src == nil:
		return fmt.Sprintf("%s's CRD is applied by a Kustomization %s declares in kustomizationCRDs, but none of them applies to the cluster %s applies to (spec.kubeConfig)", gk, configFile, p.ks),
			fmt.Sprintf("declare in kustomizationCRDs the Kustomization that applies the CRD to this cluster, and add it to the dependsOn of %s", p.ks)
	case v.origin == OriginKustomization:
		return fmt.Sprintf("%s's CRD is applied by %s (%s kustomizationCRDs), which is not an ancestor of %s: on a cold cluster the kind may not exist yet", gk, src.ks, configFile, p.ks),
			fmt.Sprintf("add dependsOn %s to %s", depRef(p.ks, src.ks), p.ks)
	case v.origin == OriginUnordered:
		return fmt.Sprintf("the CRD of %s is applied by %s (%s), which is not an ancestor of %s: on a cold cluster the kind may not exist yet",
				gk, src.ks, fileOrUnknown(src.file), p.ks),
			fmt.Sprintf("add dependsOn %s to %s", depRef(p.ks, src.ks), p.ks)
	case src == nil && v.elsewhere && v.origin == OriginChart:
		return fmt.Sprintf("%s, which installs it into another cluster than the one %s applies to (spec.kubeConfig)", cause(v, gk), p.ks),
			fmt.Sprintf("declare in chartCRDs of %s the HelmRelease that installs the chart into this cluster, applied in an ancestor of %s", configFile, p.ks)
	case src == nil && v.elsewhere:
		return fmt.Sprintf("%s, and every %s of the repository lands in another cluster than the one %s applies to (spec.kubeConfig)", cause(v, gk), v.trigger.Kind, p.ks),
			fmt.Sprintf("apply a %s to this cluster in an ancestor of %s", v.trigger.Kind, p.ks)
	case src == nil && v.origin == OriginChart:
		return fmt.Sprintf("%s, which no Kustomization of the repository applies", cause(v, gk)),
			fmt.Sprintf("apply the HelmRelease in an ancestor of %s, or correct chartCRDs in %s", p.ks, configFile)
	case src == nil:
		return fmt.Sprintf("%s, and no Kustomization of the repository applies a %s", cause(v, gk), v.trigger.Kind),
			fmt.Sprintf("apply a %s in an ancestor of %s, or correct runtimeCRDs in %s", v.trigger.Kind, p.ks, configFile)
	}
	return fmt.Sprintf("%s; %s applies %s (%s) but is not an ancestor of %s: on a cold cluster the kind may not exist yet",
			cause(v, gk), src.ks, src.obj, fileOrUnknown(src.file), p.ks),
		fmt.Sprintf("add dependsOn %s to %s", depRef(p.ks, src.ks), p.ks)
}

func unguardedText(v verdict, gk GroupKind) (string, string) {
	src := v.provider
	return fmt.Sprintf("%s; the ancestor %s applies %s (%s) but has neither wait: true nor a health check on it, so it turns Ready before the CRD exists",
			cause(v, gk), src.ks, src.obj, fileOrUnknown(src.file)),
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
