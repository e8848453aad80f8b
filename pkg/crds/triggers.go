package crds

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Trigger is a kind whose objects make an operator create the CRDs of
// other kinds at runtime: cdi-operator creates StorageProfile's CRD only
// once it has reconciled a CDI object.
type Trigger struct {
	// Kind is the trigger kind.
	Kind schema.GroupKind
	// From says who declared it, for messages: the standup.yaml read, or
	// the built-in catalog's entry.
	From string
	// Timeout is how long its operator may take to create the CRDs while
	// it shows progress, as its declaration says; zero leaves it to the
	// walk (--operator-timeout, else its default).
	Timeout time.Duration
	// Operator is the operator's Deployment, namespace/name, whose rollout
	// counts as the operator's progress; "" when no declaration names it.
	Operator string
}

// Triggers tells, for a kind whose CRD is missing, the trigger of every
// operator known to create that CRD at runtime. It returns none when the
// kind's origin is unknown, or known to be something else (a chart, a
// Kustomization, the bootstrap): then an operator-free proof is impossible.
type Triggers func(schema.GroupKind) []Trigger
