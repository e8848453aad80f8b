package main

import (
	"context"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// resumeOptions are the flags of `standup resume`.
type resumeOptions struct {
	DryRun, NoUnsuspend, NoRemediate, AdditiveCEL bool
	KindsSet                                      bool // --kinds given, not defaulted
	MaxInflight                                   int
	CRDs, Config, Path, RepoRoot                  string
	NodeTimeout                                   time.Duration
	Kinds, From, Only, Exclude                    cli.StringSlice
	SpokeCRDs                                     cli.StringSlice
	Operator                                      operatorWait
	Record                                        string
	Events                                        bool
	Fleet                                         fleetOptions
}

func resumeCommand(streams Streams, prog string) *cli.Command {
	o := &resumeOptions{}
	return withExamples(&cli.Command{
		Name:      "resume",
		Usage:     "walk the live Flux graph: resume and reconcile each Kustomization and HelmRelease the moment its dependencies are ready",
		ArgsUsage: "[ks|hr] [NAME|NAMESPACE/NAME]...",
		Description: "With names, walks only those nodes and what they depend on (as --only): a node cannot\n" +
			"become Ready while an ancestor is suspended. A flux-style kind word may come first: resume hr podinfo.\n" +
			"With -n NS, walks NS's nodes; their dependencies in other namespaces are waited on, never touched.\n" +
			"HelmReleases are walked by default, from the moment the cluster serves their API.",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Destination: &o.DryRun, Usage: "print the plan; change nothing"},
			&cli.BoolFlag{Name: "no-unsuspend", Destination: &o.NoUnsuspend, Usage: "leave suspended Kustomizations suspended"},
			&cli.BoolFlag{Name: "no-remediate", Destination: &o.NoRemediate, Usage: "report a proven cold-start deadlock instead of pre-applying CRDs"},
			&cli.DurationFlag{Name: "node-timeout", Destination: &o.NodeTimeout, Usage: "fail a Kustomization not Ready `DURATION` after standup asks it to reconcile (0: its spec.timeout)"},
			&cli.IntFlag{Name: "max-inflight", Destination: &o.MaxInflight, Usage: "reconcile at most `N` at once (0: unlimited)"},
			&cli.StringFlag{Name: "crds", TakesFile: true, Destination: &o.CRDs, Usage: "CRD bundle `DIR` for deadlock remediation (default: " + crds.DefaultBundleDir + " if it exists); also each spoke's without --spoke-crds"},
			&cli.StringSliceFlag{Name: spokeCRDsFlagName, Destination: &o.SpokeCRDs, Usage: "`SECRET=DIR`: the CRD bundle for the spoke that kubeConfig Secret SECRET (NAME or NAMESPACE/NAME) reaches, pre-applied on that spoke (repeat for each spoke)"},
			configFlag(&o.Config),
			operatorTimeoutFlag(&o.Operator), operatorQuietFlag(&o.Operator), recordFlag(&o.Record), eventsFlag(&o.Events),
			&cli.StringFlag{Name: "path", TakesFile: true, Destination: &o.Path, Usage: "the `DIR` of the git checkout the cluster reconciles (e.g. clusters/prod): standup renders it to see which Kustomizations wait on workloads, and hands a busy kustomize-controller their dependency chains first"},
			&cli.StringFlag{Name: "repo-root", TakesFile: true, Destination: &o.RepoRoot, Usage: "with --path: repository root `DIR` that spec.path is relative to (default: nearest ancestor with .git or standup.yaml)"},
			&cli.BoolFlag{Name: "additive-cel-dependency-check", Destination: &o.AdditiveCEL, Usage: "match a kustomize-controller running with the AdditiveCELDependencyCheck feature gate: readyExpr adds to the built-in check"},
			&cli.StringSliceFlag{Name: "kinds", Destination: &o.Kinds, Value: cli.NewStringSlice(flux.KindKustomization, flux.KindHelmRelease), Usage: "`KINDS` to walk: ks (Kustomization), hr (HelmRelease), rset (the Flux Operator's ResourceSet), in any case"},
			&cli.StringSliceFlag{Name: "from", Destination: &o.From, Usage: "start at these nodes (`NAME` or NAMESPACE/NAME); their ancestors must be ready but are not touched"},
			&cli.StringSliceFlag{Name: "only", Destination: &o.Only, Usage: "walk only these nodes (`NAME` or NAMESPACE/NAME) and their ancestors"},
			&cli.StringSliceFlag{Name: "exclude", Destination: &o.Exclude, Usage: "leave these nodes (`NAME` or NAMESPACE/NAME) out"},
		}, fleetFlags(&o.Fleet)...),
		Action: func(c *cli.Context) error {
			o.KindsSet = c.IsSet("kinds")
			args := c.Args().Slice()
			return withFleet(c.Context, globals(c), o.Fleet, streams, func(ctx context.Context, g globalOptions, s Streams) error {
				opts := *o
				opts.Record = recordFor(opts.Record, g.FleetName)
				return runResume(ctx, g, opts, args, s)
			})
		},
	}, prog,
		"# what the walk would do now: nothing is changed",
		"standup resume --dry-run",
		"# walk the whole graph, giving up after 20 minutes",
		"standup resume --timeout 20m",
		"# walk apps and what it depends on, as flux resume names it",
		"standup resume ks apps",
		"# a large cluster: read the checkout so that the chains waiting on workloads go first",
		"standup resume --path clusters/prod",
		"# a hub whose Kustomizations apply to spoke clusters: each spoke's CRD bundle",
		"standup resume --spoke-crds prod-kubeconfig=crds/prod",
		"# the walk's events for a program (NDJSON, docs/output.md)",
		"standup resume -o json | jq -c 'select(.type == \"summary\")'",
	)
}

