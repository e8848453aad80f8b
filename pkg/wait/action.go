package wait

import (
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/tiers"
)

// ActionKind names a mutation.
type ActionKind string

const (
	// ActionReconcile patches a Kustomization: the reconcile.fluxcd.io/requestedAt
	// annotation, and spec.suspend=false when Unsuspend is set, in one patch.
	ActionReconcile ActionKind = "reconcile"
	// ActionPreApplyCRDs creates the bundle's CRDs for a proven deadlock's missing kinds.
	ActionPreApplyCRDs ActionKind = "pre-apply-crds"
)

// Action is a mutation decided by the walker. The loop around the walker
// performs it (or prints it under --dry-run) and reports the result back.
type Action struct {
	Kind      ActionKind      `json:"kind"`
	Node      tiers.ID        `json:"node"`
	Token     string          `json:"token,omitempty"`
	Unsuspend bool            `json:"unsuspend,omitempty"`
	Diagnosis *crds.Diagnosis `json:"diagnosis,omitempty"`
	// Cluster is the spoke a pre-apply is made on, by its kubeConfig
	// Secret (namespace/name, Options.Spokes); "" for the cluster standup
	// connected to.
	Cluster string `json:"spoke,omitempty"`
}

// ActionResult reports a performed action back to the walker.
type ActionResult struct {
	Action Action
	// Applied names the CRDs created by a pre-apply (empty when all existed).
	Applied []string
	// Existing names the CRDs a pre-apply found on the cluster and left alone.
	Existing []string
	// Err is the failure, if any. A pre-apply that cannot find a kind in the
	// bundle fails with a *crds.UnresolvedError-like error.
	Err error
}
