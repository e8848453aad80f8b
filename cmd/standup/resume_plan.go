package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/kube"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// listWalked lists the objects of kinds in every namespace (-n narrows what
// is walked, and its nodes' ancestors elsewhere are still waited on), and
// returns the kinds the walk can watch. HelmReleases asked for by default
// are dropped, with a warning, when the credentials may not list them; a
// cluster without helm-controller has none, and its walk watches for their
// API to appear (a cold start installs it).
func listWalked(ctx context.Context, cl *cluster, kinds []string, explicit bool, streams Streams) ([]flux.Object, []string, error) {
	var objs []flux.Object
	if slices.Contains(kinds, flux.KindKustomization) {
		ks, err := flux.ListKustomizations(ctx, cl.Client, "")
		if err != nil {
			return nil, nil, err
		}
		objs = ks
	}
	objs, kinds, err := listResourceSets(ctx, cl, objs, kinds, streams)
	if err != nil || !slices.Contains(kinds, flux.KindHelmRelease) {
		return objs, kinds, err
	}
	hrs, err := flux.ListHelmReleases(ctx, cl.Client, "")
	switch {
	case errors.Is(err, flux.ErrHelmNotInstalled):
	case err != nil && !explicit && apierrors.IsForbidden(err):
		fmt.Fprintf(streams.Err, "warning: %v; walking Kustomizations only (pass --kinds ks to say so)\n", err)
		return objs, slices.DeleteFunc(slices.Clone(kinds), func(k string) bool { return k == flux.KindHelmRelease }), nil
	case err != nil:
		return nil, nil, err
	}
	return append(objs, hrs...), kinds, nil
}

// listResourceSets adds the ResourceSets to objs when kinds asks for them
// (--kinds rset). A cluster without the Flux Operator's API has none yet:
// the walk watches for it to appear, as for HelmReleases, and stderr says so.
func listResourceSets(ctx context.Context, cl *cluster, objs []flux.Object, kinds []string, streams Streams) ([]flux.Object, []string, error) {
	if !slices.Contains(kinds, flux.KindResourceSet) {
		return objs, kinds, nil
	}
	sets, err := flux.ListResourceSets(ctx, cl.Client, "")
	switch {
	case errors.Is(err, flux.ErrOperatorNotInstalled):
		fmt.Fprintf(streams.Err, "warning: %v: no ResourceSets yet\n", err)
	case err != nil:
		return nil, nil, err
	}
	return append(objs, sets...), kinds, nil
}

// checkSelection refuses --only, --from and --exclude names (and resume's
// positional names) that match no node, before anything is done; the
// refusal names kinds (what the user asked for: resume hr NAME's
// HelmRelease, else the kinds walked) and points at prog's tiers command.
func checkSelection(objs []flux.Object, sel tiers.Selection, kinds []string, prog string) error {
	err := sel.Check(flux.Nodes(objs))
	var unmatched *tiers.UnmatchedError
	if errors.As(err, &unmatched) {
		unmatched.Kinds = kinds
		return usageErrorf("%v (see %s tiers)", unmatched, prog)
	}
	return err
}

// printPlan is `resume --dry-run`: what the walk would do now, given each
// source's current revision, the CRDs the cluster serves (a node stuck on
// a kind none serves is a deadlock the walk would repair from bundle) and
// what a proof would find of the trigger kinds. It only reads.
func printPlan(ctx context.Context, g globalOptions, cl *cluster, spokes []wait.Spoke, objs []flux.Object, bundle *crds.Bundle, opts wait.Options, streams Streams) error {
	sources, err := flux.SourceRevisions(ctx, cl.Client, objs)
	if err != nil {
		return err
	}
	present, err := crds.ListCRDs(ctx, cl.Client)
	if err != nil {
		return err
	}
	opts.Bundle = bundle
	in := wait.PlanInput{Objects: objs, Sources: sources, CRDs: present, Facts: wait.PlanFacts(ctx, cl.Client, cl.Dynamic)}
	for _, s := range spokes {
		list, err := crds.ListCRDs(ctx, s.Client)
		if err != nil {
			return fmt.Errorf("spoke of Secret %s: %w", s.Secret, err)
		}
		if in.Spokes == nil {
			in.Spokes, opts.Spokes = map[string]wait.PlanSpoke{}, map[string]wait.SpokeView{}
		}
		in.Spokes[s.Secret] = wait.PlanSpoke{CRDs: list, Facts: wait.PlanFacts(ctx, s.Client, s.Dynamic)}
		opts.Spokes[s.Secret] = s.SpokeView
	}
	return writePlan(streams.Out, g.Output, planSource(g, cl), in, opts)
}

// writePlan plans the walk from what was read and prints it; its error is
// the command's (a cycle: exit 4).
func writePlan(out io.Writer, format, source string, in wait.PlanInput, opts wait.Options) error {
	steps, err := wait.Plan(in, opts)
	if err != nil {
		return err
	}
	return printer.PrintPlan(out, format, printer.Plan{Source: source, Steps: steps})
}

// planSource names the cluster a plan was made for: its API server and,
// when there is one, the kubeconfig context.
func planSource(g globalOptions, cl *cluster) string {
	source := "cluster " + cl.Host
	if name := kube.ContextName(g.Cluster); name != "" {
		source += " (context " + name + ")"
	}
	return source
}
