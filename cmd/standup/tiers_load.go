package main

import (
	"context"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render"
)

// tiersInput is what `standup tiers` graphs.
type tiersInput struct {
	// source says where the objects were read: the --path, or the cluster.
	source   string
	objs     []flux.Object
	warnings []string
	// failed lists the Kustomizations --path left unrendered, each failed
	// alone (nil when none was).
	failed error
}

// loadObjects reads the Flux objects of the given kinds, in every
// namespace, from the cluster or, with a path, from files: -n narrows the
// view afterwards, and keeps what its nodes depend on elsewhere.
func loadObjects(ctx context.Context, g globalOptions, path, repoRoot string, kinds []string) (tiersInput, error) {
	if path != "" {
		res, err := render.Load(ctx, render.Options{Path: path, RepoRoot: repoRoot, Kinds: kinds})
		if err != nil {
			return tiersInput{}, err
		}
		return tiersInput{source: path, objs: res.Objects, warnings: res.Warnings, failed: unrendered(res.Failed)}, nil
	}
	cl, err := connect(ctx, g)
	if err != nil {
		return tiersInput{}, err
	}
	objs, warnings, err := flux.List(ctx, cl.Client, "", kinds)
	if err != nil {
		return tiersInput{}, err
	}
	return tiersInput{source: "cluster " + cl.Host, objs: objs, warnings: warnings}, nil
}
