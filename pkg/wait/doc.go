// Package wait decides when a Flux Kustomization or HelmRelease is ready
// and what to do about one that is not, and walks the graph on those
// decisions. It holds
// three rooms, each in its own files.
//
// The readiness rules (readiness.go, readyexpr.go) are pure functions of
// flux.Object values and strings, mirroring kustomize-controller v1.9 (and
// helm-controller v1.5 for HelmReleases: HelmReleaseReady, and Classify's
// and ReadyForDependents' HelmRelease rules):
// ReadyForDependents is its dependency check (Ready=True, observed
// generation, and the revision gate for a shared source), RequestHandled
// tells that a reconcile request was handled, and Classify sorts a
// Kustomization into Ready, Waiting, TransientFailure, HardFailure,
// SuspectedDeadlock or Suspended from its Ready and Stalled conditions,
// reading dry-run failures with pkg/crds. EvalReadyExpr evaluates a
// dependsOn readyExpr as Flux does.
//
// The Walker (walker*.go) is pure: it decides, from the latest objects, what
// to do next, and performs no I/O. Its methods are split by verb:
// walker.go holds the type, its options and constructor; walker_observe.go
// the Observe* and Forget* methods that feed it (each Kustomization is
// classified once per observation, so its Ready message is parsed once);
// walker_step.go Step and the scheduling around it (the graph, a
// tiers.Graph, is rebuilt only when a node appears, goes or changes its
// dependsOn, and gives the tiers and the dependents); walker_pending.go and
// walker_reconcile.go the phases from waiting on dependencies to Ready;
// walker_deadlock.go the suspicion, proof and remediation of a cold-start
// deadlock; walker_proof.go whether it is certain; walker_operator.go the
// wait for an operator that may still create the missing CRDs, which goes
// on while the operator shows progress (progress.go reads it, a pure
// function of an object); walker_events.go the phase changes and their events; and
// walker_finish.go the end of a walk and its Summary. Every mutation it
// decides is an Action value; Plan says what a walk would do without
// performing anything (--dry-run). AnalyzeLimit (limit.go), pure too,
// turns the walker's timing of each reconcile it asked for into the
// summary's Limit: whether the dependency chain or kustomize-controller's
// worker pool held the walk back, with the figures.
//
// The Loop (loop*.go) is the I/O around a Walker: informers on the dynamic
// client, in every namespace, feed it objects (loop_watch.go), and it performs the actions
// through a Cluster (cluster.go, loop_act.go), retrying what an API server
// restart makes fail. Every event flows to one callback, so every printer
// sees the same walk.
//
// Hub and spoke (spoke.go): a node with spec.kubeConfig applies to the
// spoke its Secret names. When the Loop reaches that spoke (Loop.Spokes),
// its missing kinds are looked up in the spoke's CRD watch, the proof reads
// the spoke's trigger objects, and the pre-apply is made on the spoke from
// the spoke's bundle, its event naming the cluster (Event.Spoke). A node
// whose spoke the walk does not reach is judged by the hub's view and its
// deadlock reported, never repaired on the hub.
package wait
