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

// Object is what standup knows of one Flux object (a Kustomization or a
// HelmRelease), whether read live from a cluster or rendered from a checkout.
// Live-only fields are zero when the object was read offline.
type Object struct {
	tiers.Node

	// SourceRef is the source the object builds from (GitRepository, OCIRepository, ...).
	SourceRef tiers.ID `json:"sourceRef,omitempty"`
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
	// AppliedBy is the Kustomization whose build produced this object, if known.
	AppliedBy *tiers.ID `json:"appliedBy,omitempty"`
	// File is the file the object was read from (offline only), relative to the repository root.
	File string `json:"file,omitempty"`

	Suspended           bool       `json:"suspended"`
	Ready               *Condition `json:"ready,omitempty"`
	Stalled             *Condition `json:"stalled,omitempty"`
	LastAppliedRevision string     `json:"lastAppliedRevision,omitempty"`
	Generation          int64      `json:"generation,omitempty"`
	ObservedGeneration  int64      `json:"observedGeneration,omitempty"`
	// RequestedAt is the reconcile.fluxcd.io/requestedAt annotation.
	RequestedAt string `json:"requestedAt,omitempty"`
	// LastHandledReconcileAt is status.lastHandledReconcileAt.
	LastHandledReconcileAt string `json:"lastHandledReconcileAt,omitempty"`
	// Inventory holds the status.inventory entry ids
	// (namespace_name_group_kind, e.g. _storageprofiles.cdi.kubevirt.io_apiextensions.k8s.io_CustomResourceDefinition).
	Inventory []string `json:"-"`
	// Timeout is spec.timeout, else spec.interval, as Flux defaults it.
	Timeout time.Duration `json:"-"`
	// Raw is the object as an unstructured map, as kustomize-controller hands
	// it to a dependsOn readyExpr (self and dep); nil offline.
	Raw map[string]any `json:"-"`
}
