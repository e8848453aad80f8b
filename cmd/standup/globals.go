package main

import (
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/internal/printer/coldstart"
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
	// CommandLine is the command line as given to Run, for the incident
	// record.
	CommandLine []string
	// Contexts are every --context given: more than one names a fleet
	// (resume, crds, check).
	Contexts []string
	// FleetName is the cluster's name in a fleet run, "" otherwise.
	FleetName string
}

func globals(c *cli.Context) globalOptions {
	output := setAt(c, "output").String("output")
	if format, err := formats().Validate(commandPath(c), output); err == nil {
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
		CommandLine:    commandLine(c),
		Contexts:       setAt(c, "context").StringSlice("context"),
	}
}

// commandLine is the command line Run was given (app.Metadata).
func commandLine(c *cli.Context) []string {
	args, _ := c.App.Metadata[commandLineKey].([]string)
	return args
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
// "crds capture"; and "audit --from-cluster" or "audit --fix", which print
// other documents than audit.
func commandPath(c *cli.Context) string {
	var names []string
	for _, lc := range c.Lineage() {
		if lc.Command != nil && lc.Command.Name != c.App.Name { // the app's own root command
			names = append([]string{lc.Command.Name}, names...)
		}
	}
	path := strings.Join(names, " ")
	if path == "audit" {
		for _, mode := range auditModes {
			if c.Bool(mode) {
				return path + " --" + mode
			}
		}
	}
	return path
}

// auditModes are the flags of audit that make it print another document,
// each with its own formats in the printer registry ("audit --fix").
var auditModes = []string{"from-cluster", "fix"}

// Headings of the global flags in every command's help: the cluster flags
// apart, listed only by the commands that reach a cluster.
const (
	globalHeading  = "GLOBAL FLAGS"
	clusterHeading = "CLUSTER FLAGS"
)

// globalUse is what a command does with the global flags: the ones it
// takes after its name, and so lists in its help and completes. Before the
// command name every global flag is accepted, as kubectl and flux accept
// theirs, so that an alias such as `alias sp='standup --context prod'`
// runs every command; a command ignores those it has no use for.
type globalUse struct {
	// Output: -o.
	Output bool
	// Run: -q, --no-color and --timeout, for a command that does work.
	Run bool
	// Namespace is what -n does in the command, for its help; "" for a
	// command that reads every namespace whatever -n says: it takes
	// neither -n nor -A.
	Namespace string
	// Cluster: the command reaches a cluster, and takes the cluster flags,
	// --request-timeout and -v. ClusterWhen says when, if not always.
	Cluster     bool
	ClusterWhen string
}

// globalUseOf returns what the command at path does with the global flags;
// ok is false for a command not listed, which gets them all.
func globalUseOf(path string) (use globalUse, ok bool) {
	const allNamespaces = " (default: all namespaces)"
	switch path {
	case "version":
		return globalUse{Output: true}, true
	case "completion", "__man":
		return globalUse{}, true
	case "rehearse":
		// A checkout in, a prediction out, whole: nothing to narrow, and a
		// cluster only to read its measured durations.
		return globalUse{Output: true, Run: true, Cluster: true, ClusterWhen: "with --from-cluster"}, true
	case "report":
		// A file in, a report out: no cluster, nothing to narrow.
		return globalUse{Output: true, Run: true}, true
	case "tiers":
		return globalUse{Output: true, Run: true, Cluster: true, ClusterWhen: "without --path",
			Namespace: "show only the nodes in `NAMESPACE`, at their tiers in the whole graph; their dependencies elsewhere are marked (outside)" + allNamespaces}, true
	case "resume":
		return globalUse{Output: true, Run: true, Cluster: true,
			Namespace: "walk only the nodes in `NAMESPACE`, and look bare names up there; their dependencies elsewhere are waited on, never touched" + allNamespaces}, true
	case "crds":
		return globalUse{Output: true, Run: true, Cluster: true,
			Namespace: "diagnose and repair only the Kustomizations in `NAMESPACE`" + allNamespaces}, true
	case "crds capture":
		// Which CRDs no Kustomization applied is a question about every namespace.
		return globalUse{Output: true, Run: true, Cluster: true}, true
	case "audit":
		// The checkout is audited whole: -n would narrow nothing.
		return globalUse{Output: true, Run: true, Cluster: true, ClusterWhen: "with --from-cluster"}, true
	case "check":
		return globalUse{Output: true, Run: true, Cluster: true,
			Namespace: "check only the Kustomizations and HelmReleases in `NAMESPACE`; Flux's controllers and the CRDs wherever they are" + allNamespaces}, true
	}
	return globalUse{Output: true, Run: true, Cluster: true, Namespace: rootNamespaceUsage}, false
}

// rootNamespaceUsage is -n's help before a command is named.
const rootNamespaceUsage = "narrow what the command shows and walks to `NAMESPACE`; its help says how (default: all namespaces)"

// globalFlags are the flags of standup itself, before any command name:
// every global flag.
func globalFlags() []cli.Flag {
	return globalFlagsOf(globalUse{Output: true, Run: true, Cluster: true, Namespace: rootNamespaceUsage},
		"`FORMAT`: text (the default; table is its other name), json, and more per command (see its help)")
}

// globalFlagsOf are the global flags use takes, -o's help being output.
func globalFlagsOf(use globalUse, output string) []cli.Flag {
	var flags []cli.Flag
	if use.Namespace != "" {
		flags = append(flags,
			&cli.StringFlag{Name: "namespace", Aliases: []string{"n"}, Category: globalHeading, Usage: use.Namespace},
			&cli.BoolFlag{Name: "all-namespaces", Aliases: []string{"A"}, Category: globalHeading, Usage: "every namespace: the default (a cold start is the whole graph); wins over -n"})
	}
	if use.Output {
		flags = append(flags, &cli.StringFlag{Name: "output", Aliases: []string{"o"}, Category: globalHeading, Usage: "output " + output})
	}
	if use.Run {
		flags = append(flags,
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Category: globalHeading, Usage: "no progress or warnings on stderr"},
			&cli.BoolFlag{Name: "no-color", Category: globalHeading, Usage: "no colour (also NO_COLOR)"},
			&cli.DurationFlag{Name: "timeout", Category: globalHeading, Usage: "give up on the whole command after `DURATION`; exit 124 (default: none)"})
	}
	if use.Cluster {
		heading := clusterHeading
		if use.ClusterWhen != "" {
			heading += " (" + use.ClusterWhen + ")"
		}
		flags = append(flags, clusterFlagDefs(heading)...)
	}
	return flags
}

