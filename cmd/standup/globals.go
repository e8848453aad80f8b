package main

import (
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/kube"
)

// globalOptions are the flags every command shares, read from the context,
// and the name standup was invoked by.
type globalOptions struct {
	// Prog is the command line's program as the user typed it: "standup",
	// "kubectl standup" or "flux standup", for the hints in messages.
	Prog string
	// Cluster are kubectl's flags that select the cluster and log in.
	Cluster kube.ClusterFlags
	// Namespace narrows what is shown and walked; "" is every namespace
	// (the default, and -A).
	Namespace string
	// Output is the -o format, already checked: the command's default when
	// -o is not given.
	Output string
	Quiet  bool
	// NoColor is --no-color; printer.UseColor also honours NO_COLOR.
	NoColor bool
	Timeout time.Duration
	// RequestTimeout bounds one API request other than a watch.
	RequestTimeout time.Duration
	Verbose        bool
}

func globals(c *cli.Context) globalOptions {
	output := setAt(c, "output").String("output")
	if format, err := printer.ValidateFormat(commandPath(c), output); err == nil {
		output = format // guard refused any other
	}
	requestTimeout, _ := requestTimeout(c) // guard refused a bad one
	namespace := setAt(c, "namespace").String("namespace")
	if setAt(c, "all-namespaces").Bool("all-namespaces") {
		namespace = "" // -A wins over -n, as in kubectl
	}
	return globalOptions{
		Prog:           c.App.HelpName,
		Cluster:        clusterFlags(c),
		Namespace:      namespace,
		Output:         output,
		Quiet:          setAt(c, "quiet").Bool("quiet"),
		NoColor:        setAt(c, "no-color").Bool("no-color"),
		Timeout:        setAt(c, "timeout").Duration("timeout"),
		RequestTimeout: requestTimeout,
		Verbose:        setAt(c, "verbose").Bool("verbose"),
	}
}

// useColor decides colour for w: a terminal, and neither --no-color nor NO_COLOR.
func useColor(g globalOptions, w io.Writer) bool {
	return printer.UseColor(w, g.NoColor)
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

// commandPath names the running command as the printer registry does:
// "crds capture"; and "audit --from-cluster", which prints another
// document than audit.
func commandPath(c *cli.Context) string {
	var names []string
	for _, lc := range c.Lineage() {
		if lc.Command != nil && lc.Command.Name != c.App.Name { // the app's own root command
			names = append([]string{lc.Command.Name}, names...)
		}
	}
	path := strings.Join(names, " ")
	if path == "audit" && c.Bool("from-cluster") {
		path += " --from-cluster"
	}
	return path
}

func globalFlags() []cli.Flag {
	return append(clusterFlagDefs(), []cli.Flag{
		&cli.StringFlag{Name: "namespace", Aliases: []string{"n"}, Usage: "show and walk only this namespace; its dependencies elsewhere are still waited on (default: all namespaces)"},
		&cli.BoolFlag{Name: "all-namespaces", Aliases: []string{"A"}, Usage: "all namespaces (the default: a cold start is the whole graph)"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output format: text (the default; table is its other name), json, and more per command (see its help)"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on stderr"},
		&cli.BoolFlag{Name: "no-color", Usage: "no colour (also NO_COLOR)"},
		&cli.DurationFlag{Name: "timeout", Usage: "give up on the whole command after this long; exit 124 (0: no limit)"},
		&cli.StringFlag{Name: "request-timeout", Usage: "give up on one API request (not a watch) after this long: 30s, 2m, seconds, or 0 for none", Value: kube.DefaultRequestTimeout.String()},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "log client and controller-runtime details, count API requests"},
	}...)
}

// shareGlobalFlags lets global flags follow the command too (`standup tiers
// -o json`), as kubectl's and flux's do, gives every command the same
// one-line usage errors, and has each command's -o list its formats.
// prefix is the parent command's path ("" for a top-level command).
func shareGlobalFlags(cmd *cli.Command, prefix string, onUsage cli.OnUsageErrorFunc) {
	path := strings.TrimSpace(prefix + " " + cmd.Name)
	flags := globalFlags()
	for _, f := range flags {
		if o, ok := f.(*cli.StringFlag); ok && o.Name == "output" {
			o.Usage = outputUsage(path)
		}
	}
	cmd.Flags = append(cmd.Flags, flags...)
	cmd.OnUsageError = onUsage
	for _, sub := range cmd.Subcommands {
		shareGlobalFlags(sub, path, onUsage)
	}
}

// outputUsage is the help of -o for the command at path: its formats from
// the printer registry, the default first.
func outputUsage(path string) string {
	f, ok := printer.FormatsOf(path)
	if !ok {
		return "output format"
	}
	usage := "output format: " + strings.Join(f.Names, ", ")
	if from, ok := printer.FormatsOf(path + " --from-cluster"); ok {
		usage += "; with --from-cluster: " + strings.Join(from.Names, ", ")
	}
	return usage
}