func runResume(ctx context.Context, g globalOptions, opts resumeOptions, args []string, streams Streams) error {
	if err := opts.Operator.check(); err != nil {
		return err
	}
	if opts.Record != "" && opts.DryRun {
		return usageErrorf("--record %s: a dry run changes nothing and records nothing; drop --record or --dry-run", opts.Record)
	}
	in, err := readResumeInput(ctx, opts, args)
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
		defer rec.Close() // a walk closes it first, with its summary
	}
	slow, err := slowFromCheckout(ctx, opts.Path, opts.RepoRoot, g.Quiet, streams)
	if err != nil {
		return err
	}
	objs, kinds, err := listWalked(ctx, cl, in.kinds, opts.KindsSet, streams)
	if err != nil {
		return err
	}
	sel := tiers.Selection{Namespace: g.Namespace, Only: append(opts.Only.Value(), in.names...), From: opts.From.Value(), Exclude: opts.Exclude.Value()}
	named := kinds // the kinds a name may be, for a refusal
	if in.kind != "" {
		named = []string{in.kind}
	}
	if err := checkSelection(objs, sel, named, g.Prog); err != nil {
		return err
	}
	spokes, err := connectSpokes(ctx, g, cl, objs, in.bundle, in.spokeBundles, streams.Err)
	if err != nil {
		return err
	}
	walkOpts := wait.Options{
		NoUnsuspend: opts.NoUnsuspend, NoRemediate: opts.NoRemediate || !anyBundle(in.bundle, spokes),
		Timeout: opts.NodeTimeout, MaxInflight: opts.MaxInflight, Selection: sel,
		AdditiveCELDependencyCheck: opts.AdditiveCEL, Triggers: in.triggers, Kinds: kinds, Slow: slow,
	}
	opts.Operator.set(&walkOpts)
	if opts.DryRun {
		return printPlan(ctx, g, cl, spokes, objs, in.bundle, walkOpts, streams)
	}
	return walk(ctx, g, cl, spokes, in.bundle, walkOpts, rec, openEvents(ctx, cl, opts.Events), streams)
}
