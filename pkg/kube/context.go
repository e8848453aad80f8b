package kube

// ContextName returns the kubeconfig context the flags select, as kubectl
// would use it: --context, else the kubeconfig's current context; "" when
// there is none (--server with --token and no kubeconfig) or the
// kubeconfig cannot be read. It is for people (a dry run's header):
// RESTConfig is what connects, and says what is wrong.
func ContextName(f ClusterFlags) string {
	if f.Context != "" {
		return f.Context
	}
	if f.findKubeconfig() != nil {
		return ""
	}
	raw, err := f.configFlags().ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return ""
	}
	return raw.CurrentContext
}
