package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/audit"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render"
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
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Destination: &o.DryRun, Usage: "print the plan; change nothing"},
			&cli.BoolFlag{Name: "no-unsuspend", Destination: &o.NoUnsuspend, Usage: "leave suspended Kustomizations suspended"},
			&cli.BoolFlag{Name: "no-remediate", Destination: &o.NoRemediate, Usage: "report a proven cold-start deadlock instead of pre-applying CRDs"},
			&cli.DurationFlag{Name: "node-timeout", Destination: &o.NodeTimeout, Usage: "fail a Kustomization not Ready this long after standup asks it to reconcile (0: its spec.timeout)"},
			&cli.IntFlag{Name: "max-inflight", Destination: &o.MaxInflight, Usage: "reconcile at most this many at once (0: unlimited)"},
			&cli.StringFlag{Name: "crds", TakesFile: true, Destination: &o.CRDs, Usage: "CRD bundle directory for deadlock remediation (default: " + crds.DefaultBundleDir + " if it exists)"},
			configFlag(&o.Config),
			&cli.StringFlag{Name: "path", TakesFile: true, Destination: &o.Path, Usage: "directory of the git checkout the cluster reconciles (e.g. clusters/prod): standup renders it to see which Kustomizations wait on workloads, and hands a busy kustomize-controller their dependency chains first"},
			&cli.StringFlag{Name: "repo-root", TakesFile: true, Destination: &o.RepoRoot, Usage: "with --path: repository root that spec.path is relative to (default: nearest ancestor with .git or standup.yaml)"},
			&cli.BoolFlag{Name: "additive-cel-dependency-check", Destination: &o.AdditiveCEL, Usage: "match a kustomize-controller running with the AdditiveCELDependencyCheck feature gate: readyExpr adds to the built-in check"},
			&cli.StringSliceFlag{Name: "kinds", Destination: &o.Kinds, Value: cli.NewStringSlice(flux.KindKustomization, flux.KindHelmRelease), Usage: "kinds to walk: ks (Kustomization), hr (HelmRelease), in any case"},
			&cli.StringSliceFlag{Name: "from", Destination: &o.From, Usage: "start at these nodes (NAME or NAMESPACE/NAME); their ancestors must be ready but are not touched"},
			&cli.StringSliceFlag{Name: "only", Destination: &o.Only, Usage: "walk only these nodes and their ancestors"},
			&cli.StringSliceFlag{Name: "exclude", Destination: &o.Exclude, Usage: "leave these nodes out"},
		},
		Action: func(c *cli.Context) error {
			o.KindsSet = c.IsSet("kinds")
			return runResume(c.Context, globals(c), *o, c.Args().Slice(), streams)
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
		"# the walk's events for a program (NDJSON, docs/output.md)",
		"standup resume -o json | jq -c 'select(.type == \"summary\")'",
	)
}

func runResume(ctx context.Context, g globalOptions, opts resumeOptions, args []string, streams Streams) error {
	kinds, err := flux.ParseKinds(opts.Kinds.Value())
	if err != nil {
		return usageErrorf("--kinds: %v", err)
	}
	names, err := resumeNames(args)
	if err != nil {
		return err
	}
	bundle, err := crds.LoadBundleOrDefault(opts.CRDs)
	if err != nil {
		return err
	}
	triggers, err := loadTriggers(ctx, opts.Config)
	if err != nil {
		return err
	}
	if opts.RepoRoot != "" && opts.Path == "" {
		return usageErrorf("--repo-root is read only with --path: name the checkout's directory with --path, or leave --repo-root out")
	}
	cl, err := connect(ctx, g)
	if err != nil {
		return err
	}
	slow, err := slowFromCheckout(ctx, opts.Path, opts.RepoRoot, g.Quiet, streams)
	if err != nil {
		return err
	}
	objs, kinds, err := listWalked(ctx, cl, kinds, opts.KindsSet, streams)
	if err != nil {
		return err
	}
	sel := tiers.Selection{Namespace: g.Namespace, Only: append(opts.Only.Value(), names...), From: opts.From.Value(), Exclude: opts.Exclude.Value()}
	if err := checkSelection(objs, sel, g.Prog); err != nil {
		return err
	}
	walkOpts := wait.Options{
		NoUnsuspend: opts.NoUnsuspend, NoRemediate: opts.NoRemediate || bundle == nil,
		Timeout: opts.NodeTimeout, MaxInflight: opts.MaxInflight, Selection: sel,
		AdditiveCELDependencyCheck: opts.AdditiveCEL, Triggers: triggers, Kinds: kinds, Slow: slow,
	}
	if opts.DryRun {
		return printPlan(ctx, cl, objs, walkOpts, g.Output, streams)
	}
	out := printer.NewWalkPrinter(streams.Out, streams.Err, printer.WalkOptions{Format: g.Output, Quiet: g.Quiet, NoColor: g.NoColor})
	loop := &wait.Loop{
		Dynamic: cl.Dynamic, Client: cl.Client, Options: walkOpts,
		Bundle: bundle, OnEvent: out.Event,
	}
	summary, err := loop.Run(ctx)
	out.Close(summary)
	if g.Verbose {
		fmt.Fprintf(streams.Err, "API requests: %s\n", cl.Counter.Summary())
	}
	return walkError(summary, err)
}

// slowFromCheckout renders the checkout of --path, when given, for the
// Kustomizations whose reconcile waits on a controller
// (audit.SlowReconciles). It is a hint for the walk's order: a
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
	slow := audit.SlowReconciles(res)
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

func countKustomizations(objs []flux.Object) int {
	n := 0
	for _, o := range objs {
		if o.ID.Kind == flux.KindKustomization {
			n++
		}
	}
	return n
}

// resumeNames reads `resume [ks|hr] NAME...`: the names are --only's, and
// a leading kind word is accepted as flux resume takes it.
func resumeNames(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, nil
	}
	if kind, ok := flux.ParseKind(args[0]); ok {
		args = args[1:]
		if len(args) == 0 {
			return nil, usageErrorf("resume %s: name the %ss to walk (NAME or NAMESPACE/NAME), or give no kind word to walk them all", args0Word(kind), kind)
		}
	}
	for _, a := range args {
		if strings.Count(a, "/") > 1 || strings.HasPrefix(a, "/") || strings.HasSuffix(a, "/") {
			return nil, usageErrorf("resume: %q is not NAME or NAMESPACE/NAME", a)
		}
	}
	return args, nil
}
