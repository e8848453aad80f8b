package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
// view afterwards, and keeps what its nodes depend on elsewhere. explicit
// says --kinds was given rather than defaulted (listLive).
func loadObjects(ctx context.Context, g globalOptions, path, repoRoot string, kinds []string, explicit bool) (tiersInput, error) {
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
	objs, warnings, err := listLive(ctx, cl.Client, kinds, explicit)
	if err != nil {
		return tiersInput{}, err
	}
	// The pictures draw a HelmRelease under the Kustomization that applied
	// it: its owner labels say which, or else that Kustomization's inventory.
	flux.LinkApplied(objs)
	return tiersInput{source: "cluster " + cl.Host, objs: objs, warnings: warnings}, nil
}

// listLive lists the kinds tiers graphs from the cluster. Kinds asked for
// with --kinds are listed as asked (flux.List): a cluster without the
// HelmRelease API is a warning, a refusal an error. By default tiers
// graphs what resume walks, HelmReleases wherever the cluster serves them:
// a cluster without helm-controller shows its Kustomizations and nothing
// more is said, and credentials that may not list HelmReleases show the
// Kustomizations with a warning, as resume walks them alone.
func listLive(ctx context.Context, c client.Reader, kinds []string, explicit bool) ([]flux.Object, []string, error) {
	if explicit || !slices.Contains(kinds, flux.KindHelmRelease) {
		return flux.List(ctx, c, "", kinds)
	}
	objs, warnings, err := flux.List(ctx, c, "", slices.DeleteFunc(slices.Clone(kinds), func(k string) bool { return k == flux.KindHelmRelease }))
	if err != nil {
		return nil, nil, err
	}
	hrs, err := flux.ListHelmReleases(ctx, c, "")
	switch {
	case errors.Is(err, flux.ErrHelmNotInstalled):
	case apierrors.IsForbidden(err):
		warnings = append(warnings, fmt.Sprintf("%v; graphing Kustomizations only (pass --kinds ks to say so)", err))
	case err != nil:
		return nil, nil, err
	}
	return append(objs, hrs...), warnings, nil
}
