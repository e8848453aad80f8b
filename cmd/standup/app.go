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
// program name, as os.Args does: it says how standup was invoked (as
// kubectl-standup, help and errors say "kubectl standup").
func Run(ctx context.Context, args []string, streams Streams) error {
	arg0 := ""
	if len(args) > 0 {
		arg0 = args[0]
	}
	prog, bin := invocation(arg0)
	app := newApp(streams, prog, bin)
	app.Metadata = map[string]any{commandLineKey: args}
	notFound := false
	// `standup help NAME` for a NAME that is no command.
	app.CommandNotFound = func(c *cli.Context, name string) {
		fmt.Fprintf(streams.Err, "%s: %v\n", prog, unknownCommand(c, name))
		notFound = true
	}
	err := app.RunContext(ctx, cliargs.Interspersed(app, args))
	if notFound && err == nil {
		err = &printedError{&usageError{errors.New("unknown command")}}
	}
	var ee cli.ExitCoder
	if errors.As(err, &ee) && !isOutcome(err) {
		err = usageErrorf("%s", strings.TrimSpace(err.Error()))
	}
	if err != nil {
		return &invokedError{prog: prog, err: err}
	}
	return nil
}

// newApp builds the command tree: every command takes the global flags it
// uses, is guarded (positional words and -o checked, --timeout applied),
// and has its help written, wrapped to the width of stdout. prog is how
// the user invoked standup ("kubectl standup"), for help; bin the
// program's file name, for completion.
func newApp(streams Streams, prog, bin string) *cli.App {
	app := &cli.App{
		Name:        "standup",
		HelpName:    prog,
		Usage:       "bring a Flux cluster up in dependency order, and repair cold-start deadlocks",
		Version:     buildVersion(),
		HideVersion: true,
		Reader:      streams.In,
		Writer:      streams.Out,
		ErrWriter:   streams.Err,
		Flags: append(globalFlags(),
			// The root's own: commands take --help, not --version.
			&cli.BoolFlag{Name: "version", Usage: "print standup's version (as the version command does) and exit"}),
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usageErrorOf(c, err)
		},
		Before: func(c *cli.Context) error {
			configureLogging(streams.Err, c.Bool("verbose"))
			return nil
		},
		Action: func(c *cli.Context) error {
			return rootAction(c, func() error {
				return printer.PrintVersion(streams.Out, printer.FormatText, currentVersion())
			})
		},
		Commands: []*cli.Command{
			// version.go is the release's: its examples are given here.
			withExamples(versionCommand(streams), prog,
				"# the version, and the Flux APIs and releases it is tested with",
				"standup version",
				"# for a script",
				"standup version -o json | jq -r .version"),
			tiersCommand(streams, prog),
			resumeCommand(streams, prog),
			crdsCommand(streams, prog),
			auditCommand(streams, prog),
			checkCommand(streams, prog),
			rehearseCommand(streams, prog),
			reportCommand(streams, prog),
			completionCommand(streams, prog, bin),
			manCommand(streams),
		},
	}
	width := helpWidth(streams.Out)
	app.CustomAppHelpTemplate = rootHelp(app, prog, width,
		"# the tier order of a git checkout, no cluster needed",
		"standup tiers --path clusters/prod",
		"# what a walk of the live graph would do now, then the walk",
		"standup resume --dry-run",
		"standup resume",
		"# find the Kustomizations deadlocked on a missing CRD, and repair them",
		"standup crds --dry-run",
		"standup crds",
		"# audit a checkout before merge, for code scanning",
		"standup audit --path clusters/prod -o sarif > audit.sarif",
	)
	for _, cmd := range app.Commands {
		shareGlobalFlags(cmd, "", app.OnUsageError)
		guard(cmd)
		writeHelp(cmd, "", prog, width)
	}
	return app
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
