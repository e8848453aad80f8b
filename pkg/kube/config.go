package kube

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Options select the cluster, as kubectl's and flux's global flags do.
type Options struct {
	// Kubeconfig is an explicit kubeconfig path (--kubeconfig); empty means
	// KUBECONFIG, then ~/.kube/config.
	Kubeconfig string
	// Context overrides the kubeconfig's current context.
	Context string
	// Lifetime ends every request, discovery's included, when it is done
	// (Ctrl-C, --timeout). Nil means requests are never cut for it.
	Lifetime context.Context
	// RequestTimeout bounds a single request other than a watch (its answer
	// and its body); zero means DefaultRequestTimeout, negative none.
	RequestTimeout time.Duration
	// Counter, when set, records every request.
	Counter *RequestCounter
	// Warnings keeps API server warnings; otherwise they are dropped.
	Warnings bool
}

// ErrNoKubeconfig is returned when no kubeconfig can be found.
var ErrNoKubeconfig = errors.New("no kubeconfig found: pass --kubeconfig or set KUBECONFIG")

// RESTConfig loads the REST config the options select. Errors name the
// kubeconfig file or context and say what to do.
func RESTConfig(opts Options) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if opts.Kubeconfig != "" {
		if _, err := os.Stat(opts.Kubeconfig); err != nil {
			return nil, fmt.Errorf("kubeconfig %s not found: pass an existing file with --kubeconfig or KUBECONFIG", opts.Kubeconfig)
		}
		rules.ExplicitPath = opts.Kubeconfig
	} else if !anyExists(rules.Precedence) {
		return nil, fmt.Errorf("%w (looked in %s)", ErrNoKubeconfig, strings.Join(rules.Precedence, ", "))
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: opts.Context}
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	cfg, err := loader.ClientConfig()
	if err != nil {
		files := loader.ConfigAccess().GetLoadingPrecedence()
		if opts.Context != "" && strings.Contains(err.Error(), "does not exist") {
			return nil, fmt.Errorf("context %q not found in kubeconfig %s: list contexts with kubectl config get-contexts", opts.Context, strings.Join(files, ":"))
		}
		if clientcmd.IsEmptyConfig(err) {
			return nil, fmt.Errorf("%w (%s has no current context or cluster)", ErrNoKubeconfig, strings.Join(files, ":"))
		}
		return nil, fmt.Errorf("kubeconfig %s: %w", strings.Join(files, ":"), err)
	}
	cfg.UserAgent = "standup"
	cfg.QPS, cfg.Burst = 50, 100
	cfg.Dial = dial
	timeout := opts.RequestTimeout
	switch {
	case timeout == 0:
		timeout = DefaultRequestTimeout
	case timeout < 0:
		timeout = 0
	}
	// Not cfg.Timeout: that is http.Client.Timeout, which would also cut
	// every watch after the limit.
	cfg.Wrap(bindRequests(opts.Lifetime, timeout))
	if !opts.Warnings {
		cfg.WarningHandler = rest.NoWarnings{}
	}
	if opts.Counter != nil {
		cfg.Wrap(opts.Counter.Wrap)
	}
	return cfg, nil
}

func anyExists(paths []string) bool {
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}
