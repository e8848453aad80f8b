package wait

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
)

// ReadyForDependents reports whether dep counts as ready for dependent, by the
// rule kustomize-controller applies in checkDependencies before it reconciles
// dependent: dep has a Ready condition, metadata.generation equals
// status.observedGeneration, Ready is True, and, when dep builds from the same
// source as dependent, dep's status.lastAppliedRevision equals that source's
// current artifact revision (sourceRevision). Flux compares the revisions
// exactly (meta.Artifact.HasRevision). An empty sourceRevision means the
// source has no artifact yet; Flux would not reach its dependency check then,
// and it counts as not ready here. sourceRevision is ignored when the sources
// differ.
//
// The reason is the message kustomize-controller writes for the same verdict
// (dependency 'flux-system/platform-config' is not ready), or "" when ready.
//
// A HelmRelease dependent is held to helm-controller v1.5's checkDependencies
// instead, which has no revision gate: Ready=True at the observed generation.
// So is a ResourceSet dependent, by the Flux Operator's checkDependencies:
// its HealthCheckExpr for a ResourceSet dependency (Ready=True at the
// generation), kstatus for a Kustomization or a HelmRelease (Current: the
// same). A ResourceSet dependency has no source: it never shares one.
//
// A dependsOn entry with a readyExpr is evaluated by Flux with CEL instead of
// this rule (unless its AdditiveCELDependencyCheck gate is on); this function
// applies the built-in rule only.
func ReadyForDependents(dep, dependent flux.Object, sourceRevision string) (bool, string) {
	name := dep.ID.NamespacedName()
	if !dep.ReadyAtGeneration() {
		return false, fmt.Sprintf("dependency '%s' is not ready", name)
	}
	if dependent.ID.Kind == flux.KindHelmRelease || dependent.ID.Kind == flux.KindResourceSet {
		return true, ""
	}
	if dep.SourceRef == dependent.SourceRef {
		if sourceRevision == "" {
			return false, fmt.Sprintf("dependency '%s' revision is not up to date: source '%s' has no artifact", name, dependent.SourceRef.String())
		}
		if dep.LastAppliedRevision != sourceRevision {
			return false, fmt.Sprintf("dependency '%s' revision is not up to date", name)
		}
	}
	return true, ""
}

// HelmReleaseReady reports whether a HelmRelease is ready at its chart's
// current revision, so that a walk need not ask it to reconcile: Ready=True
// at the observed generation and, when its chart is a HelmChart (whose
// artifact revision is the chart version), status.lastAttemptedRevision
// equal to chartRevision, the HelmChart's current artifact revision ("" when
// it has none: not ready). A chartRef to an OCIRepository or an
// ExternalArtifact is not compared: helm-controller records a version there
// that the source's revision does not spell the same way.
func HelmReleaseReady(obj flux.Object, chartRevision string) bool {
	if !obj.ReadyAtGeneration() {
		return false
	}
	if obj.Chart.Kind != flux.HelmChartKind {
		return true
	}
	return chartRevision != "" && obj.LastAppliedRevision == chartRevision
}

// classifyReadyTrue classifies an object whose Ready condition is True:
// Ready at the observed generation, else Waiting for the controller to
// observe the new one. ok is false when Ready is not True, and the caller
// classifies by its own rules.
func classifyReadyTrue(obj flux.Object) (st Status, ok bool) {
	r := obj.Ready
	if r == nil || r.Status != string(metav1.ConditionTrue) {
		return Status{}, false
	}
	if !obj.ReadyAtGeneration() {
		return Status{State: Waiting, Reason: meta.ProgressingReason, Message: fmt.Sprintf(
			"generation %d not yet observed (observed %d)", obj.Generation, obj.ObservedGeneration)}, true
	}
	return Status{State: Ready, Reason: r.Reason, Message: r.Message}, true
}

// RequestHandled reports whether kustomize-controller has handled the
// reconcile request standup made with token (the value it wrote to the
// reconcile.fluxcd.io/requestedAt annotation): status.lastHandledReconcileAt
// equals the token. An empty token is never handled.
func RequestHandled(obj flux.Object, token string) bool {
	return token != "" && obj.LastHandledReconcileAt == token
}

// State is the class of a Kustomization's readiness.
type State string

