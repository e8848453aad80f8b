// Package catalog knows where the CRDs of the charts, operators and
// manifests people use most come from on a cold start: installed with a
// Helm release (its crds/ directory, its templates, a hook, or its operator
// when it starts), applied by a manifest, created by an operator at runtime
// once it has reconciled a trigger object, or served by the platform before
// Flux starts.
//
// The catalog is data (catalog.yaml, embedded), each entry citing the chart
// or operator source it was read from. Default returns it; Parse reads
// another. It has no kustomize dependency: the offline audit (package
// audit) and a live walk both use it. A repository's standup.yaml always
// overrides it.
package catalog
