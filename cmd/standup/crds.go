package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/kubeevents"
	"github.com/kubestandup/standup/pkg/record"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// crdsOptions are the flags of `standup crds`.
type crdsOptions struct {
	Bundle      string
	Config      string
	DryRun      bool
	All         bool
	NodeTimeout time.Duration
	Operator    operatorWait
	Record      string
	Events      bool
	Fleet       fleetOptions
}

func crdsCommand(streams Streams, prog string) *cli.Command {
	o := &crdsOptions{}
	return withExamples(&cli.Command{
		Name:  "crds",
		Usage: "find Kustomizations deadlocked on a missing CRD (an operator's, created at runtime, or a chart's whose HelmRelease is in the same pass), prove it, and create only the missing CRDs",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "crds", TakesFile: true, Destination: &o.Bundle, Usage: "CRD bundle directory (default: " + crds.DefaultBundleDir + ")"},
			&cli.BoolFlag{Name: "dry-run", Destination: &o.DryRun, Usage: "print the diagnosis and what would be created; change nothing (needs no bundle)"},
			&cli.BoolFlag{Name: "all", Destination: &o.All, Usage: "blanket fallback, without a diagnosis: create every bundle CRD absent from the cluster (never touches one that exists)"},
			configFlag(&o.Config),
			&cli.DurationFlag{Name: "node-timeout", Destination: &o.NodeTimeout, Usage: "fail a repaired Kustomization not Ready this long after standup asks it to reconcile (0: its spec.timeout)"},
			operatorTimeoutFlag(&o.Operator), operatorQuietFlag(&o.Operator), recordFlag(&o.Record), eventsFlag(&o.Events),
		}, fleetFlags(&o.Fleet)...),
		Subcommands: []*cli.Command{captureCommand(streams, prog)},
		Action: func(c *cli.Context) error {
			return withFleet(c.Context, globals(c), o.Fleet, streams, func(ctx context.Context, g globalOptions, s Streams) error {
				opts := *o
				opts.Record = recordFor(opts.Record, g.FleetName)
				return runCRDs(ctx, g, opts, s)
			})
		},
	}, prog,
		"# which Kustomizations are deadlocked on a missing CRD, and what would repair them",
		"standup crds --dry-run",
		"# repair them from the bundle in bootstrap/crds",
		"standup crds",
		"# the diagnosis for a program",
		"standup crds --dry-run -o json | jq '.repairs[].diagnosis.kustomization.name'",
	)
}

// runCRDs diagnoses every Kustomization against a fresh list of CRDs, prints
// each deadlock and what would repair it, and (unless --dry-run) repairs
// them: the walk pre-applies through crds.PreApply, as resume's does. A dry
// run without a bundle diagnoses all the same: a stuck Kustomization is
// then a deadlock no bundle resolves (exit 3).
func runCRDs(ctx context.Context, g globalOptions, opts crdsOptions, streams Streams) error {
	if err := opts.Operator.check(); err != nil {
		return err
	}
	if opts.Record != "" && (opts.DryRun || opts.All) {
		return usageErrorf("--record %s: only the repair walk is recorded, and a dry run or --all walks nothing, so it records nothing; drop --record", opts.Record)
	}
	bundle, err := crds.LoadBundleOrDefault(opts.Bundle)
	if err != nil {
		return err
	}
	// A dry run diagnoses without a bundle, as check does; repairing, and
	// --all, take one.
	if bundle == nil && (!opts.DryRun || opts.All) {
		return usageErrorf("no CRD bundle: pass --crds DIR (or create %s); capture one with %s crds capture", crds.DefaultBundleDir, g.Prog)
	}
	triggers, err := loadTriggers(ctx, opts.Config)
	if err != nil {
		return err
	}
	cl, err := connect(ctx, g)
	if err != nil {
		return err
	}
	rec, err := openRecord(ctx, g, cl, opts.Record, opts.DryRun)
	if err != nil {
		return err
	}
	if rec != nil {
		defer rec.Close() // the repair walk closes it first, with its summary
	}
	objs, err := flux.ListKustomizations(ctx, cl.Client, g.Namespace)
	if err != nil {
		return err
	}
	if opts.All {
		return createAll(ctx, g, cl, bundle, opts, printer.NewCRDsPrinter(streams.Out, g.Output, printer.CRDsModeAll, opts.DryRun), streams)
	}
	present, err := crds.ListCRDs(ctx, cl.Client)
	if err != nil {
		return err
	}
	repairs, unresolved := crds.PlanRepairs(crds.Stuck(objs, present, bundle), bundle)
	out := printer.NewCRDsPrinter(streams.Out, g.Output, printer.CRDsModeRepair, opts.DryRun)
	out.Repairs(repairs)
	out.Bundle(crds.BundleDir(opts.Bundle))
	switch {
	case len(repairs) == 0:
		return out.Close()
	case unresolved != nil:
		return closeReport(out, unresolved)
	case opts.DryRun:
		out.NothingChanged()
		return out.Close()
	}
	kinds, helm := repairKinds(ctx, cl, g, streams)
	walk := wait.Options{NoUnsuspend: true, Timeout: opts.NodeTimeout, Triggers: triggers, Kinds: kinds, WithApplied: true}
	opts.Operator.set(&walk)
	summary, err := repairStuck(ctx, g, cl, repairs, bundle, walk, rec, openEvents(ctx, cl, opts.Events), streams)
	out.Walked(summary)
	if helm && err == nil {
		reportCharts(ctx, cl, repairs, out)
	}
	return closeReport(out, walkError(summary, err))
}