const (
	// Ready means Ready=True at the current generation.
	Ready State = "Ready"
	// Waiting means kustomize-controller is working or waiting on something
	// else (dependencies, a source, a reconcile in progress).
	Waiting State = "Waiting"
	// TransientFailure means the last reconcile failed in a way that a retry may fix.
	TransientFailure State = "TransientFailure"
	// HardFailure means retries will not help until the configuration changes.
	HardFailure State = "HardFailure"
	// SuspectedDeadlock means the dry-run failed on kinds the API server does not serve.
	SuspectedDeadlock State = "SuspectedDeadlock"
	// Suspended means spec.suspend is true.
	Suspended State = "Suspended"
)

// Status is the classification of one Kustomization.
type Status struct {
	State State `json:"state"`
	// Reason is the reason of the condition that decided the state, or "".
	Reason string `json:"reason,omitempty"`
	// Message is that condition's message, or standup's own explanation
	// when no condition decided it.
	Message string `json:"message,omitempty"`
	// Missing are the objects whose kinds are not served, for SuspectedDeadlock.
	Missing []crds.MissingKind `json:"missing,omitempty"`
}

// Classify sorts a Kustomization by its Ready and Stalled conditions, the
// way kustomize-controller v1.9 sets them (a HelmRelease: classifyHelmRelease):
//   - Suspended when spec.suspend is true;
//   - Ready when Ready=True at the observed generation, else Waiting;
//   - HardFailure when Stalled=True, unless a later reconcile has written a
//     Ready condition with another reason (kustomize-controller sets both
//     together, with the same reason, and never removes Stalled itself);
//   - Waiting while Ready is absent or Unknown (Progressing);
//   - for Ready=False, by reason: see classifyFailure.
func Classify(obj flux.Object) Status {
	if obj.Suspended {
		msg := "spec.suspend is true"
		if obj.ID.Kind == flux.KindResourceSet {
			msg = flux.OperatorReconcileAnnotation + " is disabled"
		}
		return Status{State: Suspended, Reason: meta.SuspendedReason, Message: msg}
	}
	if obj.ID.Kind == flux.KindHelmRelease {
		return classifyHelmRelease(obj)
	}
	if st, ok := classifyReadyTrue(obj); ok {
		return st
	}
	r := obj.Ready
	if s := obj.Stalled; s != nil && s.Status == string(metav1.ConditionTrue) && (r == nil || r.Reason == s.Reason) {
		return Status{State: HardFailure, Reason: s.Reason, Message: s.Message}
	}
	if r == nil {
		return Status{State: Waiting, Message: "no Ready condition yet"}
	}
	if r.Status != string(metav1.ConditionFalse) {
		return Status{State: Waiting, Reason: r.Reason, Message: r.Message}
	}
	return classifyFailure(r)
}

// classifyFailure sorts a Ready=False condition by its reason:
//   - Waiting: DependencyNotReady, Progressing, ProgressingWithRetry,
//     HealthCheckCanceled (a new reconcile preempted the health checks), and
//     ArtifactFailed while the source has no artifact yet;
//   - SuspectedDeadlock: a dry-run that failed on a kind the API server does
//     not serve, under any reason that may carry an apply error;
//   - HardFailure: BuildFailed, InvalidCELExpression, FeatureGateDisabled,
//     AccessDenied, and ArtifactFailed for a missing spec.path
//     (kustomization path not found) or an unsupported source kind;
//   - TransientFailure: everything else, notably ReconciliationFailed,
//     HealthCheckFailed, PruneFailed, DirectoryCreationFailed, and
//     ArtifactFailed while downloading the artifact.
func classifyFailure(r *flux.Condition) Status {
	st := Status{Reason: r.Reason, Message: r.Message}
	switch r.Reason {
	case meta.DependencyNotReadyReason, meta.ProgressingReason, meta.ProgressingWithRetryReason, meta.HealthCheckCanceledReason:
		st.State = Waiting
		return st
	case meta.BuildFailedReason, meta.InvalidCELExpressionReason, meta.FeatureGateDisabledReason, accessDeniedReason:
		st.State = HardFailure
		return st
	case meta.ArtifactFailedReason:
		st.State = classifyArtifactFailure(r.Message)
		return st
	}
	if missing := crds.ParseDryRunFailures(r.Message); len(missing) > 0 {
		st.State, st.Missing = SuspectedDeadlock, missing
		return st
	}
	st.State = TransientFailure
	return st
}

