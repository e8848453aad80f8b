package main

import (
	"context"
	"errors"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// checkSelection refuses --only, --from and --exclude names (and resume's
// positional names) that match no Kustomization, before anything is done;
// the refusal points at prog's tiers command.
func checkSelection(objs []flux.Object, sel tiers.Selection, prog string) error {
	err := sel.Check(flux.Nodes(objs))
	var unmatched *tiers.UnmatchedError
	if errors.As(err, &unmatched) {
		return usageErrorf("%v (see %s tiers)", err, prog)
	}
	return err
}

// printPlan is `resume --dry-run`: what the walk would do now, given each
// source's current revision. It reads only.
func printPlan(ctx context.Context, cl *cluster, objs []flux.Object, opts wait.Options, format string, streams Streams) error {
	sources, err := flux.SourceRevisions(ctx, cl.Client, objs)
	if err != nil {
		return err
	}
	steps, err := wait.Plan(objs, sources, opts)
	if err != nil {
		return err
	}
	return printer.PrintPlan(streams.Out, format, steps)
}
