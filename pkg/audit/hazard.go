package audit

import (
	"cmp"
	"strings"
	"sync"

	"github.com/kubestandup/standup/pkg/tiers"
)

// Code identifies a kind of hazard. Codes are stable: tools may match on them.
type Code string

// The hazard codes, documented in docs/audit.md.
const (
	// CodeSecondOrderSamePass reports that a kind whose CRD appears only once another
	// object has been reconciled (a runtime kind's trigger, a chart's
	// HelmRelease) is applied in the same Kustomization as that object.
	CodeSecondOrderSamePass Code = "SECOND_ORDER_SAME_PASS"
	// CodeOriginCycle reports that a kind's CRD comes from a Kustomization
	// that cannot act before the one applying the kind is Ready: a cycle
	// through origins, a deadlock.
	CodeOriginCycle Code = "ORIGIN_CYCLE"
	// CodeMissingEdge reports that a kind's CRD, trigger or HelmRelease comes from a
	// Kustomization that is not an ancestor through dependsOn, or from none.
	CodeMissingEdge Code = "MISSING_EDGE"
	// CodeMutualNeed reports that a kind's CRD, trigger or HelmRelease comes
	// from a Kustomization that nothing orders first and that cannot be
	// ordered first: it cannot turn Ready before the one applying the kind
	// has applied its objects, so the dependsOn a MISSING_EDGE would ask for
	// deadlocks the cold start. The objects need moving.
	CodeMutualNeed Code = "MUTUAL_NEED"
	// CodeUnguardedProvider reports that the ancestor that applies a runtime kind's
	// trigger or a chart's HelmRelease has neither wait: true nor a health
	// check on it, so its Ready does not mean the CRD exists.
	CodeUnguardedProvider Code = "UNGUARDED_PROVIDER"
	// CodeUnknownKind reports that no origin was found for a custom kind.
	CodeUnknownKind Code = "UNKNOWN_KIND"
	// CodeLiteralSubstitutionToken reports that a ${VAR} is left in the output of a
	// Kustomization that declares no postBuild, so it is applied literally.
	CodeLiteralSubstitutionToken Code = "LITERAL_SUBSTITUTION_TOKEN"
	// CodeNamespaceNotSpecified reports a Flux object (always namespaced)
	// rendered without a namespace: kustomize-controller fails the whole
	// apply, so its Kustomization never becomes Ready.
	CodeNamespaceNotSpecified Code = "NAMESPACE_NOT_SPECIFIED"
	// CodeCycle reports that Kustomizations depend on each other in a circle.
	CodeCycle Code = "CYCLE"
	// CodeDanglingDependency reports that a Kustomization depends on one that does not exist.
	CodeDanglingDependency Code = "DANGLING_DEPENDENCY"
	// CodeBuildFailed reports a Kustomization whose build failed offline
	// (render.Result.Failed): kustomize-controller would fail it too. The
	// rest of the repository is audited without it.
	CodeBuildFailed Code = "BUILD_FAILED"
)

// Rule describes one hazard code, for documentation and code-scanning tools.
type Rule struct {
	// Code is the hazard code.
	Code Code
	// Name is the code in PascalCase, as SARIF rule names are written.
	Name string
	// Severity is the code's usual severity: SECOND_ORDER_SAME_PASS is a
	// warning when the trigger is applied in an earlier stage, MISSING_EDGE an
	// error when the origin never appears, UNKNOWN_KIND an error with
	// Options.Strict.
	Severity Severity
	// Summary is a one-sentence description.
	Summary string
}

// Rules returns every hazard code with its description, in the order
// docs/audit.md lists them, which is also the order of hazards of one
// Kustomization in a report.
func Rules() []Rule {
	return []Rule{
		{CodeSecondOrderSamePass, "SecondOrderSamePass", SeverityError,
			"A kind whose CRD appears only once another object is reconciled (a runtime kind's trigger, a chart's HelmRelease) is applied in the same Kustomization as that object, in the same apply stage or an earlier one: a cold cluster deadlocks."},
		{CodeOriginCycle, "OriginCycle", SeverityError,
			"A kind's CRD comes from a Kustomization that cannot act before the one applying the kind is Ready: a cycle through origins, a deadlock."},
		{CodeMissingEdge, "MissingEdge", SeverityWarning,
			"A kind's CRD, trigger or HelmRelease comes from a Kustomization that nothing orders first: a cold start fails a pass and converges on a retry."},
		{CodeMutualNeed, "MutualNeed", SeverityWarning,
			"A kind's CRD, trigger or HelmRelease comes from a Kustomization that nothing orders first and that cannot turn Ready before the one applying the kind has applied its objects: a cold start fails a pass and converges on a retry, and dependsOn would deadlock it, so the objects need moving."},
		{CodeUnguardedProvider, "UnguardedProvider", SeverityWarning,
			"The ancestor that applies a runtime kind's trigger or a chart's HelmRelease has neither wait: true nor a health check on it, so dependsOn does not guarantee that the CRD exists: a cold start fails a pass and converges on a retry."},
		{CodeUnknownKind, "UnknownKind", SeverityNotice,
			"No origin was found for a custom kind: it is not built in, not installed before Flux, no Kustomization applies its CRD, the catalog knows no chart or operator of the repository that provides it, and standup.yaml does not declare it."},
		{CodeLiteralSubstitutionToken, "LiteralSubstitutionToken", SeverityWarning,
			"A ${VAR} is left in the output of a Kustomization that declares no postBuild, so it is applied literally."},
		{CodeNamespaceNotSpecified, "NamespaceNotSpecified", SeverityError,
			"A Flux object is applied without a namespace, and its Kustomization sets no targetNamespace: kustomize-controller fails the whole apply, so the Kustomization never becomes ready."},
		{CodeCycle, "Cycle", SeverityError,
			"Kustomizations depend on each other in a circle: none of them ever becomes ready."},
		{CodeDanglingDependency, "DanglingDependency", SeverityError,
			"A Kustomization depends on one that does not exist: it never becomes ready."},
		{CodeBuildFailed, "BuildFailed", SeverityError,
			"A Kustomization's build fails: kustomize-controller fails it the same way, and it never becomes ready; the rest of the repository is audited without it."},
	}
}

