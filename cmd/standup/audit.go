package main

import (
	"context"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/internal/printer/coldstart"
	"github.com/kubestandup/standup/pkg/audit"
	"github.com/kubestandup/standup/pkg/config"
	"github.com/kubestandup/standup/pkg/render"
)

// auditOptions are the flags of `standup audit`.
type auditOptions struct {
	Path        string
	RepoRoot    string
	Strict      bool
	FromCluster bool
	Fix         bool
	DryRun      bool
}

func auditCommand(streams Streams, prog string) *cli.Command {
	o := &auditOptions{}
	return withExamples(&cli.Command{
		Name:  "audit",
		Usage: "find cold-start deadlocks in a git checkout: second-order kinds, cycles through origins, missing dependsOn edges",
		Description: "Renders every Kustomization offline as kustomize-controller would, finds where each object's kind\n" +
			"comes from on a cold start (built in, Flux, the repository's bootstrap, a CRD, a chart or an operator the\n" +
			"catalog knows, standup.yaml) and reports findings with a code, the places and a fix (docs/audit.md): errors\n" +
			"cannot converge, warnings converge after a retry, notices are kinds of unknown origin. Exits 1 when any\n" +
			"finding is an error. Output formats: " + strings.Join(coldstart.AuditFormats(), ", ") + ".",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "path", TakesFile: true, Destination: &o.Path, Usage: "the `DIR` of a git checkout holding the cluster's Flux objects (e.g. clusters/prod)"},
			&cli.StringFlag{Name: "repo-root", TakesFile: true, Destination: &o.RepoRoot, Usage: "repository root `DIR` that spec.path is relative to (default: nearest ancestor with .git or standup.yaml)"},
			&cli.BoolFlag{Name: "strict", Destination: &o.Strict, Usage: "report kinds of unknown origin as errors, not notices"},
			// Kept so that scripts written for it still run: unknown kinds are notices now.
			&cli.BoolFlag{Name: "allow-unknown-kinds", Hidden: true},
			&cli.BoolFlag{Name: "from-cluster", Destination: &o.FromCluster, Usage: "list the cluster's CRDs that no Kustomization produces, as a standup.yaml skeleton (needs --path and a cluster; formats yaml (or text), json)"},
			&cli.BoolFlag{Name: "fix", Destination: &o.Fix, Usage: "write the fixes that are edits (the missing dependsOn entries, a health check on what a provider must wait for) into the files that define the Kustomizations, then audit again (formats text, json, diff)"},
			&cli.BoolFlag{Name: "dry-run", Destination: &o.DryRun, Usage: "with --fix: print the diff of the fixes and write nothing"},
		},
		Action: func(c *cli.Context) error {
			switch {
			case o.DryRun && !o.Fix:
				return usageErrorf("audit: --dry-run needs --fix (audit alone writes nothing)")
			case o.Fix && o.FromCluster:
				return usageErrorf("audit: --fix and --from-cluster do not go together: --fix edits the checkout, --from-cluster reads a cluster")
			case o.FromCluster:
				return runAuditFromCluster(c.Context, globals(c), *o, streams)
			case o.Fix:
				return runAuditFix(c.Context, globals(c), *o, streams)
			}
			return runAudit(c.Context, globals(c), *o, streams)
		},
	}, prog,
		"# the cold-start hazards of a checkout, before merge",
		"standup audit --path clusters/prod",
		"# for code scanning (exit 1 when a hazard is an error)",
		"standup audit --path clusters/prod -o sarif > audit.sarif",
		"# the standup.yaml entries for the CRDs a healthy cluster creates at runtime",
		"standup audit --from-cluster --path clusters/prod >> standup.yaml",
		"# preview the dependsOn and health checks --fix would add, then write them",
		"standup audit --fix --dry-run --path clusters/prod",
		"standup audit --fix --path clusters/prod",
		"# the same fixes as a patch, for a bot's pull request",
		"standup audit --fix --dry-run -o diff --path clusters/prod | git apply",
	)
}

func runAudit(ctx context.Context, g globalOptions, opts auditOptions, streams Streams) error {
	res, report, _, err := auditCheckout(ctx, g, opts, streams)
	if err != nil {
		return err
	}
	popts := coldstart.AuditOptions{Options: printer.Options{Color: useColor(g, streams.Out)}, ToolVersion: buildVersion()}
	if err := coldstart.PrintAudit(streams.Out, g.Output, report, popts); err != nil {
		return err
	}
	// The report covers what could be rendered; what could not fails the
	// run. The text summary counts the errors already; json and sarif
	// readers get a line on stderr.
	return auditOutcome(res, report, g.Output == printer.FormatText)
}

// renderCheckout renders the checkout at opts.Path and reads its
// standup.yaml; the caller reports res.Failed.
func renderCheckout(ctx context.Context, command string, opts auditOptions) (*render.Result, *audit.Config, error) {
	if opts.Path == "" {
		return nil, nil, usageErrorf("%s: --path is required: the directory of a git checkout holding the cluster's Flux objects, e.g. clusters/prod", command)
	}
	res, err := render.Load(ctx, render.Options{Path: opts.Path, RepoRoot: opts.RepoRoot})
	if err != nil {
		return nil, nil, err
	}
	cfg, err := config.Load(ctx, res.RepoRoot)
	if err != nil {
		return nil, nil, err
	}
	return res, cfg, nil
}
