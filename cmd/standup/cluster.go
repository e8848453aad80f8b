package main

import (
	"context"

	"k8s.io/client-go/dynamic"
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
	requestTimeout := g.RequestTimeout
	if requestTimeout == 0 {
		requestTimeout = -1 // --request-timeout 0: none, as kubectl means it
	}
	cfg, err := kube.RESTConfig(kube.Options{
		Flags: g.Cluster, Counter: counter, Warnings: g.Verbose,
		Lifetime: ctx, RequestTimeout: requestTimeout,
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
