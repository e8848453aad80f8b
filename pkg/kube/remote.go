package kube

import (
	"errors"
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// RESTConfigFromKubeconfig loads a kubeconfig held in memory (a Flux
// kubeConfig Secret's), its current context, and tunes it as RESTConfig
// does: the same request timeouts, lifetime, counter and warnings
// (opts.Flags are not read). Like kustomize-controller's
// (fluxcd/pkg/runtime/client.KubeConfigFromBytes), it takes only a
// self-contained kubeconfig: a file it names (certificate-authority,
// client-certificate, client-key, tokenFile) is refused, as is an exec or
// auth-provider plugin, which would run a command the cluster's Secret
// chose on this machine. what names the kubeconfig's origin in errors.
func RESTConfigFromKubeconfig(data []byte, what string, opts Options) (*rest.Config, error) {
	raw, err := clientcmd.Load(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a kubeconfig: %s", what, oneLine(err.Error()))
	}
	for name, c := range raw.Clusters {
		if c.CertificateAuthority != "" {
			return nil, fmt.Errorf("%s: cluster %q names a certificate-authority file; only certificate-authority-data is read", what, name)
		}
	}
	for name, u := range raw.AuthInfos {
		switch {
		case u.TokenFile != "", u.ClientCertificate != "", u.ClientKey != "":
			return nil, fmt.Errorf("%s: user %q names a file (tokenFile, client-certificate or client-key); only inline data is read", what, name)
		case u.Exec != nil || u.AuthProvider != nil:
			return nil, fmt.Errorf("%s: user %q runs an exec or auth-provider plugin; standup runs no command a Secret names", what, name)
		}
	}
	cfg, err := clientcmd.NewDefaultClientConfig(*raw, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			err = errors.New("no current context or cluster")
		}
		return nil, fmt.Errorf("%s: %s", what, oneLine(err.Error()))
	}
	return tune(cfg, opts), nil
}
