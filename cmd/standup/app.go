package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/kubestandup/standup/pkg/kube"
	"github.com/urfave/cli/v2"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// Streams are the command's standard streams: stdout carries data, stderr
// carries progress and errors.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// globalOptions are the flags every command shares, read from the context.
type globalOptions struct {
	Kubeconfig string
	Context    string
	Namespace  string
	Output     string
	Quiet      bool
	NoColor    bool
	Timeout    time.Duration
	// RequestTimeout bounds one API request other than a watch.
	RequestTimeout time.Duration
	Verbose        bool
}

func globals(c *cli.Context) globalOptions {
	return globalOptions{
		Kubeconfig:     setAt(c, "kubeconfig").String("kubeconfig"),
		Context:        setAt(c, "context").String("context"),
		Namespace:      setAt(c, "namespace").String("namespace"),
		Output:         setAt(c, "output").String("output"),
		Quiet:          setAt(c, "quiet").Bool("quiet"),
		NoColor:        setAt(c, "no-color").Bool("no-color") || os.Getenv("NO_COLOR") != "",
		Timeout:        setAt(c, "timeout").Duration("timeout"),
		RequestTimeout: setAt(c, "request-timeout").Duration("request-timeout"),
		Verbose:        setAt(c, "verbose").Bool("verbose"),
	}
}

// setAt returns the innermost context where a global flag was given on the
// command line (before or after the command name), else c itself, whose
// value then comes from the environment or the default.
func setAt(c *cli.Context, name string) *cli.Context {
	for _, lc := range c.Lineage() {
		if lc.Command == nil && lc.App == nil {
			continue
		}
		for _, set := range lc.LocalFlagNames() {
			if set == name {
				return lc
			}
		}
	}
	return c
}

func globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "kubeconfig", EnvVars: []string{"KUBECONFIG"}, Usage: "path to the kubeconfig file"},
		&cli.StringFlag{Name: "context", Usage: "kubeconfig context to use"},
		&cli.StringFlag{Name: "namespace", Aliases: []string{"n"}, Usage: "only this namespace (default: all namespaces)"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output format (per command; see its help)"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on stderr"},
		&cli.BoolFlag{Name: "no-color", Usage: "no colour (also NO_COLOR)"},
		&cli.DurationFlag{Name: "timeout", Usage: "give up on the whole command after this long; exit 124 (0: no limit)"},
		&cli.DurationFlag{Name: "request-timeout", Usage: "give up on one API request (not a watch) after this long", Value: kube.DefaultRequestTimeout},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "log client and controller-runtime details, count API requests"},
	}
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
	err := app.RunContext(ctx, interspersed(app, args))
	if notFound && err == nil {
		return &exitError{code: ExitUsage, err: errors.New("unknown command"), silent: true}
	}
	var ee cli.ExitCoder
	if errors.As(err, &ee) && !isOurs(err) {
		return usageErrorf("%s", strings.TrimSpace(err.Error()))
	}
	return err
}

// newApp builds the command tree: every command shares the global flags and
// is guarded (positional words checked, --timeout applied).
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

func isOurs(err error) bool {
	var ee *exitError
	return errors.As(err, &ee)
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

// shareGlobalFlags lets global flags follow the command too (`standup tiers
// -o json`), as kubectl's and flux's do, and gives every command the same
// one-line usage errors.
func shareGlobalFlags(cmd *cli.Command, onUsage cli.OnUsageErrorFunc) {
	cmd.Flags = append(cmd.Flags, globalFlags()...)
	cmd.OnUsageError = onUsage
	for _, sub := range cmd.Subcommands {
		shareGlobalFlags(sub, onUsage)
	}
}
