package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/printer"
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
			"finding is an error. Output formats: " + strings.Join(printer.AuditFormats(), ", ") + ".",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "path", TakesFile: true, Destination: &o.Path, Usage: "the `DIR` of a git checkout holding the cluster's Flux objects (e.g. clusters/prod)"},
			&cli.StringFlag{Name: "repo-root", TakesFile: true, Destination: &o.RepoRoot, Usage: "repository root `DIR` that spec.path is relative to (default: nearest ancestor with .git or standup.yaml)"},
			&cli.BoolFlag{Name: "strict", Destination: &o.Strict, Usage: "report kinds of unknown origin as errors, not notices"},
			// Kept so that scripts written for it still run: unknown kinds are notices now.
			&cli.BoolFlag{Name: "allow-unknown-kinds", Hidden: true},
			&cli.BoolFlag{Name: "from-cluster", Destination: &o.FromCluster, Usage: "list the cluster's CRDs that no Kustomization produces, as a standup.yaml skeleton (needs --path and a cluster; formats yaml (or text), json)"},
		},
		Action: func(c *cli.Context) error {
			if o.FromCluster {
				return runAuditFromCluster(c.Context, globals(c), *o, streams)
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
	)
}

func runAudit(ctx context.Context, g globalOptions, opts auditOptions, streams Streams) error {
	res, cfg, err := renderCheckout(ctx, "audit", opts)
	if err != nil {
		return err
	}
	boot, err := audit.DetectBootstrap(ctx, res.RepoRoot, res.Path)
	if err != nil {
		return err
	}
	report, err := audit.Audit(res, cfg, audit.Options{Strict: opts.Strict, Bootstrap: boot})
	if err != nil {
		return err
	}
	if !g.Quiet {
		for _, n := range report.Notes {
			fmt.Fprintf(streams.Err, "warning: %s\n", n)
		}
	}
	popts := printer.AuditOptions{Options: printer.Options{Color: useColor(g, streams.Out)}, ToolVersion: buildVersion()}
	if err := printer.PrintAudit(streams.Out, g.Output, report, popts); err != nil {
		return err
	}
	if failed := unrendered(res.Failed); failed != nil {
		// The report covers what could be rendered; what could not fails the run.
		return failed
	}
	if n := report.Errors(); n > 0 {
		if g.Output == printer.FormatText {
			return &printedError{&hazardsError{n}} // the text summary says it already
		}
		return &hazardsError{n} // json and sarif readers get a line on stderr
	}
	return nil
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
