package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/printer/coldstart"
	"github.com/kubestandup/standup/pkg/audit"
	"github.com/kubestandup/standup/pkg/config"
	"github.com/kubestandup/standup/pkg/rehearse"
	"github.com/kubestandup/standup/pkg/render"
)

// rehearseOptions are the flags of `standup rehearse`.
type rehearseOptions struct {
	Path, RepoRoot string
	Requeue, Tuned time.Duration
	Concurrent     int
	SVG, Picture   string
	MaxDuration    time.Duration
	// FromRecord and FromCluster give the nodes measured durations.
	FromRecord  string
	FromCluster bool
}

// rehearseCommand is `standup rehearse --path DIR`: a cold start of the
// checkout, simulated under Flux alone, Flux tuned and standup.
func rehearseCommand(streams Streams, prog string) *cli.Command {
	o := &rehearseOptions{}
	return withExamples(&cli.Command{
		Name:  "rehearse",
		Usage: "predict a checkout's cold start: time to all Ready, critical path, stalls and deadlocks, under Flux alone, Flux tuned and standup (no cluster, unless --from-cluster)",
		Description: "A simulation of kustomize-controller and helm-controller from the checkout's graph and the audit's\n" +
			"origins model; its rules and defaults, and how close it comes to measured bring-ups, are in\n" +
			"docs/rehearse.md. A prediction, not a measurement. A node's reconcile costs what the model says,\n" +
			"or what was measured: --from-record takes each node's pass to Ready in an incident record,\n" +
			"--from-cluster each Kustomization's last successful lastReconciledDuration in its status.history\n" +
			"(read only; HelmReleases record none). Nodes are matched by kind, namespace and name; the text's\n" +
			"header counts those measured, -o json says per node where its duration came from.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "path", TakesFile: true, Destination: &o.Path, Usage: "the `DIR` of the cluster's Flux objects in the checkout (e.g. clusters/prod)"},
			&cli.StringFlag{Name: "repo-root", TakesFile: true, Destination: &o.RepoRoot, Usage: "repository root `DIR` that spec.path is relative to (default: nearest ancestor with .git or standup.yaml)"},
			&cli.DurationFlag{Name: "requeue-dependency", Value: 30 * time.Second, Destination: &o.Requeue, Usage: "kustomize-controller's --requeue-dependency for Flux alone (its default: 30s)"},
			&cli.DurationFlag{Name: "tuned-requeue-dependency", Value: 5 * time.Second, Destination: &o.Tuned, Usage: "the --requeue-dependency of Flux tuned"},
			&cli.IntFlag{Name: "concurrent", Value: 4, Destination: &o.Concurrent, Usage: "kustomize-controller's --concurrent (`N` workers)"},
			&cli.StringFlag{Name: "svg", TakesFile: true, Destination: &o.SVG, Usage: "write the Gantt chart of one contender (--picture) as a self-contained SVG to `FILE` (it must not exist)"},
			&cli.StringFlag{Name: "picture", Value: "flux", Destination: &o.Picture, Usage: "the contender -o mermaid and --svg draw: flux, tuned or standup"},
			&cli.DurationFlag{Name: "max-duration", Destination: &o.MaxDuration, Usage: "exit 1 when Flux alone is predicted to take longer than `DURATION` to bring every node up, or never to (0: no budget)"},
			&cli.StringFlag{Name: "from-record", TakesFile: true, Destination: &o.FromRecord, Usage: "take each node's reconcile duration from the incident record `FILE` (resume --record FILE): its pass from the controller taking it up to Ready"},
			&cli.BoolFlag{Name: "from-cluster", Destination: &o.FromCluster, Usage: "take each Kustomization's reconcile duration from the cluster's status.history (lastReconciledDuration of its last success); lists Kustomizations, writes nothing"},
		},
		Action: func(c *cli.Context) error { return runRehearse(c.Context, globals(c), *o, streams) },
	}, prog,
		"# what a cold start of clusters/prod would take, and where it would stall",
		"standup rehearse --path clusters/prod",
		"# in a pull-request job: fail when Flux alone would take over 10 minutes",
		"standup rehearse --path clusters/prod --max-duration 10m",
		"# last night's reconcile times instead of the model's",
		"standup rehearse --path clusters/prod --from-record prod.ndjson",
		"# the reconcile times the running cluster's Kustomizations last took",
		"standup rehearse --path clusters/prod --from-cluster --context prod",
	)
}

