package main

import (
	"context"
	"time"

	"github.com/urfave/cli/v2"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/kube"
)

// cluster is a connection to the API server, with a request counter.
type cluster struct {
	Client  client.WithWatch
	Dynamic dynamic.Interface
	Counter *kube.RequestCounter
	Host    string
}

// connect builds the clients the global flags select. Nothing is sent to
// the API server yet. Every request they make ends with ctx (Ctrl-C,
// --timeout), discovery's included, and each but a watch has its own
// --request-timeout.
func connect(ctx context.Context, g globalOptions) (*cluster, error) {
	counter := &kube.RequestCounter{}
	cfg, err := kube.RESTConfig(kube.Options{
		Flags: g.Cluster, Counter: counter, Warnings: g.Verbose,
		Lifetime: ctx, RequestTimeout: hubRequestTimeout(g), // --request-timeout 0: none, as kubectl means it
	})
	if err != nil {
		return nil, err
	}
	c, err := flux.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &cluster{Client: c, Dynamic: dyn, Counter: counter, Host: cfg.Host}, nil
}

// clusterFlagDefs are kubectl's global flags that select the cluster and
// log in to it, as kubectl names them, with --request-timeout and -v, all
// under heading in help.
func clusterFlagDefs(heading string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "kubeconfig", Category: heading, Usage: "path to the kubeconfig `FILE` (default: the files KUBECONFIG lists, merged, else ~/.kube/config)"},
		&cli.StringSliceFlag{Name: "context", Category: heading, Usage: "the kubeconfig `CONTEXT` to use (resume, crds and check take it more than once: one cluster each, side by side)"},
		&cli.StringFlag{Name: "cluster", Category: heading, Usage: "the kubeconfig `CLUSTER` to use"},
		&cli.StringFlag{Name: "user", Category: heading, Usage: "the kubeconfig `USER` to use"},
		&cli.StringFlag{Name: "as", Category: heading, Usage: "`USER` to impersonate"},
		&cli.StringSliceFlag{Name: "as-group", Category: heading, Usage: "`GROUP` to impersonate (repeat for several)"},
		&cli.StringFlag{Name: "server", Aliases: []string{"s"}, Category: heading, Usage: "`URL` of the Kubernetes API server"},
		&cli.StringFlag{Name: "token", Category: heading, Usage: "bearer `TOKEN` to authenticate with"},
		&cli.StringFlag{Name: "certificate-authority", Category: heading, Usage: "path to a CA `FILE` to verify the API server with"},
		&cli.BoolFlag{Name: "insecure-skip-tls-verify", Category: heading, Usage: "do not verify the API server's certificate (insecure)"},
		&cli.StringFlag{Name: "request-timeout", Category: heading, Value: kube.DefaultRequestTimeout.String(),
			Usage: "give up on one API request (not a watch) after `DURATION`: 30s, 2m, a number of seconds, or 0 for none"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Category: heading, Usage: "log the API client's details and warnings on stderr, count its requests, and list every render warning (grouped by kind without -v)"},
	}
}

// clusterFlags reads kubectl's cluster flags. KUBECONFIG is client-go's to
// read: it is a list of files, merged.
func clusterFlags(c *cli.Context) kube.ClusterFlags {
	return kube.ClusterFlags{
		Kubeconfig:            setAt(c, "kubeconfig").String("kubeconfig"),
		Context:               firstOf(setAt(c, "context").StringSlice("context")),
		Cluster:               setAt(c, "cluster").String("cluster"),
		User:                  setAt(c, "user").String("user"),
		As:                    setAt(c, "as").String("as"),
		AsGroups:              setAt(c, "as-group").StringSlice("as-group"),
		Server:                setAt(c, "server").String("server"),
		Token:                 setAt(c, "token").String("token"),
		CertificateAuthority:  setAt(c, "certificate-authority").String("certificate-authority"),
		InsecureSkipTLSVerify: setAt(c, "insecure-skip-tls-verify").Bool("insecure-skip-tls-verify"),
	}
}

// requestTimeout reads --request-timeout as kubectl does (clientcmd's
// parser: "30s", "2m", or a bare number of seconds; 0 for none). Not given,
// it is kube.DefaultRequestTimeout: unlike kubectl's, a walk must not hang
// on a wedged API server.
func requestTimeout(c *cli.Context) (time.Duration, error) {
	at := setAt(c, "request-timeout")
	if !at.IsSet("request-timeout") {
		return kube.DefaultRequestTimeout, nil
	}
	given := at.String("request-timeout")
	d, err := clientcmd.ParseTimeout(given)
	if err != nil || d < 0 {
		return 0, usageErrorf("--request-timeout %s: want a duration such as 30s or 2m, a number of seconds, or 0 for none", given)
	}
	return d, nil
}

func firstOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
