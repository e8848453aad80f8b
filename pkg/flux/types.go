package flux

import (
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
)

// Condition is the subset of a metav1.Condition standup reasons about.
type Condition struct {
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// Object is what standup knows of one Flux object (a Kustomization, a
// HelmRelease, or a Flux Operator ResourceSet), whether read live from a cluster or rendered from a checkout.
// Live-only fields are zero when the object was read offline.
type Object struct {
	tiers.Node

	// SourceRef is the source the object builds from (GitRepository,
	// OCIRepository, ...; a HelmRelease's chart source: HelmRepository,
	// GitRepository, or its chartRef).
	SourceRef tiers.ID `json:"sourceRef,omitempty"`
	// Chart is, for a live HelmRelease, the source of the artifact it
	// installs, whose revision its LastAppliedRevision is compared with:
	// the HelmChart helm-controller made of spec.chart, or spec.chartRef.
	Chart tiers.ID `json:"-"`
	// Path is spec.path of a Kustomization.
	Path string `json:"path,omitempty"`
	// Wait is spec.wait of a Kustomization.
	Wait bool `json:"wait,omitempty"`
	// HasHealthChecks is true when spec.healthChecks is non-empty.
	HasHealthChecks bool `json:"hasHealthChecks,omitempty"`
	// Prune is spec.prune of a Kustomization.
	Prune bool `json:"prune,omitempty"`
	// TargetNamespace is spec.targetNamespace of a Kustomization.
	TargetNamespace string `json:"targetNamespace,omitempty"`
	// KubeConfig is spec.kubeConfig.secretRef: o applies to the remote
	// cluster that Secret's kubeconfig names (Target); nil for its own.
	KubeConfig *KubeConfigRef `json:"kubeConfig,omitempty"`
	// KubeConfigMap is spec.kubeConfig.configMapRef.name, the
	// workload-identity form (a cloud provider's cluster, no Secret): o
	// applies to a remote cluster standup cannot reach; KubeConfig is nil.
	KubeConfigMap string `json:"kubeConfigMap,omitempty"`
	// Requires are a ResourceSet's dependsOn entries on objects that are
	// no nodes (CRDs, any other kind): the Operator holds it until they
	// exist (and, with Ready, are ready).
	Requires []Requirement `json:"requires,omitempty"`
	// AppliedBy is the Kustomization (or ResourceSet) whose build produced this object, if known.
	AppliedBy *tiers.ID `json:"appliedBy,omitempty"`
	// File is the file the object was read from (offline only), relative to the repository root.
	File string `json:"file,omitempty"`

	Suspended bool       `json:"suspended"`
	Ready     *Condition `json:"ready,omitempty"`
	Stalled   *Condition `json:"stalled,omitempty"`
	// Reconciling is the Reconciling condition, which both controllers
	// keep True (reason Progressing) while a reconcile runs, its message
	// saying at what step ("Running health checks for revision … with a
	// timeout of 2m0s"); nil when the object has none.
	Reconciling *Condition `json:"reconciling,omitempty"`
	// LastAppliedRevision is a Kustomization's status.lastAppliedRevision,
	// and a HelmRelease's status.lastAttemptedRevision (the chart version).
	LastAppliedRevision string `json:"lastAppliedRevision,omitempty"`
	Generation          int64  `json:"generation,omitempty"`
	ObservedGeneration  int64  `json:"observedGeneration,omitempty"`
	// RequestedAt is the reconcile.fluxcd.io/requestedAt annotation.
	RequestedAt string `json:"requestedAt,omitempty"`
	// LastHandledReconcileAt is status.lastHandledReconcileAt.
	LastHandledReconcileAt string `json:"lastHandledReconcileAt,omitempty"`
	// Inventory holds the status.inventory entry ids (a HelmRelease's
	// include its chart's CRDs)
	// (namespace_name_group_kind, e.g. _storageprofiles.cdi.kubevirt.io_apiextensions.k8s.io_CustomResourceDefinition).
	Inventory []string `json:"-"`
	// Timeout is spec.timeout, else spec.interval for a Kustomization and
	// 5m for a HelmRelease, as Flux defaults them.
	Timeout time.Duration `json:"-"`
	// Raw is the object as an unstructured map, as kustomize-controller hands
	// it to a dependsOn readyExpr (self and dep); nil offline.
	Raw map[string]any `json:"-"`
}

// RevisionSource is the source whose current artifact revision o's
// LastAppliedRevision is compared with: a Kustomization's sourceRef, a
// HelmRelease's Chart.
func (o Object) RevisionSource() tiers.ID {
	if o.ID.Kind == KindHelmRelease {
		return o.Chart
	}
	return o.SourceRef
}

// ReadyAtGeneration reports whether o's Ready condition is True for its
// current spec: the controller has observed the generation it reports on,
// as Flux's own readiness checks require.
func (o Object) ReadyAtGeneration() bool {
	return o.Ready != nil && o.Ready.Status == "True" && o.Generation == o.ObservedGeneration
}
