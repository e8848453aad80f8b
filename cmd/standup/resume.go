package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// resumeOptions are the flags of `standup resume`.
type resumeOptions struct {
	DryRun      bool
	NoUnsuspend bool
	NoRemediate bool
	MaxInflight int
	CRDs        string
	AdditiveCEL bool
	NodeTimeout time.Duration
	Selection   tiers.Selection
}

func resumeCommand(streams Streams) *cli.Command {
	return &cli.Command{
		Name:      "resume",
		Usage:     "walk the live Flux graph: resume and reconcile each Kustomization the moment its dependencies are ready",
		ArgsUsage: "[ks] [NAME|NAMESPACE/NAME]...",
		Description: "With names, walks only those Kustomizations and what they depend on (as --only): a node cannot\n" +
			"become Ready while an ancestor is suspended. A flux-style kind word may come first: standup resume ks apps.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "print the plan; change nothing"},
			&cli.BoolFlag{Name: "no-unsuspend", Usage: "leave suspended Kustomizations suspended"},
			&cli.BoolFlag{Name: "no-remediate", Usage: "report a proven cold-start deadlock instead of pre-applying CRDs"},
			&cli.DurationFlag{Name: "node-timeout", Usage: "fail a Kustomization not Ready this long after standup asks it to reconcile (0: its spec.timeout)"},
			&cli.IntFlag{Name: "max-inflight", Usage: "reconcile at most this many at once (0: unlimited)"},
			&cli.StringFlag{Name: "crds", Usage: "CRD bundle directory for deadlock remediation (default: bootstrap/crds if it exists)"},
			&cli.BoolFlag{Name: "additive-cel-dependency-check", Usage: "match a kustomize-controller running with the AdditiveCELDependencyCheck feature gate: readyExpr adds to the built-in check"},
			&cli.StringSliceFlag{Name: "kinds", Value: cli.NewStringSlice("Kustomization"), Usage: "kinds to walk; only Kustomization for now"},
			&cli.StringSliceFlag{Name: "from", Usage: "start at these nodes (NAME or NAMESPACE/NAME); their ancestors must be ready but are not touched"},
			&cli.StringSliceFlag{Name: "only", Usage: "walk only these nodes and their ancestors"},
			&cli.StringSliceFlag{Name: "exclude", Usage: "leave these nodes out"},
		},
		Action: func(c *cli.Context) error {
			for _, k := range c.StringSlice("kinds") {
				if k != "Kustomization" {
					return usageErrorf("resume walks Kustomizations only: %s is not walked yet, because helm-controller cannot be run in standup's test world to prove it (see them with standup tiers --kinds Kustomization,HelmRelease)", k)
				}
			}
			names, err := resumeNames(c.Args().Slice())
			if err != nil {
				return err
			}
			opts := resumeOptions{
				DryRun: c.Bool("dry-run"), NoUnsuspend: c.Bool("no-unsuspend"), NoRemediate: c.Bool("no-remediate"),
				MaxInflight: c.Int("max-inflight"), CRDs: c.String("crds"),
				AdditiveCEL: c.Bool("additive-cel-dependency-check"),
				NodeTimeout: c.Duration("node-timeout"),
				Selection:   tiers.Selection{Only: append(c.StringSlice("only"), names...), From: c.StringSlice("from"), Exclude: c.StringSlice("exclude")},
			}
			return runResume(c.Context, globals(c), opts, streams)
		},
	}
}

func runResume(ctx context.Context, g globalOptions, opts resumeOptions, streams Streams) error {
	if g.Output != "" && g.Output != "json" && g.Output != "text" {
		return usageErrorf("resume: unknown output format %q (want text or json)", g.Output)
	}
	bundle, err := loadBundle(opts.CRDs)
	if err != nil {
		return err
	}
	cl, err := connect(ctx, g)
	if err != nil {
		return err
	}
	objs, err := flux.ListKustomizations(ctx, cl.Client, g.Namespace)
	if err != nil {
		return err
	}
	if err := checkSelection(objs, opts.Selection); err != nil {
		return err
	}
	walkOpts := wait.Options{
		NoUnsuspend: opts.NoUnsuspend, NoRemediate: opts.NoRemediate || bundle == nil,
		Timeout: opts.NodeTimeout, MaxInflight: opts.MaxInflight, Selection: opts.Selection,
		AdditiveCELDependencyCheck: opts.AdditiveCEL,
	}
	if opts.DryRun {
		return printPlan(ctx, cl, objs, walkOpts, g, streams)
	}
	out := newProgress(g, streams)
	loop := &wait.Loop{
		Dynamic: cl.Dynamic, Client: cl.Client, Namespace: g.Namespace, Options: walkOpts,
		Bundle: bundle, OnEvent: out.Event,
	}
	summary, err := loop.Run(ctx)
	out.Close(summary)
	if g.Verbose {
		fmt.Fprintf(streams.Err, "API requests: %s\n", cl.Counter.Summary())
	}
	return resumeError(summary, err)
}

