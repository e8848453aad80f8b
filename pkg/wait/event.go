package wait

import (
	"encoding/json"
	"time"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/tiers"
)

// Phase is where one Kustomization stands in the walk.
type Phase string

const (
	// PhasePending waits for the node's dependencies.
	PhasePending Phase = "pending"
	// PhaseReconciling waits for a reconcile standup requested to be handled and Ready.
	PhaseReconciling Phase = "reconciling"
	// PhaseCRDs waits for the CRDs in the node's inventory to be established.
	PhaseCRDs Phase = "crds"
	// PhaseRemediating waits for standup's pre-apply of missing CRDs.
	PhaseRemediating Phase = "remediating"
	// PhaseReady is done: ready for its dependents.
	PhaseReady Phase = "ready"
	// PhaseFailed is done: it failed, timed out, or is deadlocked.
	PhaseFailed Phase = "failed"
	// PhaseBlocked is done: a dependency failed, so it was not waited on.
	PhaseBlocked Phase = "blocked"
)

// Terminal reports whether the phase ends the node's walk.
func (p Phase) Terminal() bool {
	return p == PhaseReady || p == PhaseFailed || p == PhaseBlocked
}

// EventType tells what an Event reports.
type EventType string

const (
	// EventNode reports a node's phase or message change.
	EventNode EventType = "node"
	// EventAction reports a mutation standup made (or would make, with --dry-run).
	EventAction EventType = "action"
	// EventDiagnosis reports a proven or suspected cold-start deadlock.
	EventDiagnosis EventType = "diagnosis"
	// EventSummary closes the walk.
	EventSummary EventType = "summary"
)

// Event is the one record that flows from the walker to every printer (live
// view, plain lines, NDJSON), so they never disagree.
type Event struct {
	Time    time.Time `json:"time"`
	Type    EventType `json:"type"`
	Node    *tiers.ID `json:"node,omitempty"`
	Tier    int       `json:"tier"`
	Phase   Phase     `json:"phase,omitempty"`
	Action  string    `json:"action,omitempty"`
	Reason  string    `json:"reason,omitempty"`
	Message string    `json:"message,omitempty"`
	// Elapsed is the time since the node was kicked (or since the walk began).
	Elapsed   Duration        `json:"elapsed,omitempty"`
	Diagnosis *crds.Diagnosis `json:"diagnosis,omitempty"`
	// Proof says what made standup act on a deadlock, on the diagnosis
	// event that ends its wait for an operator.
	Proof *Proof `json:"proof,omitempty"`
	// Wait says how a wait for an operator ended: on the diagnosis event
	// with the Proof, and on the node event (reason CRDsAppeared) when the
	// missing CRDs appeared.
	Wait    *OperatorWait `json:"wait,omitempty"`
	Summary *Summary      `json:"summary,omitempty"`
	// Applied names the CRDs a pre-apply created, on its action event.
	Applied []string `json:"applied,omitempty"`
	// Spoke is the kubeConfig Secret (namespace/name) of the spoke an
	// action's mutation was made on; "" for the cluster standup connected
	// to, where every reconcile request is made.
	Spoke string `json:"spoke,omitempty"`
}

// Duration marshals as seconds with millisecond precision.
type Duration time.Duration

// MarshalJSON renders the duration in seconds.
func (d Duration) MarshalJSON() ([]byte, error) {
	return []byte(formatSeconds(time.Duration(d))), nil
}

// UnmarshalJSON reads seconds, as MarshalJSON writes them.
func (d *Duration) UnmarshalJSON(data []byte) error {
	var seconds float64
	if err := json.Unmarshal(data, &seconds); err != nil {
		return err
	}
	*d = Duration(time.Duration(seconds * float64(time.Second)))
	return nil
}

// Summary closes a walk: how many nodes ended in each phase, and why it failed.
type Summary struct {
	Ready     int `json:"ready"`
	Failed    int `json:"failed"`
	Blocked   int `json:"blocked"`
	Pending   int `json:"pending"`
	Total     int `json:"total"`
	Mutations int `json:"mutations"`
	// Deadlocked are nodes whose cold-start deadlock standup could not resolve.
	Deadlocked []tiers.ID `json:"deadlocked,omitempty"`
	// TimedOut are nodes that hit their deadline.
	TimedOut []tiers.ID `json:"timedOut,omitempty"`
	// FailedNodes are nodes that failed for any reason.
	FailedNodes []tiers.ID `json:"failedNodes,omitempty"`
	// LeftSuspended are nodes left suspended (Options.NoUnsuspend), so
	// blocked: never Ready in this walk.
	LeftSuspended []tiers.ID `json:"leftSuspended,omitempty"`
	Elapsed       Duration   `json:"elapsed"`
	Interrupted   bool       `json:"interrupted,omitempty"`
	// Error says why the walk stopped before every node ended: --timeout
	// ran out, or the error the command exits with (a cycle, an API
	// error, a refused write); "" when it did not stop so.
	Error string `json:"error,omitempty"`
	// Limit is what held the walk back, from the reconciles it asked for
	// and saw end Ready; nil when there were none.
	Limit *Limit `json:"limit,omitempty"`
	// Waits are the walk's waits for an operator, in the order they
	// ended, each with the evidence that ended it.
	Waits []OperatorWait `json:"waits,omitempty"`
}
