package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kubestandup/standup/internal/cliargs"
	"github.com/urfave/cli/v2"
)

// guard wraps every command's action. Before anything runs, positional
// words the command does not use are refused, -o is checked against the
// printer registry, and --timeout too (exit 2, no request made); then
// --timeout bounds the whole command, and an error caused by the deadline
// or by Ctrl-C gets its exit code whatever layer reported it.
func guard(cmd *cli.Command) {
	if cmd.Hidden { // standup's own tooling (__man), not a user's command
		return
	}
	for _, sub := range cmd.Subcommands {
		guard(sub)
	}
	inner := cmd.Action
	if inner == nil {
		return
	}
	cmd.Action = func(c *cli.Context) error {
		if err := cliargs.CheckArgs(c); err != nil {
			return &usageError{err}
		}
		if _, err := formats().Validate(commandPath(c), setAt(c, "output").String("output")); err != nil {
			return err
		}
		g := globals(c)
		if path := commandPath(c); len(g.Contexts) > 1 && !slices.Contains(fleetCommands, path) {
			return usageErrorf("%s reads one cluster: --context is given %d times (resume, crds and check take several)", path, len(g.Contexts))
		}
		if g.Timeout < 0 {
			return usageErrorf("--timeout %s: want a positive duration, or 0 for none", g.Timeout)
		}
		if _, err := requestTimeout(c); err != nil {
			return err
		}
		parent := c.Context
		if g.Timeout > 0 {
			var cancel context.CancelFunc
			c.Context, cancel = context.WithTimeout(parent, g.Timeout)
			defer cancel()
		}
		return stoppedBy(c.Context, parent, g, explainNoRepoRoot(c, inner(c)))
	}
}

// stoppedBy says when the command's deadline or an interrupt ended it, so
// that the error gets the exit code it deserves. An error that says what
// happened already (a walk prints its own summary) is kept.
func stoppedBy(ctx, parent context.Context, g globalOptions, err error) error {
	if err == nil || ctx.Err() == nil || isOutcome(err) {
		return err
	}
	if parent.Err() != nil {
		return fmt.Errorf("%w: %w", errInterrupted, err)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &timeoutError{after: g.Timeout, err: err}
	}
	return err
}
