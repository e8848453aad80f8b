// Package testenv is standup's real test world: a kube-apiserver and etcd
// (started through controller-runtime's envtest from binaries that
// scripts/testenv.sh builds from the Go module proxy), the real Flux
// kustomize-controller running as a subprocess, an artifact server that
// publishes directory trees as Flux sources, and small simulated operators
// that create CRDs at runtime the way CDI does.
//
// Nothing here is a mock of Kubernetes or Flux: the only simulated parts are
// the runtime-CRD operators.
package testenv
