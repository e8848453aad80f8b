package main

import (
	"context"
	"fmt"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/internal/printer/coldstart"
	"github.com/kubestandup/standup/pkg/audit"
	"github.com/kubestandup/standup/pkg/fix"
	"github.com/kubestandup/standup/pkg/render"
)

// runAuditFix is `standup audit --fix`: it audits the checkout, writes the
// fixes that are edits of the files defining the Kustomizations (pkg/fix),
// and audits it again. With --dry-run it prints the diff and writes
// nothing. stdout carries the plan (and, after writing, the new audit) or,
// with -o diff, the diff alone; stderr each file written.
func runAuditFix(ctx context.Context, g globalOptions, opts auditOptions, streams Streams) error {
	res, report, reaudit, err := auditCheckout(ctx, g, opts, streams)
	if err != nil {
		return err
	}
	plan, err := fix.MakePlan(ctx, res, report, fix.Options{Audit: reaudit})
	if err != nil {
		return err
	}
	popts := printer.Options{Color: useColor(g, streams.Out)}
	if opts.DryRun {
		if err := coldstart.PrintFix(streams.Out, g.Output, coldstart.FixDocument{Plan: plan, DryRun: true}, popts); err != nil {
			return err
		}
		fixSummary(g, streams, plan, "would write")
		// Nothing changed: the checkout's audit decides, as audit's would.
		return auditOutcome(res, report, false)
	}
	err = fix.Write(ctx, plan, func(f fix.File) {
		if !g.Quiet {
			fmt.Fprintf(streams.Err, "wrote %s (%d edits)\n", f.Name, len(f.Edits))
		}
	})
	if err != nil {
		return err
	}
	fixSummary(g, streams, plan, "wrote")
	if len(plan.Files) > 0 {
		quiet := g
		quiet.Quiet = true // render's notes were said once already
		if res, report, _, err = auditCheckout(ctx, quiet, opts, streams); err != nil {
			return err
		}
	}
	if err := coldstart.PrintFix(streams.Out, g.Output, coldstart.FixDocument{Plan: plan, After: report}, popts); err != nil {
		return err
	}
	return auditOutcome(res, report, g.Output == printer.FormatText)
}

// auditCheckout renders and audits the checkout as `standup audit` does,
// render's notes on stderr unless -q, and returns the function that audits
// a render of it again the same way.
func auditCheckout(ctx context.Context, g globalOptions, opts auditOptions, streams Streams) (*render.Result, *audit.Report, func(*render.Result) (*audit.Report, error), error) {
	res, cfg, err := renderCheckout(ctx, "audit", opts)
	if err != nil {
		return nil, nil, nil, err
	}
	boot, err := audit.DetectBootstrapIn(ctx, res.GitRoot, res.RepoRoot, res.Path)
	if err != nil {
		return nil, nil, nil, err
	}
	aopts := audit.Options{Strict: opts.Strict, Bootstrap: boot}
	reaudit := func(r *render.Result) (*audit.Report, error) { return audit.Audit(r, cfg, aopts) }
	report, err := reaudit(res)
	if err != nil {
		return nil, nil, nil, err
	}
	if !g.Quiet {
		if err := printer.PrintRenderWarnings(streams.Err, report.Notes, g.Verbose); err != nil {
			return nil, nil, nil, err
		}
	}
	return res, report, reaudit, nil
}

// auditOutcome is the error an audit ends with: a Kustomization that could
// not be rendered, else the error findings (printed says the text report
// counted them already).
func auditOutcome(res *render.Result, report *audit.Report, printed bool) error {
	if failed := unrendered(res.Failed); failed != nil {
		return failed
	}
	if n := report.Errors(); n > 0 {
		if printed {
			return &printedError{&hazardsError{n}}
		}
		return &hazardsError{n}
	}
	return nil
}

// fixSummary says on stderr, unless -q, what --fix did when stdout holds
// the diff alone.
func fixSummary(g globalOptions, streams Streams, plan *fix.Plan, did string) {
	if g.Quiet || g.Output != coldstart.FormatDiff {
		return
	}
	fmt.Fprintf(streams.Err, "audit --fix: %s %d files (%d edits); %d not fixed; %d findings need objects moved\n",
		did, len(plan.Files), plan.Edits(), len(plan.NotFixed), len(plan.Moves))
}
