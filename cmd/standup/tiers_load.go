package main

import (
	"context"
	"errors"
	"slices"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render"
)

// tiersInput is what `standup tiers` graphs.
type tiersInput struct {
	// source says where the objects were read: the --path, or the cluster.
	source   string
	objs     []flux.Object
	warnings []string
	// failed lists the Kustomizations --path left unrendered because they
	// read a file over a limit (nil when none did).
	failed error
}

// loadObjects reads the Flux objects of the given kinds from the cluster
// or, with a path, from files.
func loadObjects(ctx context.Context, g globalOptions, path, repoRoot string, kinds []string) (tiersInput, error) {
	if path != "" {
		res, err := render.Load(ctx, render.Options{Path: path, RepoRoot: repoRoot, Kinds: kinds})
		if err != nil {
			return tiersInput{}, err
		}
		objs := res.Objects
		if g.Namespace != "" {
			objs = inNamespace(objs, g.Namespace)
		}
		return tiersInput{source: path, objs: objs, warnings: res.Warnings, failed: unrendered(res.Failed)}, nil
	}
	cl, err := connect(ctx, g)
	if err != nil {
		return tiersInput{}, err
	}
	in := tiersInput{source: "cluster " + cl.Host}
	if slices.Contains(kinds, flux.KindKustomization) {
		if in.objs, err = flux.ListKustomizations(ctx, cl.Client, g.Namespace); err != nil {
			return tiersInput{}, err
		}
	}
	if slices.Contains(kinds, flux.KindHelmRelease) {
		releases, err := flux.ListHelmReleases(ctx, cl.Client, g.Namespace)
		switch {
		case errors.Is(err, flux.ErrHelmNotInstalled):
			in.warnings = append(in.warnings, err.Error()+": no HelmReleases listed")
		case err != nil:
			return tiersInput{}, err
		}
		in.objs = append(in.objs, releases...)
	}
	return in, nil
}

func inNamespace(objs []flux.Object, ns string) []flux.Object {
	var out []flux.Object
	for _, o := range objs {
		if o.ID.Namespace == ns {
			out = append(out, o)
		}
	}
	return out
}