// accessDeniedReason is fluxcd/pkg/apis/acl.AccessDeniedReason, written for a
// cross-namespace sourceRef that the controller forbids (with Stalled=True).
const accessDeniedReason = "AccessDenied"

// classifyArtifactFailure tells a source that is not ready yet (cold start:
// the source does not exist yet, or has no artifact yet) from a spec.path
// that does not exist in the artifact or a source kind the controller does
// not support, which no retry fixes. Download failures are transient.
func classifyArtifactFailure(message string) State {
	switch {
	case strings.HasPrefix(message, "kustomization path not found"),
		strings.HasPrefix(message, "source `") && strings.HasSuffix(message, "not supported"):
		return HardFailure
	case strings.HasPrefix(message, "Source artifact not found"),
		strings.HasPrefix(message, "Source is not ready"),
		sourceNotFoundRE.MatchString(message):
		return Waiting
	}
	return TransientFailure
}

// sourceNotFoundRE is the API's NotFound for the sourceRef, which
// kustomize-controller writes unwrapped: gitrepositories.source.toolkit.fluxcd.io "podinfo" not found.
var sourceNotFoundRE = regexp.MustCompile(`^[a-z]+\.` + regexp.QuoteMeta(sourcev1.GroupVersion.Group) + ` "[^"]*" not found$`)

// classifyHelmRelease sorts a HelmRelease the way helm-controller v1.5 sets
// its conditions:
//   - Ready when Ready=True at the observed generation, else Waiting;
//   - HardFailure when Stalled=True and Ready is not Unknown: helm-controller
//     stalls a release whose retries are exhausted (RetriesExceeded), whose
//     rollback target is missing, or whose CEL or cross-namespace reference
//     is refused, and only a spec change, a reset request or a success
//     clears it (an attempt in progress sets Ready=Unknown meanwhile);
//   - Waiting while Ready is absent or Unknown (an action running), and for
//     Ready=False at DependencyNotReady, SourceNotReady (no chart artifact
//     yet), HealthCheckCanceled, or ArtifactFailed for an artifact not
//     stored yet;
//   - HardFailure for InvalidCELExpression and AccessDenied, and for Helm
//     refusing to install over an object that lacks its ownership metadata
//     (crds.ParseHelmOwnershipFailure), which every retry meets again;
//   - TransientFailure for any other Ready=False (InstallFailed,
//     UpgradeFailed, ArtifactFailed downloading, ValuesError, ...), which
//     helm-controller retries as the release's remediation says.
func classifyHelmRelease(obj flux.Object) Status {
	if st, ok := classifyReadyTrue(obj); ok {
		return st
	}
	r := obj.Ready
	if s := obj.Stalled; s != nil && s.Status == string(metav1.ConditionTrue) && (r == nil || r.Status == string(metav1.ConditionFalse)) {
		msg := s.Message
		if r != nil && r.Message != "" && r.Message != s.Message {
			msg += ": " + r.Message
		}
		return Status{State: HardFailure, Reason: s.Reason, Message: msg}
	}
	if r == nil {
		return Status{State: Waiting, Message: "no Ready condition yet"}
	}
	st := Status{Reason: r.Reason, Message: r.Message}
	switch {
	case r.Status != string(metav1.ConditionFalse):
		st.State = Waiting
	case r.Reason == meta.DependencyNotReadyReason, r.Reason == helmSourceNotReadyReason,
		r.Reason == meta.HealthCheckCanceledReason, r.Reason == meta.ProgressingReason:
		st.State = Waiting
	case r.Reason == meta.ArtifactFailedReason && strings.HasPrefix(r.Message, "Source not ready"):
		st.State = Waiting
	case r.Reason == meta.InvalidCELExpressionReason, r.Reason == accessDeniedReason:
		st.State = HardFailure
	case isHelmOwnershipFailure(r.Message):
		st.State = HardFailure
	default:
		st.State = TransientFailure
	}
	return st
}

// helmSourceNotReadyReason is the Ready reason helm-controller writes while
// the chart source has no artifact (a string in its code, not a constant).
const helmSourceNotReadyReason = "SourceNotReady"

func isHelmOwnershipFailure(message string) bool {
	_, ok := crds.ParseHelmOwnershipFailure(message)
	return ok
}
