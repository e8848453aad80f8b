// Package check is standup's preflight: is Flux installed and running, is
// anything suspended or deadlocked on a missing CRD, are the HelmReleases
// Ready, are the named Kustomizations Ready at their source's current
// revision.
//
// It is split in two so that every verdict can be tested without a cluster.
// Gather reads the cluster (CRDs, Flux's controller Deployments in
// flux-system, Kustomizations, HelmReleases when the cluster serves them,
// the source revisions of the Kustomizations
// named as --ready) and the CRD bundle into Facts. Evaluate, a pure function
// of those Facts, returns the Report: one Result per check, in an order and
// shape that are the -o json schema documented in docs/check.md.
//
// Only a failure to read CRDs or Kustomizations is an error of Gather; a
// refused list of the controllers or HelmReleases, an unreadable source or an invalid bundle
// is a fact, and Evaluate turns it into a failed check.
package check
