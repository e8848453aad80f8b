// Package kube builds standup's connection to a cluster: the REST config from
// a kubeconfig (kubectl's rules for --kubeconfig, KUBECONFIG and --context),
// a controller-runtime client over Kubernetes' own types (callers register
// more: pkg/flux adds Flux's), request timeouts, a request counter that
// records every API call by verb and resource, and errors explained in one
// line (Explain) or sorted as worth retrying (IsTransient).
//
// It knows nothing of Flux: Flux's names and the explanation of a cluster
// without Flux live in pkg/flux.
package kube
