// Package crds diagnoses the cold-start deadlock of a Flux Kustomization whose
// build holds custom resources of a kind that an operator creates only at
// runtime, and holds the CRD bundle that standup pre-applies to break it.
//
// kustomize-controller dry-runs every object of a stage before it applies any,
// so one object of an unserved kind aborts the whole pass. ParseDryRunFailures
// reads a Kustomization's Ready message (several lines, with a change-set log)
// and returns every object that failed that way, with the missing group,
// version and kind, in every form fluxcd/pkg/ssa and controller-runtime have
// written it. Diagnose combines that with what the cluster holds (a CRDLookup
// answered from a fresh read of the API server) and with the Bundle, and
// SameFailure compares two diagnoses so that a caller can prove the deadlock:
// the same kinds missing again after a reconcile it requested itself.
//
// LoadBundle reads a directory of CRD manifests, strictly: anything that is
// not a well-formed apiextensions.k8s.io/v1 CustomResourceDefinition is an
// error naming the file and the document. LoadBundleOrDefault is what every
// command loads: the --crds directory, else DefaultBundleDir when it exists,
// else no bundle. StripForCapture and MarshalCRD turn a live CRD into a
// manifest fit for the bundle, RuntimeCRDs and SelectRuntime pick the CRDs
// that no Kustomization inventory lists, and WriteCaptured writes them.
//
// Stuck diagnoses a list of Kustomizations at once and PlanRepairs resolves
// each deadlock against the bundle (the crds command's report). CreateAbsent
// is the one path by which standup writes a CRD (PreApply, for a diagnosed
// deadlock, and crds --all both go through it): one fresh list of the
// cluster's CRDs; PlanCreate, which leaves alone every CRD that exists and
// refuses, before any write, a CRD whose names collide with an existing one
// of its group; then Create, a plain create per CRD, never an apply or an
// update, so that a CRD an operator creates in the meantime is refused as
// AlreadyExists and left alone. PlanAbsent is the same without the creates,
// for a dry run.
//
// ParseHelmOwnershipFailure (helmowner.go) reads helm-controller's Ready
// message for Helm refusing to install a release over an object that lacks
// its ownership metadata (a CRD pre-applied for a chart that ships it in
// templates/, when the release does not take ownership), and Remedy says
// how to hand the object to the release.
//
// Everything in the files parse.go, helmowner.go, diagnose.go, repair.go, bundle.go,
// bundledir.go, capture.go, plan.go and conflict.go is pure or reads local
// files only; it never talks to a cluster. capture_write.go writes local
// files; apply.go holds the cluster I/O.
package crds
