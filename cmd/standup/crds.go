package main

import (
	"context"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// crdsOptions are the flags of `standup crds`.
type crdsOptions struct {
	Bundle      string
	DryRun      bool
	All         bool
	NodeTimeout time.Duration
}

func crdsCommand(streams Streams) *cli.Command {
	o := &crdsOptions{}
	return &cli.Command{
		Name:  "crds",
		Usage: "find Kustomizations deadlocked on CRDs created at runtime, prove it, and create only the missing CRDs",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "crds", Destination: &o.Bundle, Usage: "CRD bundle directory (default: " + crds.DefaultBundleDir + ")"},
			&cli.BoolFlag{Name: "dry-run", Destination: &o.DryRun, Usage: "print the diagnosis and what would be created; change nothing"},
			&cli.BoolFlag{Name: "all", Destination: &o.All, Usage: "legacy fallback: create every bundle CRD absent from the cluster (never touches one that exists)"},
			&cli.DurationFlag{Name: "node-timeout", Destination: &o.NodeTimeout, Usage: "fail a repaired Kustomization not Ready this long after standup asks it to reconcile (0: its spec.timeout)"},
		},
		Subcommands: []*cli.Command{captureCommand(streams)},
		Action:      func(c *cli.Context) error { return runCRDs(c.Context, globals(c), *o, streams) },
	}
}

// runCRDs diagnoses every Kustomization against a fresh list of CRDs, prints
// each deadlock and what would repair it, and (unless --dry-run) repairs
// them: the walk pre-applies through crds.PreApply, as resume's does.
func runCRDs(ctx context.Context, g globalOptions, opts crdsOptions, streams Streams) error {
	bundle, err := crds.LoadBundleOrDefault(opts.Bundle)
	if err != nil {
		return err
	}
	if bundle == nil {
		return usageErrorf("no CRD bundle: pass --crds DIR (or create %s); capture one with standup crds capture", crds.DefaultBundleDir)
	}
	cl, err := connect(ctx, g)
	if err != nil {
		return err
	}
	objs, err := flux.ListKustomizations(ctx, cl.Client, g.Namespace)
	if err != nil {
		return err
	}
	if opts.All {
		return createAll(ctx, cl, bundle, opts.DryRun, streams)
	}
	present, err := crds.ListCRDs(ctx, cl.Client)
	if err != nil {
		return err
	}
	repairs, unresolved := crds.PlanRepairs(crds.Stuck(objs, present, bundle), bundle)
	printer.PrintRepairs(streams.Out, repairs)
	switch {
	case len(repairs) == 0:
		return nil
	case unresolved != nil:
		return unresolved
	case opts.DryRun:
		printer.PrintNothingChanged(streams.Out)
		return nil
	}
	return repairStuck(ctx, g, cl, repairs, bundle, opts.NodeTimeout, streams)
}

// repairStuck walks only the stuck Kustomizations (and their ancestors, left
// untouched when ready): a reconcile standup requests proves each deadlock,
// the walk pre-applies the missing CRDs, and follows each to Ready.
func repairStuck(ctx context.Context, g globalOptions, cl *cluster, repairs []crds.Repair, bundle *crds.Bundle, nodeTimeout time.Duration, streams Streams) error {
	var names []string
	for _, r := range repairs {
		names = append(names, r.Diagnosis.Kustomization.Namespace+"/"+r.Diagnosis.Kustomization.Name)
	}
	out := printer.NewWalkPrinter(streams.Out, streams.Err, printer.WalkOptions{Format: printer.FormatText, Quiet: g.Quiet, NoColor: g.NoColor})
	loop := &wait.Loop{
		Dynamic: cl.Dynamic, Client: cl.Client, Bundle: bundle,
		Options: wait.Options{NoUnsuspend: true, Timeout: nodeTimeout, Selection: tiers.Selection{Namespace: g.Namespace, Only: names}},
		OnEvent: out.Event,
	}
	summary, err := loop.Run(ctx)
	out.Close(summary)
	if g.Verbose {
		fmt.Fprintf(streams.Err, "API requests: %s\n", cl.Counter.Summary())
	}
	return walkError(summary, err)
}

// createAll is `crds --all`: every bundle CRD absent from the cluster is
// created through crds.CreateAbsent, the pre-apply path of resume and crds,
// so it refuses a name conflict before creating anything and leaves alone
// every CRD that exists, including one an operator creates meanwhile. A dry
// run plans the same way (crds.PlanAbsent) and creates nothing.
func createAll(ctx context.Context, cl *cluster, bundle *crds.Bundle, dryRun bool, streams Streams) error {
	if dryRun {
		plan, err := crds.PlanAbsent(ctx, cl.Client, bundle.All())
		if err != nil {
			return err
		}
		printer.PrintCreatePlan(streams.Out, plan)
		return nil
	}
	res, err := crds.CreateAbsent(ctx, cl.Client, bundle.All(), crds.ApplyOptions{Reason: "standup crds --all"})
	printer.PrintCreated(streams.Out, res, err == nil)
	return err
}
