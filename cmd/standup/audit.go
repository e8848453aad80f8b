package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/audit"
	"github.com/kubestandup/standup/pkg/render"
)

// auditOptions are the flags of `standup audit`.
type auditOptions struct {
	Path              string
	RepoRoot          string
	AllowUnknownKinds bool
	FromCluster       bool
}

func auditCommand(streams Streams, prog string) *cli.Command {
	o := &auditOptions{}
	return withExamples(&cli.Command{
		Name:  "audit",
		Usage: "find cold-start hazards in a git checkout: second-order kinds, missing dependsOn edges, unguarded CRD providers",
		Description: "Renders every Kustomization offline as kustomize-controller would, classifies where each object's kind\n" +
			"comes from (built in, Flux, a CRD in the same or an ancestor Kustomization, standup.yaml's runtimeCRDs,\n" +
			"chartCRDs and kustomizationCRDs) and reports hazards with a code, a file and a fix (docs/audit.md). Exits 1 when any hazard is\n" +
			"an error. Output formats: " + strings.Join(printer.AuditFormats(), ", ") + ".",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "path", TakesFile: true, Destination: &o.Path, Usage: "directory of the git checkout holding the cluster's Flux objects (e.g. clusters/prod)"},
			&cli.StringFlag{Name: "repo-root", TakesFile: true, Destination: &o.RepoRoot, Usage: "repository root that spec.path is relative to (default: nearest ancestor with .git or standup.yaml)"},
			&cli.BoolFlag{Name: "allow-unknown-kinds", Destination: &o.AllowUnknownKinds, Usage: "report kinds of unknown origin as warnings, not errors"},
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
	report, err := audit.Audit(res, cfg, audit.Options{AllowUnknownKinds: opts.AllowUnknownKinds})
	if err != nil {
		return err
	}
	if !g.Quiet {
		for _, n := range report.Notes {
			fmt.Fprintf(streams.Err, "warning: %s\n", n)
		}
	}
	popts := printer.AuditOptions{Options: printer.Options{Color: useColor(g, streams.Out)}, ToolVersion: version}
	if err := printer.PrintAudit(streams.Out, g.Output, report, popts); err != nil {
		return err
	}
	if failed := unrendered(res.Failed); failed != nil {
		// The report covers what could be rendered; what could not fails the run.
		return failed
	}
	if n := report.Errors(); n > 0 {
		if g.Output == printer.FormatText {
			return &reported{&hazardsError{n}} // the text summary says it already
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
	cfg, err := audit.LoadConfig(ctx, res.RepoRoot)
	if err != nil {
		return nil, nil, err
	}
	return res, cfg, nil
}
