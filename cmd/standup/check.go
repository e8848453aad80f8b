package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/check"
	"github.com/kubestandup/standup/pkg/crds"
)

// checkOptions are the flags of `standup check`.
type checkOptions struct {
	Ready []string
	CRDs  string
}

func checkCommand(streams Streams, prog string) *cli.Command {
	fleet := &fleetOptions{}
	return withExamples(&cli.Command{
		Name:  "check",
		Usage: "preflight: Flux installed and running, nothing suspended or deadlocked, named Kustomizations Ready at their source's revision",
		Description: "Exits 0 only when every check holds, else 1. -o json prints the report described in docs/check.md.\n" +
			"Before a change that moves objects out of a Kustomization, name it with --ready.",
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "ready", Usage: "these Kustomizations (`NAME` or NAMESPACE/NAME) must be Ready at their source's current revision"},
			&cli.StringFlag{Name: "crds", TakesFile: true, Usage: "CRD bundle `DIR` to validate (default: bootstrap/crds if it exists)"},
		}, fleetFlags(fleet)...),
		Action: func(c *cli.Context) error {
			opts := checkOptions{Ready: c.StringSlice("ready"), CRDs: c.String("crds")}
			return withFleet(c.Context, globals(c), *fleet, streams, func(ctx context.Context, g globalOptions, s Streams) error {
				return runCheck(ctx, g, opts, s)
			})
		},
	}, prog,
		"# is the cluster whole? (exit 0 only when every check holds)",
		"standup check",
		"# before moving objects out of platform-config: it must be Ready at its revision",
		"standup check --ready platform-config",
		"# the failed checks, for a script",
		"standup check -o json | jq -r '.checks[] | select(.status == \"fail\") | .name'",
	)
}

func runCheck(ctx context.Context, g globalOptions, opts checkOptions, streams Streams) error {
	cl, err := connect(ctx, g)
	if err != nil {
		return err
	}
	facts, err := check.Gather(ctx, cl.Client, check.Options{Namespace: g.Namespace, Ready: opts.Ready, BundleDir: crds.BundleDir(opts.CRDs)})
	if err != nil {
		return err
	}
	report := check.Evaluate(facts, opts.Ready)
	if err := printer.PrintCheck(streams.Out, g.Output, report, printer.Options{Color: useColor(g, streams.Out)}); err != nil {
		return err
	}
	if g.Verbose {
		fmt.Fprintf(streams.Err, "API requests: %s\n", cl.Counter.Summary())
	}
	return report.Err()
}
