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

// Options select the cluster and bound its requests.
type Options struct {
	// Flags are kubectl's cluster flags.
	Flags ClusterFlags
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
var ErrNoKubeconfig = errors.New("no kubeconfig found: pass --kubeconfig, set KUBECONFIG, or name the API server with --server")

// RESTConfig loads the REST config the options select, by kubectl's rules
// (client-go's loading rules and overrides, through cli-runtime's
// ConfigFlags): --kubeconfig, else the KUBECONFIG list merged as kubectl
// merges it, else ~/.kube/config; then --context, --cluster, --user and the
// login flags over it. Errors name the kubeconfig files, context, cluster or
// user, and say what to do.
func RESTConfig(opts Options) (*rest.Config, error) {
	if err := opts.Flags.findKubeconfig(); err != nil {
		return nil, err
	}
	loader := opts.Flags.configFlags().ToRawKubeConfigLoader()
	cfg, err := loader.ClientConfig()
	if err != nil {
		return nil, explainLoad(opts.Flags, loader.ConfigAccess().GetLoadingPrecedence(), err)
	}
	return tune(cfg, opts), nil
}

// tune gives cfg standup's client settings: its user agent and rate, the
// dialer, each request bound by opts.Lifetime and opts.RequestTimeout, and
// the warnings and the counter opts ask for.
func tune(cfg *rest.Config, opts Options) *rest.Config {
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
	// Not cfg.Timeout (kubectl's use of --request-timeout): that is
	// http.Client.Timeout, which would also cut every watch after the limit.
	cfg.Wrap(bindRequests(opts.Lifetime, timeout))
	if !opts.Warnings {
		cfg.WarningHandler = rest.NoWarnings{}
	}
	if opts.Counter != nil {
		cfg.Wrap(opts.Counter.Wrap)
	}
	return cfg
}

// findKubeconfig refuses, before anything is loaded, an explicit
// kubeconfig that does not exist, and the absence of any kubeconfig when
// --server does not name the cluster either. client-go would skip a missing
// file of the KUBECONFIG list silently, and with none at all try
// localhost:8080.
func (f ClusterFlags) findKubeconfig() error {
	if f.Kubeconfig != "" {
		if _, err := os.Stat(f.Kubeconfig); err != nil {
			return fmt.Errorf("kubeconfig %s not found: pass an existing file with --kubeconfig or KUBECONFIG", f.Kubeconfig)
		}
		return nil
	}
	precedence := clientcmd.NewDefaultClientConfigLoadingRules().Precedence
	if f.Server == "" && !anyExists(precedence) {
		return fmt.Errorf("%w (looked in %s)", ErrNoKubeconfig, strings.Join(precedence, ", "))
	}
	return nil
}

// explainLoad turns client-go's loading errors into one line that names
// what is missing and where it was looked for.
func explainLoad(f ClusterFlags, files []string, err error) error {
	where := strings.Join(existing(files), ":")
	if where == "" {
		where = "(none: --server alone)"
	}
	msg := err.Error()
	switch {
	case f.Context != "" && strings.Contains(msg, fmt.Sprintf("context %q does not exist", f.Context)):
		return fmt.Errorf("context %q not found in kubeconfig %s: list contexts with kubectl config get-contexts", f.Context, where)
	case f.Cluster != "" && strings.Contains(msg, fmt.Sprintf("cluster %q", f.Cluster)):
		return fmt.Errorf("cluster %q not found in kubeconfig %s: list clusters with kubectl config get-clusters", f.Cluster, where)
	case f.User != "" && (strings.Contains(msg, fmt.Sprintf("auth info %q", f.User)) || strings.Contains(msg, fmt.Sprintf("user %q", f.User))):
		return fmt.Errorf("user %q not found in kubeconfig %s: list users with kubectl config get-users", f.User, where)
	case clientcmd.IsEmptyConfig(err):
		return fmt.Errorf("%w (%s has no current context or cluster)", ErrNoKubeconfig, where)
	}
	return fmt.Errorf("kubeconfig %s: %s", where, oneLine(msg))
}

// oneLine joins a multi-line client-go error into one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func anyExists(paths []string) bool { return len(existing(paths)) > 0 }

// existing returns the paths that exist: the files of a KUBECONFIG list
// client-go actually read.
func existing(paths []string) []string {
	var out []string
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}
