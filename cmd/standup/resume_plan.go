package main

import (
	"context"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// checkSelection refuses --only, --from and --exclude names (and resume's
// positional names) that match no Kustomization, before anything is done;
// the refusal points at prog's tiers command.
func checkSelection(objs []flux.Object, sel tiers.Selection, prog string) error {
	nodes := make([]tiers.Node, len(objs))
	for i, o := range objs {
		nodes[i] = o.Node
	}
	g, err := tiers.Build(nodes, tiers.Options{AllowMissing: true})
	if err != nil {
		return err
	}
	if bad := sel.Unmatched(g); len(bad) > 0 {
		return usageErrorf("no Kustomization named %v (see %s tiers)", bad, prog)
	}
	return nil
}

// printPlan is `resume --dry-run`: what the walk would do now, given each
// source's current revision. It reads only.
func printPlan(ctx context.Context, cl *cluster, objs []flux.Object, opts wait.Options, format string, streams Streams) error {
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
	return printer.PrintPlan(streams.Out, format, steps)
}