// repairKinds are the kinds the repair walk watches: the Kustomizations,
// and the HelmReleases they apply (wait.Options.WithApplied), as resume
// walks them. The chart form of the deadlock (a Kustomization that holds a
// HelmRelease and a resource of a kind its chart installs) is repaired
// when its HelmRelease is Ready over the pre-applied CRD, and Helm may
// refuse it (a release with install.disableTakeOwnership), which fails the
// release at once, saying what finishes the repair. helm says the walk
// may list HelmReleases: credentials that may not walk the Kustomizations
// alone, with a warning.
func repairKinds(ctx context.Context, cl *cluster, g globalOptions, streams Streams) (kinds []string, helm bool) {
	_, err := flux.ListHelmReleases(ctx, cl.Client, "")
	switch {
	case err == nil, errors.Is(err, flux.ErrHelmNotInstalled):
		return []string{flux.KindKustomization, flux.KindHelmRelease}, true
	case !g.Quiet:
		fmt.Fprintf(streams.Err, "warning: %v; following the repaired Kustomizations alone, not the HelmReleases they apply\n", err)
	}
	return []string{flux.KindKustomization}, false
}

// reportCharts reports, for each repaired Kustomization, the HelmReleases
// of the chart form (crds.ChartReleases): those it applied in the pass the
// pre-applied CRDs unblocked, whose chart installs them. A list that fails
// leaves the report without them: the walk has said how each ended.
func reportCharts(ctx context.Context, cl *cluster, repairs []crds.Repair, out printer.CRDsPrinter) {
	releases, err := flux.ListHelmReleases(ctx, cl.Client, "")
	if err != nil {
		return
	}
	for _, r := range repairs {
		created := make([]string, 0, len(r.Create))
		for _, e := range r.Create {
			created = append(created, e.CRD.Name)
		}
		if charts := crds.ChartReleases(r.Diagnosis.Kustomization, created, releases); len(charts) > 0 {
			out.Charts(r.Diagnosis.Kustomization, charts)
		}
	}
}

// closeReport ends the crds report, its json document written even when
// the command failed, and returns the command's error first.
func closeReport(out printer.CRDsPrinter, err error) error {
	if closeErr := out.Close(); err == nil {
		return closeErr
	}
	return err
}

// repairStuck walks only the stuck Kustomizations (and their ancestors, left
// untouched when ready) with opts: a reconcile standup requests proves each deadlock,
// the walk pre-applies the missing CRDs, and follows each to Ready. Its
// progress goes to stderr whatever -o says: stdout holds the report.
func repairStuck(ctx context.Context, g globalOptions, cl *cluster, repairs []crds.Repair, bundle *crds.Bundle, opts wait.Options, rec *record.Writer, events *clusterEvents, streams Streams) (wait.Summary, error) {
	var names []string
	var explained []tiers.ID
	for _, r := range repairs {
		names = append(names, r.Diagnosis.Kustomization.Namespace+"/"+r.Diagnosis.Kustomization.Name)
		if g.Output != printer.FormatJSON {
			explained = append(explained, r.Diagnosis.Kustomization) // the text report printed it
		}
	}
	out := printer.NewWalkPrinter(streams.Out, streams.Err, printer.WalkOptions{Format: printer.FormatText, Quiet: g.Quiet, NoColor: g.NoColor, Explained: explained})
	opts.Selection = tiers.Selection{Namespace: g.Namespace, Only: names}
	loop := &wait.Loop{Dynamic: cl.Dynamic, Client: cl.Client, Bundle: bundle, Options: opts}
	recorded(loop, out, rec)
	events.attach(loop)
	summary, err := loop.Run(ctx)
	summary = summaryStopped(summary, err)
	out.Close(summary)
	events.close(g, summary, streams)
	if g.Verbose {
		fmt.Fprintf(streams.Err, "API requests: %s\n", cl.Counter.Summary())
	}
	return summary, closeRecorded(rec, summary, err)
}

// createAll is `crds --all`: every bundle CRD absent from the cluster is
// created through crds.CreateAbsent, the pre-apply path of resume and crds,
// so it refuses a name conflict before creating anything and leaves alone
// every CRD that exists, including one an operator creates meanwhile. A dry
// run plans the same way (crds.PlanAbsent) and creates nothing. A plan
// that fails reports nothing; a create that fails part-way reports what it
// created. Each CRD created gets its PreApplied Event (--events), a dry
// run none.
func createAll(ctx context.Context, g globalOptions, cl *cluster, bundle *crds.Bundle, opts crdsOptions, out printer.CRDsPrinter, streams Streams) error {
	if opts.DryRun {
		plan, err := crds.PlanAbsent(ctx, cl.Client, bundle.All())
		if err != nil {
			return err
		}
		out.CreatePlan(plan)
		return out.Close()
	}
	res, err := crds.CreateAbsent(ctx, cl.Client, bundle.All(), crds.ApplyOptions{Reason: "standup crds --all"})
	if events := openEvents(ctx, cl, opts.Events); events != nil {
		events.poster.Post(kubeevents.BlanketCreated(res.Created, time.Now())...)
		events.close(g, wait.Summary{}, streams)
	}
	out.Created(res, err == nil)
	return closeReport(out, err)
}
