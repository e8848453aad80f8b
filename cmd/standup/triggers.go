package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/pkg/audit"
	"github.com/kubestandup/standup/pkg/catalog"
	"github.com/kubestandup/standup/pkg/crds"
)

// configFlag is --config of resume and crds: the standup.yaml whose
// runtimeCRDs, with the built-in catalog, let a walk prove a deadlock
// without the grace.
func configFlag(dest *string) cli.Flag {
	return &cli.StringFlag{Name: "config", TakesFile: true, Destination: dest,
		Usage: "`FILE` (a standup.yaml) declaring the runtime CRDs' triggers, to prove a deadlock at once when nothing can resolve it (default: standup.yaml at the root of the git checkout standup runs in, if any)"}
}

// loadTriggers reads what a walk knows of runtime CRDs: the standup.yaml
// of --config, else of the checkout standup runs in, and the catalog.
func loadTriggers(ctx context.Context, file string) (crds.Triggers, error) {
	cfg, read, err := audit.FindConfig(ctx, file, ".")
	if err != nil && file == "" {
		return nil, fmt.Errorf("%w (the checkout's standup.yaml, read for runtime CRD triggers: fix it, or name another file with --config)", err)
	}
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	return audit.RuntimeTriggers(cfg, read, cat), nil
}
