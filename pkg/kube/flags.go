package kube

import (
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// ClusterFlags are kubectl's flags that select a cluster and log in to it.
// They mean what they mean to kubectl: a zero field is not given and leaves
// the kubeconfig's value alone.
type ClusterFlags struct {
	// Kubeconfig is an explicit kubeconfig path (--kubeconfig); empty means
	// the KUBECONFIG list, then ~/.kube/config.
	Kubeconfig string
	// Context overrides the kubeconfig's current context (--context).
	Context string
	// Cluster and User override the context's cluster and user (--cluster,
	// --user), by their names in the kubeconfig.
	Cluster, User string
	// As and AsGroups impersonate a user and its groups (--as, --as-group).
	As       string
	AsGroups []string
	// Server is the API server's address (--server, -s).
	Server string
	// Token is a bearer token (--token).
	Token string
	// CertificateAuthority is a CA file to verify the API server with
	// (--certificate-authority).
	CertificateAuthority string
	// InsecureSkipTLSVerify does not verify the API server's certificate
	// (--insecure-skip-tls-verify).
	InsecureSkipTLSVerify bool
}

// configFlags maps the flags onto cli-runtime's ConfigFlags, kubectl's own
// mapping onto client-go's loading rules and overrides. A flag not given
// stays nil there. --request-timeout is left out: ConfigFlags would make it
// http.Client.Timeout, which cuts watches too (see bindRequests).
func (f ClusterFlags) configFlags() *genericclioptions.ConfigFlags {
	cf := &genericclioptions.ConfigFlags{}
	for _, s := range []struct {
		value string
		into  **string
	}{
		{f.Kubeconfig, &cf.KubeConfig},
		{f.Context, &cf.Context},
		{f.Cluster, &cf.ClusterName},
		{f.User, &cf.AuthInfoName},
		{f.As, &cf.Impersonate},
		{f.Server, &cf.APIServer},
		{f.Token, &cf.BearerToken},
		{f.CertificateAuthority, &cf.CAFile},
	} {
		if s.value != "" {
			*s.into = &s.value
		}
	}
	if len(f.AsGroups) > 0 {
		groups := append([]string(nil), f.AsGroups...)
		cf.ImpersonateGroup = &groups
	}
	if f.InsecureSkipTLSVerify {
		insecure := true
		cf.Insecure = &insecure
	}
	return cf
}
