// Package testenv is standup's real test world: a kube-apiserver and etcd
// (started through controller-runtime's envtest from binaries that
// scripts/testenv.sh builds from the Go module proxy), the real Flux
// kustomize-controller running as a subprocess, an artifact server that
// publishes directory trees as Flux sources, and small simulated operators
// that create CRDs at runtime the way CDI does.
//
// A world of Options.Helm also runs the real helm-controller (built from
// the module proxy, or from the source tree HELM_CONTROLLER_SRC names when
// the proxy refuses the module) and serves the HelmRelease, HelmChart and
// HelmRepository APIs; the world plays source-controller for HelmCharts,
// packaging chart directories (PublishChart) and writing each HelmChart's
// artifact into its status.
//
// Nothing here is a mock of Kubernetes or Flux: the only simulated parts are
// the runtime-CRD operators and the source artifacts source-controller
// would store.
package testenv