func runRehearse(ctx context.Context, g globalOptions, opts rehearseOptions, streams Streams) error {
	picture := map[string]int{"flux": 0, "tuned": 1, "standup": 2}
	pi, ok := picture[opts.Picture]
	switch {
	case !ok:
		return usageErrorf("--picture %q: want flux, tuned or standup", opts.Picture)
	case opts.Concurrent < 1:
		return usageErrorf("--concurrent %d: want 1 or more workers", opts.Concurrent)
	case opts.Requeue <= 0 || opts.Tuned <= 0:
		return usageErrorf("--requeue-dependency and --tuned-requeue-dependency: want positive durations")
	case opts.MaxDuration < 0:
		return usageErrorf("--max-duration %s: want a positive duration, or 0 for no budget", opts.MaxDuration)
	case opts.FromRecord != "" && opts.FromCluster:
		return usageErrorf("rehearse: --from-record and --from-cluster do not go together: each gives the measured durations; name one")
	}
	if opts.Path == "" {
		return usageErrorf("rehearse: --path is required: the directory of a git checkout holding the cluster's Flux objects, e.g. clusters/prod")
	}
	// HelmReleases are nodes of the rehearsal too: their installs make
	// their charts' CRDs exist.
	res, err := render.Load(ctx, render.Options{Path: opts.Path, RepoRoot: opts.RepoRoot, Kinds: []string{render.KindKustomization, render.KindHelmRelease}})
	if err != nil {
		return err
	}
	cfg, err := config.Load(ctx, res.RepoRoot)
	if err != nil {
		return err
	}
	boot, err := audit.DetectBootstrapIn(ctx, res.GitRoot, res.RepoRoot, res.Path)
	if err != nil {
		return err
	}
	report, err := audit.Audit(res, cfg, audit.Options{Bootstrap: boot})
	if err != nil {
		return err
	}
	model := rehearse.DefaultModel()
	model.Workers = opts.Concurrent
	scenario, durations, err := measuredScenario(ctx, g, opts, rehearse.FromAudit(res, report), model, res.Path, streams)
	if err != nil {
		return err
	}
	out := coldstart.Rehearsal{Path: res.Path, Model: model, Picture: pi, Durations: durations}
	for _, n := range scenario.Nodes {
		if n.ID.Kind == render.KindKustomization {
			out.Kustomizations++
		} else {
			out.HelmReleases++
		}
	}
	for _, c := range rehearse.Contenders(opts.Requeue, opts.Tuned) {
		out.Results = append(out.Results, rehearse.Simulate(scenario, c, model))
	}
	if opts.SVG != "" {
		if err := writeNew(opts.SVG, func(w *os.File) error { return out.Results[pi].Timeline.SVG(w) }); err != nil {
			return err
		}
	}
	if err := coldstart.PrintRehearsal(streams.Out, g.Output, out); err != nil {
		return err
	}
	if flux := out.Results[0]; opts.MaxDuration > 0 && (!flux.Converged || flux.AllReady > opts.MaxDuration) {
		return fmt.Errorf("rehearse: Flux alone is predicted to take %s to bring %s up, over the budget of --max-duration %s", printerAllReady(flux), res.Path, opts.MaxDuration)
	}
	return nil
}

func printerAllReady(r *rehearse.Result) string {
	if !r.Converged {
		return "forever (it never converges)"
	}
	return r.AllReady.Round(100 * time.Millisecond).String()
}