// resumeNames reads `resume [ks] NAME...`: the names are --only's, and a
// leading kind word is accepted as flux resume takes it.
func resumeNames(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, nil
	}
	switch strings.ToLower(args[0]) {
	case "ks", "kustomization", "kustomizations":
		args = args[1:]
		if len(args) == 0 {
			return nil, usageErrorf("resume %s: name the Kustomizations to walk (NAME or NAMESPACE/NAME), or give no kind word to walk them all", "ks")
		}
	case "hr", "helmrelease", "helmreleases":
		return nil, usageErrorf("resume walks Kustomizations only: name the Kustomization that applies the HelmRelease")
	}
	for _, a := range args {
		if strings.Count(a, "/") > 1 || strings.HasPrefix(a, "/") || strings.HasSuffix(a, "/") {
			return nil, usageErrorf("resume: %q is not NAME or NAMESPACE/NAME", a)
		}
	}
	return args, nil
}

// resumeError maps a finished walk to the error (and so the exit code) it deserves.
func resumeError(s wait.Summary, err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &exitError{code: ExitTimeout, err: errTimedOut, silent: true}
	case errors.Is(err, context.Canceled) || s.Interrupted:
		return &exitError{code: ExitInterrupted, err: errInterrupted, silent: true}
	case err != nil:
		return err
	case len(s.Deadlocked) > 0:
		return &exitError{code: ExitDeadlock, err: fmt.Errorf("%w: %s (see docs/runbook.md)", wait.ErrDeadlock, ids(s.Deadlocked)), silent: false}
	case len(s.FailedNodes) > len(s.TimedOut):
		return &exitError{code: ExitFailure, err: fmt.Errorf("%d of %d Kustomizations failed: %s", s.Failed, s.Total, ids(s.FailedNodes))}
	case len(s.TimedOut) > 0:
		return &exitError{code: ExitTimeout, err: fmt.Errorf("%w: %s", errTimedOut, ids(s.TimedOut))}
	}
	return nil
}

func ids(list []tiers.ID) string {
	s := ""
	for i, id := range list {
		if i > 0 {
			s += ", "
		}
		s += id.String()
	}
	return s
}

// loadBundle reads the CRD bundle: dir when given, else bootstrap/crds when
// it exists, else none.
func loadBundle(dir string) (*crds.Bundle, error) {
	if dir == "" {
		if st, err := os.Stat("bootstrap/crds"); err != nil || !st.IsDir() {
			return nil, nil
		}
		dir = "bootstrap/crds"
	}
	b, err := crds.LoadBundle(dir)
	if err != nil {
		return nil, fmt.Errorf("CRD bundle %s is invalid, nothing was applied: %w", dir, err)
	}
	return b, nil
}

func checkSelection(objs []flux.Object, sel tiers.Selection) error {
	nodes := make([]tiers.Node, len(objs))
	for i, o := range objs {
		nodes[i] = o.Node
	}
	g, err := tiers.Build(nodes, tiers.Options{AllowMissing: true})
	if err != nil {
		return err
	}
	if bad := sel.Unmatched(g); len(bad) > 0 {
		return usageErrorf("no Kustomization named %v (see standup tiers)", bad)
	}
	return nil
}

func printPlan(ctx context.Context, cl *cluster, objs []flux.Object, opts wait.Options, g globalOptions, streams Streams) error {
	sources := map[tiers.ID]string{}
	for _, o := range objs {
		if _, ok := sources[o.SourceRef]; ok || o.SourceRef.Name == "" {
			continue
		}
		rev, err := flux.SourceRevision(ctx, cl.Client, o.SourceRef)
		if err != nil {
			return err
		}
		sources[o.SourceRef] = rev
	}
	steps, err := wait.Plan(objs, sources, opts)
	if err != nil {
		return err
	}
	if g.Output == "json" {
		return writeJSONLines(streams.Out, steps)
	}
	for _, s := range steps {
		note := ""
		if s.Passive {
			note = " (not touched: outside the selection)"
		}
		fmt.Fprintf(streams.Out, "%d\t%s\t%s%s\n", s.Tier, s.Node, s.Action, note)
	}
	return nil
}