// shareGlobalFlags gives a command the global flags it uses (globalUseOf),
// so that they may follow its name too (`standup tiers -o json`), as
// kubectl's and flux's do; gives every command the same one-line usage
// errors; and has each command's -o list its formats. prefix is the parent
// command's path ("" for a top-level command).
func shareGlobalFlags(cmd *cli.Command, prefix string, onUsage cli.OnUsageErrorFunc) {
	path := strings.TrimSpace(prefix + " " + cmd.Name)
	use, _ := globalUseOf(path)
	cmd.Flags = append(cmd.Flags, globalFlagsOf(use, outputUsage(path))...)
	cmd.OnUsageError = onUsage
	for _, sub := range cmd.Subcommands {
		shareGlobalFlags(sub, path, onUsage)
	}
}

// formats is the printer registry: every command's -o values, those the
// printers of internal/printer write and those of the cold-start model's
// (coldstart), which is a package apart so that the live commands' printers
// do not import the linter.
func formats() printer.Registry { return printer.Commands().Join(coldstart.Commands()) }

// outputUsage is the help of -o for the command at path, after "output":
// its formats from the printer registry, the default first.
func outputUsage(path string) string {
	f, ok := formats().Of(path)
	if !ok {
		return "`FORMAT`"
	}
	usage := "`FORMAT`: " + strings.Join(f.Names, ", ")
	for _, mode := range auditModes {
		if other, ok := formats().Of(path + " --" + mode); ok {
			usage += "; with --" + mode + ": " + strings.Join(other.Names, ", ")
		}
	}
	return usage
}
