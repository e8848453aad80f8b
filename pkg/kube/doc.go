// Package kube builds standup's connection to a cluster: the REST config from
// a kubeconfig (kubectl's rules for --kubeconfig, KUBECONFIG and --context),
// a controller-runtime client with the Flux types registered, and a request
// counter that records every API call by verb and resource.
package kube