// Severity says whether a hazard fails the audit.
type Severity string

const (
	// SeverityError fails the audit: the cold start cannot converge without
	// help.
	SeverityError Severity = "error"
	// SeverityWarning does not fail the audit: the cold start converges,
	// after a failed pass and a retry.
	SeverityWarning Severity = "warning"
	// SeverityNotice does not fail the audit: audit cannot tell (the origin
	// of a kind is unknown).
	SeverityNotice Severity = "notice"
)

// severityRank orders severities, the gravest first.
func severityRank(s Severity) int {
	switch s {
	case SeverityError:
		return 0
	case SeverityWarning:
		return 1
	}
	return 2
}

// Object names one rendered object.
type Object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Namespace is empty for a cluster-scoped object.
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// String renders the object as Kind/name or Kind/namespace/name.
func (o Object) String() string {
	if o.Namespace == "" {
		return o.Kind + "/" + o.Name
	}
	return o.Kind + "/" + o.Namespace + "/" + o.Name
}

// Hazard is one finding of the audit.
type Hazard struct {
	// Code says what is wrong.
	Code Code `json:"code"`
	// Severity is error or warning.
	Severity Severity `json:"severity"`
	// Kustomization is the Kustomization that applies Object (for graph
	// hazards, the Kustomization at fault).
	Kustomization tiers.ID `json:"kustomization"`
	// Object is the object at fault.
	Object Object `json:"object"`
	// File is the file Object was read from, relative to the repository
	// root; empty when unknown.
	File string `json:"file,omitempty"`
	// Line is the 1-based line of File where Object's document starts (for
	// a generated object, its generator's entry); 0 when unknown.
	Line int `json:"line,omitempty"`
	// Cluster is the cluster Kustomization applies Object to when it is
	// not the one Flux runs in (spec.kubeConfig: the Secret as
	// namespace/name, ConfigMap/namespace/name for workload identity);
	// empty, and left out of the json, for the local cluster.
	Cluster string `json:"cluster,omitempty"`
	// Message says what is wrong, naming the objects involved.
	Message string `json:"message"`
	// Fix is a one-line repair.
	Fix string `json:"fix"`
	// Provider is the Kustomization that applies the CRD, trigger or
	// HelmRelease Object's kind needs, when there is one.
	Provider *tiers.ID `json:"provider,omitempty"`
	// Trigger is the kind whose objects make Object's CRD appear, for
	// second-order kinds (a HelmRelease for a chart's kinds).
	Trigger *GroupKind `json:"trigger,omitempty"`
	// Retry is how long a warning's cold start waits before the retry that
	// converges: Kustomization's spec.retryInterval, else spec.interval, as
	// written ("5m").
	Retry string `json:"retry,omitempty"`
	// Evidence says who says where the kind comes from when the rendered
	// objects do not: "standup.yaml", "catalog: cert-manager".
	Evidence string `json:"evidence,omitempty"`
	// Guard is, for MISSING_EDGE and UNGUARDED_PROVIDER, the trigger or
	// HelmRelease that Provider applies and does not wait for yet: the fix
	// gives Provider wait: true or a health check naming it. Nil when
	// Provider waits for it already, or the kind's origin is a CRD (CRDs
	// are waited for in the first apply stage). The json leaves it out: the
	// message names it.
	Guard *Object `json:"-"`
	// retryFrom names the field Retry comes from (retryInterval, interval).
	retryFrom string
	// groupMessage and groupFix speak for every place of the finding when
	// the places' own texts differ (they name their objects).
	groupMessage, groupFix string
}

// codeRank orders codes within one Kustomization: the deadlock first.
func codeRank(c Code) int {
	if i, ok := codeRanks()[c]; ok {
		return i
	}
	return len(codeRanks())
}

var codeRanks = sync.OnceValue(func() map[Code]int {
	ranks := map[Code]int{}
	for i, r := range Rules() {
		ranks[r.Code] = i
	}
	return ranks
})

// compareHazards orders hazards: errors first, then warnings, notices, then
// by Kustomization, code, object and file, so that the same repository
// always prints the same report.
func compareHazards(a, b Hazard) int {
	if a.Severity != b.Severity {
		return cmp.Compare(severityRank(a.Severity), severityRank(b.Severity))
	}
	if a.Kustomization != b.Kustomization {
		if a.Kustomization.Less(b.Kustomization) {
			return -1
		}
		return 1
	}
	return cmp.Or(
		cmp.Compare(codeRank(a.Code), codeRank(b.Code)),
		strings.Compare(a.Object.Kind, b.Object.Kind),
		strings.Compare(a.Object.Namespace, b.Object.Namespace),
		strings.Compare(a.Object.Name, b.Object.Name),
		strings.Compare(a.File, b.File),
		strings.Compare(a.Message, b.Message),
	)
}
