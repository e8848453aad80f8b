package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-logr/logr"
	"github.com/urfave/cli/v2"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kubestandup/standup/internal/cliargs"
	"github.com/kubestandup/standup/internal/printer"
)

// Streams are the command's standard streams: stdout carries data, stderr
// carries progress and errors.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// Run is standup's whole program, minus the process exit. args includes the
// program name, as os.Args does.
func Run(ctx context.Context, args []string, streams Streams) error {
	app := newApp(streams)
	notFound := false
	app.CommandNotFound = func(c *cli.Context, name string) {
		fmt.Fprintf(streams.Err, "standup: unknown command %q (see standup --help)\n", name)
		notFound = true
	}
	err := app.RunContext(ctx, cliargs.Interspersed(app, args))
	if notFound && err == nil {
		return &reported{&usageError{errors.New("unknown command")}}
	}
	var ee cli.ExitCoder
	if errors.As(err, &ee) && !decided(err) {
		return usageErrorf("%s", strings.TrimSpace(err.Error()))
	}
	return err
}

// newApp builds the command tree: every command shares the global flags and
// is guarded (positional words and -o checked, --timeout applied).
func newApp(streams Streams) *cli.App {
	app := &cli.App{
		Name:                 "standup",
		Usage:                "bring a Flux cluster up in dependency order, and repair cold-start deadlocks",
		Version:              version,
		HideVersion:          true,
		Reader:               streams.In,
		Writer:               streams.Out,
		ErrWriter:            streams.Err,
		Flags:                globalFlags(),
		EnableBashCompletion: true,
		ExitErrHandler:       func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageErrorf("%v (see standup --help)", err)
		},
		Before: func(c *cli.Context) error {
			configureLogging(streams.Err, c.Bool("verbose"))
			return nil
		},
		Commands: []*cli.Command{
			versionCommand(streams),
			tiersCommand(streams),
			resumeCommand(streams),
			crdsCommand(streams),
			auditCommand(streams),
			checkCommand(streams),
		},
	}
	for _, cmd := range app.Commands {
		shareGlobalFlags(cmd, app.OnUsageError)
		guard(cmd)
	}
	return app
}

// guard wraps every command's action. Before anything runs, positional
// words the command does not use are refused, -o is checked against the
// printer registry, and --timeout too (exit 2, no request made); then
// --timeout bounds the whole command, and an error caused by the deadline
// or by Ctrl-C gets its exit code whatever layer reported it.
func guard(cmd *cli.Command) {
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
		if _, err := printer.ValidateFormat(commandPath(c), setAt(c, "output").String("output")); err != nil {
			return err
		}
		g := globals(c)
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
		return stoppedBy(c.Context, parent, g, inner(c))
	}
}

// stoppedBy says when the command's deadline or an interrupt ended it, so
// that the error gets the exit code it deserves. An error that says what
// happened already (a walk prints its own summary) is kept.
func stoppedBy(ctx, parent context.Context, g globalOptions, err error) error {
	if err == nil || ctx.Err() == nil || decided(err) {
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

// configureLogging silences controller-runtime and client-go unless -v.
func configureLogging(stderr io.Writer, verbose bool) {
	if !verbose {
		ctrllog.SetLogger(logr.Discard())
		klog.SetOutput(io.Discard)
		klog.LogToStderr(false)
		return
	}
	ctrllog.SetLogger(klog.NewKlogr())
	klog.SetOutput(stderr)
}
