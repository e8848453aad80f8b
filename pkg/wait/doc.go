// Package wait decides when a Flux Kustomization is ready and what to do
// about one that is not, and walks the graph on those decisions.
//
// readiness.go holds the rules, as pure functions of flux.Object values and
// strings, mirroring kustomize-controller v1.9: ReadyForDependents is its
// dependency check (Ready=True, observed generation, and the revision gate
// for a shared source), RequestHandled tells that a reconcile request was
// handled, CRDReady that a CRD is Established with its names accepted, and
// Classify sorts a Kustomization into Ready, Waiting, TransientFailure,
// HardFailure, SuspectedDeadlock or Suspended from its Ready and Stalled
// conditions, reading dry-run failures with pkg/crds.
package wait
