package main

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
)

// captureOptions are the flags of `standup crds capture`.
type captureOptions struct {
	Out    string
	Groups cli.StringSlice
}

func captureCommand(streams Streams, prog string) *cli.Command {
	o := &captureOptions{}
	return withExamples(&cli.Command{
		Name:  "capture",
		Usage: "write the CRDs no Flux Kustomization applied (an operator's, created at runtime, or a chart's), Flux's own left out: the bundle for a stuck cluster",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Destination: &o.Out, TakesFile: true, Usage: "write one file per CRD into `DIR` (required)"},
			&cli.StringSliceFlag{Name: "group", Destination: &o.Groups, Usage: "only CRDs of the API `GROUP` (repeat for several)"},
		},
		Action: func(c *cli.Context) error { return runCapture(c.Context, globals(c), *o, streams) },
	}, prog,
		"# on a healthy cluster, the bundle a stuck one will need",
		"standup crds capture --out bootstrap/crds",
		"# only the CRDs of one operator",
		"standup crds capture --out bootstrap/crds --group cdi.kubevirt.io",
	)
}

// runCapture writes, one file each, the live CRDs that no Kustomization's
// inventory lists but Flux's own (crds.SelectRuntime), prints the paths
// written, and says on stderr how many of Flux's it left out.
func runCapture(ctx context.Context, g globalOptions, opts captureOptions, streams Streams) error {
	if opts.Out == "" {
		return usageErrorf("crds capture: --out DIR is required: the directory to write one file per CRD into")
	}
	cl, err := connect(ctx, g)
	if err != nil {
		return err
	}
	objs, err := flux.ListKustomizations(ctx, cl.Client, "")
	if err != nil {
		return err
	}
	live, err := crds.ListCRDs(ctx, cl.Client)
	if err != nil {
		return err
	}
	runtime, fluxOwn := crds.SelectRuntime(live, opts.Groups.Value(), objs)
	written, err := crds.WriteCaptured(opts.Out, runtime)
	// What was written is reported even when a later file failed.
	if printErr := printer.PrintCapture(streams.Out, g.Output, opts.Out, written); err == nil {
		err = printErr
	}
	if err != nil {
		return err
	}
	if !g.Quiet {
		printer.PrintCaptureSummary(streams.Err, len(runtime), len(fluxOwn))
	}
	return nil
}
