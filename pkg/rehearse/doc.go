// Package rehearse predicts a repository's cold start before it happens:
// a discrete-event simulation of Flux's controllers bringing the graph up,
// under three contenders (Flux alone, Flux with a tuned
// --requeue-dependency, and standup resume), from the same model
// (docs/rehearse.md, with the controller code each rule is read from):
//
//   - kustomize-controller: a pool of Model.Workers workers taking
//     Kustomizations first in, first out; a Kustomization exists once the
//     Kustomization that applies it has applied (a root at once); a
//     reconcile whose dependencies are not Ready requeues after
//     --requeue-dependency; one whose dry-run meets a kind whose CRD does
//     not exist yet fails and retries after spec.retryInterval (else
//     spec.interval); otherwise it applies (its CRDs first, so a kind whose
//     CRD it applies itself is no failure) and, with wait or healthChecks,
//     waits for its objects before Ready;
//   - helm-controller: a pool of its own, dependencies requeued after its
//     --requeue-dependency (a contender's, as kustomize-controller's), an
//     install that makes the chart's CRDs exist;
//   - operators: a runtime kind's CRD exists Model.OperatorDelay after the
//     Kustomization applying its trigger object has applied;
//   - standup: asks for a reconcile the moment a node exists and its
//     dependencies are Ready, and a dry-run failure on a kind nothing will
//     create is proven and repaired by pre-applying its CRD.
//
// Where a CRD comes from is the audit's origins model (Scenario is built
// from audit.Report.Kinds); how long a reconcile takes is Model's cost
// model (Model.Cost), or a measured duration per node when one is given
// (Measure): an incident record's (record.Report.Reconciles) or a
// cluster's status.history (FromHistory, from the objects a cluster
// lists). Everything here is pure: no cluster, no files.
package rehearse
