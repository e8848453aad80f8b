// Package operator expands the Flux Operator's objects offline, the way
// the Operator (controlplaneio-fluxcd/flux-operator) would generate what
// they apply, so that the render can follow them like it follows a
// Kustomization's build.
//
// A ResourceSet (fluxcd.controlplane.io/v1) is expanded by Expand: its
// in-line inputs combined as spec.inputStrategy says (Flatten, the
// default, or Permute), each input set given the built-in fields the
// Operator adds (inputs.provider, and with Permute inputs.id and the
// inputs scoped under the normalized name of the object providing them),
// then spec.resources and spec.resourcesTemplate (or each of spec.steps)
// executed as Go text/template with the Operator's << >> delimiters, its
// functions (slim-sprig's hermetic set, slugify, toYaml, mustToYaml,
// inputs) and missingkey=error, objects disabled by their
// fluxcd.controlplane.io/reconcile annotation left out and duplicates
// dropped, the first one kept; then the owner labels and
// spec.commonMetadata set. Inputs from spec.inputsFrom
// (ResourceSetInputProviders) come from the cluster at run time: they are
// not known offline, and Expansion.Notes says what was expanded without
// them.
//
// A FluxInstance with spec.sync makes the source and the Kustomization
// that sync the cluster (Sync), as the Operator's sync template writes
// them.
//
// The Operator's code is not imported (its builder is an internal package
// of another module); this package is written from what that code does,
// and each rule names where it is read from. Nothing here touches a
// cluster or a file.
package operator
