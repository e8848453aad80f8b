// Package kube builds standup's connection to a cluster: the REST config from
// kubectl's cluster flags (ClusterFlags, mapped onto cli-runtime's
// ConfigFlags: --kubeconfig, the KUBECONFIG list, --context, --cluster,
// --user, --server, --token, --certificate-authority,
// --insecure-skip-tls-verify, --as, --as-group),
// a controller-runtime client over Kubernetes' own types (callers register
// more: pkg/flux adds Flux's), request timeouts, a request counter that
// records every API call by verb and resource, and errors explained in one
// line (Explain) or sorted as worth retrying (IsTransient).
//
// It knows nothing of Flux: Flux's names and the explanation of a cluster
// without Flux live in pkg/flux.
package kube
