package main

import (
	"context"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/pkg/catalog"
	"github.com/kubestandup/standup/pkg/config"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/wait"
)

// configFlag is --config of resume and crds: the standup.yaml whose
// runtimeCRDs, with the built-in catalog, let a walk prove a deadlock at
// once, and tell which trigger objects show an operator's progress.
func configFlag(dest *string) cli.Flag {
	return &cli.StringFlag{Name: "config", TakesFile: true, Destination: dest,
		Usage: "`FILE` (a standup.yaml) declaring the runtime CRDs' triggers, to prove a deadlock at once when nothing can resolve it (default: standup.yaml at the root of the git checkout standup runs in, if any)"}
}

// operatorWait is the flags of resume and crds that bound a wait for an
// operator that may still create a missing CRD (wait.Options).
type operatorWait struct {
	Timeout, Quiet time.Duration
}

// operatorTimeoutFlag is --operator-timeout.
func operatorTimeoutFlag(o *operatorWait) cli.Flag {
	return &cli.DurationFlag{Name: "operator-timeout", Destination: &o.Timeout,
		Usage: "when a deadlock is not certain, wait at most `DURATION` for an operator that shows progress to create the missing CRD (0: the trigger's figure in standup.yaml or the catalog, else " + wait.DefaultOperatorTimeout.String() + ")"}
}

// operatorQuietFlag is --operator-quiet.
func operatorQuietFlag(o *operatorWait) cli.Flag {
	return &cli.DurationFlag{Name: "operator-quiet", Destination: &o.Quiet, Value: wait.DefaultOperatorQuiet,
		Usage: "stop waiting for an operator after `DURATION` without progress (its trigger objects' conditions, its Deployment's rollout), and treat the deadlock as one"}
}

// check refuses a negative timeout or a quiet window that is not positive,
// before anything is read.
func (o operatorWait) check() error {
	switch {
	case o.Timeout < 0:
		return usageErrorf("--operator-timeout %s: want a duration, or 0 for the trigger's own", o.Timeout)
	case o.Quiet <= 0:
		return usageErrorf("--operator-quiet %s: want a positive duration", o.Quiet)
	}
	return nil
}

// set sets the flags in opts.
func (o operatorWait) set(opts *wait.Options) {
	opts.OperatorTimeout, opts.OperatorQuiet = o.Timeout, o.Quiet
}

// loadTriggers reads what a walk knows of runtime CRDs: the standup.yaml
// of --config, else of the checkout standup runs in, and the catalog.
func loadTriggers(ctx context.Context, file string) (crds.Triggers, error) {
	cfg, read, err := config.Find(ctx, file, ".")
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
	return config.RuntimeTriggers(cfg, read, cat), nil
}
