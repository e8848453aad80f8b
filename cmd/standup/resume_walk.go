package main

import (
	"context"
	"fmt"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/record"
	"github.com/kubestandup/standup/pkg/wait"
)

// walk is `resume` without --dry-run: the live walk with opts (and the
// spokes it reaches), its
// progress in the -o format, its Events (nil: none), and the error its
// summary deserves.
func walk(ctx context.Context, g globalOptions, cl *cluster, spokes []wait.Spoke, bundle *crds.Bundle, opts wait.Options, rec *record.Writer, events *clusterEvents, streams Streams) error {
	out := printer.NewWalkPrinter(streams.Out, streams.Err, printer.WalkOptions{Format: g.Output, Quiet: g.Quiet, NoColor: g.NoColor})
	loop := &wait.Loop{Dynamic: cl.Dynamic, Client: cl.Client, Options: opts, Bundle: bundle, Spokes: spokes}
	recorded(loop, out, rec)
	events.attach(loop)
	summary, err := loop.Run(ctx)
	summary = summaryStopped(summary, err)
	out.Close(summary)
	events.close(g, summary, streams)
	if g.Verbose {
		fmt.Fprintf(streams.Err, "API requests: %s\n", cl.Counter.Summary())
	}
	return closeRecorded(rec, summary, walkError(summary, err))
}
