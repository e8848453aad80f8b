package rehearse

import (
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
)

// Model is the controllers' behaviour and the cost of a reconcile.
type Model struct {
	// Workers is kustomize-controller's --concurrent (default 4);
	// HelmWorkers helm-controller's (default 4).
	Workers, HelmWorkers int
	// PerBuild is a Kustomization reconcile's fixed cost (fetch, build,
	// dry-run), PerObject what each applied object adds.
	PerBuild, PerObject time.Duration
	// DependencyCheck is a reconcile that finds a dependency not Ready.
	DependencyCheck time.Duration
	// Health is what wait or healthChecks add (objects becoming Ready).
	Health time.Duration
	// HelmInstall is a HelmRelease's install, to Ready.
	HelmInstall time.Duration
	// OperatorDelay is how long an operator takes to create a runtime CRD
	// once its trigger is applied.
	OperatorDelay time.Duration
	// Proof is what standup's proof and pre-apply of a deadlock cost.
	Proof time.Duration
	// Reaction is standup's reaction to a node turning Ready: its watch
	// event, the reconcile request of each dependent, and the controller's
	// watch of that request, before the dependent's reconcile is queued.
	// Zero queues it at once.
	Reaction time.Duration
	// Horizon ends a simulation that has not converged: what is not Ready
	// by then never will be.
	Horizon time.Duration
}

// DefaultModel is the model's defaults (docs/rehearse.md says where each
// comes from).
func DefaultModel() Model {
	return Model{
		Workers: 4, HelmWorkers: 4,
		PerBuild: 150 * time.Millisecond, PerObject: 10 * time.Millisecond, DependencyCheck: 20 * time.Millisecond,
		Health: 5 * time.Second, HelmInstall: 2 * time.Second, OperatorDelay: 2 * time.Second,
		Proof: 500 * time.Millisecond, Horizon: 2 * time.Hour,
	}
}

// Kind of node: a Kustomization or a HelmRelease.
const (
	KindKustomization = "Kustomization"
	KindHelmRelease   = "HelmRelease"
)

// Need is a kind a node's dry-run needs, and when its CRD exists.
type Need struct {
	// Kind names the kind, for messages.
	Kind string
	// When says what makes the CRD exist: Applied (Provider has applied
	// it), Ready (Provider, a HelmRelease, is installed), Runtime
	// (Model.OperatorDelay after Provider has applied the trigger).
	When When
	// Provider is the node that provides it; Provider == the node itself
	// with When Runtime or Ready is the same-pass deadlock.
	Provider tiers.ID
}

// When a needed CRD comes to exist.
type When string

const (
	Applied When = "applied"
	Ready   When = "ready"
	Runtime When = "runtime"
)

// Node is one Kustomization or HelmRelease of the scenario.
type Node struct {
	ID        tiers.ID
	DependsOn []tiers.ID
	// AppliedBy is the Kustomization whose apply creates the node; nil for
	// a root, which exists from the start.
	AppliedBy *tiers.ID
	// Objects counts what it applies; Waits is spec.wait or healthChecks.
	Objects int
	Waits   bool
	// Retry is spec.retryInterval, else spec.interval (Flux's
	// GetRetryInterval); zero means 10m.
	Retry time.Duration
	// Needs are the kinds its dry-run needs that do not exist from the
	// start.
	Needs []Need
	// Duration, when set, is a measured reconcile time (status history,
	// a record): it replaces the cost model.
	Duration time.Duration
}

// Scenario is a repository's graph, as the simulation needs it.
type Scenario struct {
	Nodes []Node
	// Suspended: every node exists from the start with spec.suspend, as
	// the benchmarks seed their graphs and as a recovery that suspended
	// the cluster leaves it. Flux alone (and tuned) are resumed all at
	// once; standup resumes each node in the same patch as its reconcile
	// request, once its dependencies are Ready, so kustomize-controller
	// never runs a dependency check for it. Without it, a node is taken
	// up by the controller the moment it exists (a cold start from git),
	// under standup too.
	Suspended bool
}

// Contender is who brings the graph up.
type Contender struct {
	Name string
	// Requeue is kustomize-controller's and helm-controller's
	// --requeue-dependency (both default to 30s).
	Requeue time.Duration
	// Standup: standup resume drives the walk.
	Standup bool
}

// Contenders are the three of a rehearsal: Flux alone with requeue,
// Flux tuned, and standup.
func Contenders(requeue, tuned time.Duration) []Contender {
	return []Contender{
		{Name: "Flux alone", Requeue: requeue},
		{Name: "Flux tuned", Requeue: tuned},
		{Name: "standup", Requeue: requeue, Standup: true},
	}
}
