package main

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

// slowFromCheckout renders the checkout of --path, when given, for the
// Kustomizations whose reconcile waits on a controller
// (render.SlowReconciles). It is a hint for the walk's order: a
// Kustomization that does not render gets none, and the live graph, not
// the checkout, is what the walk follows.
func slowFromCheckout(ctx context.Context, path, repoRoot string, quiet bool, streams Streams) (map[tiers.ID]string, error) {
	if path == "" {
		return nil, nil
	}
	res, err := render.Load(ctx, render.Options{Path: path, RepoRoot: repoRoot})
	if err != nil {
		return nil, fmt.Errorf("--path: %w", err)
	}
	slow := render.SlowReconciles(res)
	n := countKustomizations(res.Objects)
	// The render's garbage (every build's files and resource maps) would
	// otherwise stay mapped while the walk's informers grow beside it: hand
	// it back before the walk, so that the process peaks at the larger of
	// the two, not their sum.
	debug.FreeOSMemory()
	if !quiet {
		fmt.Fprintf(streams.Err, "checkout %s: %d of %d Kustomizations wait on a controller; their chains go first when kustomize-controller is busy\n",
			path, len(slow), n)
	}
	return slow, nil
}

// countKustomizations counts the Kustomizations among objs.
func countKustomizations(objs []flux.Object) int {
	n := 0
	for _, o := range objs {
		if o.ID.Kind == flux.KindKustomization {
			n++
		}
	}
	return n
}
