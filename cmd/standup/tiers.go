package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// tiersOptions are the flags of `standup tiers`.
type tiersOptions struct {
	Path         string
	RepoRoot     string
	AllowMissing bool
	NoHeaders    bool
	Kinds        cli.StringSlice
	KindsSet     bool // --kinds given, not defaulted
}

func tiersCommand(streams Streams, prog string) *cli.Command {
	opts := &tiersOptions{}
	return withExamples(&cli.Command{
		Name:  "tiers",
		Usage: "print the tier order of the Flux graph, live or from a git checkout (--path)",
		Description: "Derives tiers from spec.dependsOn: tier 0 has no dependencies, every other node's tier is one more\n" +
			"than the highest tier among its dependencies. With -n NS, shows NS's nodes at their tiers in the whole\n" +
			"graph, their dependencies in other namespaces marked (outside). Output formats: " + strings.Join(printer.TiersFormats(), ", ") + ".",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "path", TakesFile: true, Destination: &opts.Path, Usage: "read the graph offline from this `DIR` of a git checkout (e.g. clusters/prod)"},
			&cli.StringFlag{Name: "repo-root", TakesFile: true, Destination: &opts.RepoRoot, Usage: "repository root `DIR` that spec.path is relative to (default: nearest ancestor with .git or standup.yaml)"},
			&cli.BoolFlag{Name: "allow-missing", Destination: &opts.AllowMissing, Usage: "treat dependencies on absent objects as external, with a warning"},
			&cli.BoolFlag{Name: "no-headers", Destination: &opts.NoHeaders, Usage: "text: leave out the header row"},
			&cli.StringSliceFlag{Name: "kinds", Destination: &opts.Kinds, Value: cli.NewStringSlice(flux.KindKustomization, flux.KindHelmRelease), Usage: "Flux kinds to graph, the ones resume walks: ks (Kustomization), hr (HelmRelease), rset (the Flux Operator's ResourceSet), in any case"},
		},
		Action: func(c *cli.Context) error {
			opts.KindsSet = c.IsSet("kinds")
			return runTiers(c.Context, globals(c), *opts, streams)
		},
	}, prog,
		"# the tier order of a git checkout, no cluster needed",
		"standup tiers --path clusters/prod",
		"# the live graph with each Kustomization's and HelmRelease's Ready state",
		"standup tiers",
		"# Kustomizations alone",
		"standup tiers --path clusters/prod --kinds ks",
		"# the names in tier 2, for a script",
		"standup tiers --path clusters/prod --no-headers | awk '$1 == 2 {print $2}'",
		"# a picture of the graph",
		"standup tiers --path clusters/prod -o dot | dot -Tsvg > tiers.svg",
	)
}

func runTiers(ctx context.Context, g globalOptions, opts tiersOptions, streams Streams) error {
	kinds, err := flux.ParseKinds(opts.Kinds.Value())
	if err != nil {
		return usageErrorf("--kinds: %v", err)
	}
	loaded, err := loadObjects(ctx, g, opts.Path, opts.RepoRoot, kinds, opts.KindsSet)
	if err != nil {
		return err
	}
	// -n narrows the view, not the graph: NS's nodes keep their ancestors
	// elsewhere, so their tiers are those of a cold start.
	// What a Kustomization that failed alone applies is unknown: a
	// dependsOn on it dangles here, not in Flux. The rest is printed, with
	// it as external, and the failure fails the run.
	allowMissing := opts.AllowMissing || loaded.failed != nil
	nodes := tiers.Scope(flux.Nodes(loaded.objs), g.Namespace)
	graph, err := tiers.Build(nodes, tiers.Options{AllowMissing: allowMissing})
	if errors.As(err, new(*tiers.CycleError)) && (g.Output == printer.FormatDot || g.Output == printer.FormatMermaid) {
		return drawCycles(g, nodes, loaded, explainMissing(err, opts.Path, loaded), streams)
	}
	if err := explainMissing(err, opts.Path, loaded); err != nil {
		return err
	}
	if !g.Quiet {
		if err := printer.PrintRenderWarnings(streams.Err, loaded.warnings, g.Verbose); err != nil {
			return err
		}
		external := "treated as external"
		if loaded.failed != nil {
			external += "; it may be among what the Kustomizations not rendered apply"
		}
		for _, m := range graph.Missing() {
			fmt.Fprintf(streams.Err, "warning: %s (%s)\n", m, external)
		}
	}
	report := printer.NewTiersReport(loaded.source, graph, loaded.objs, loaded.warnings).Narrowed(g.Namespace)
	if err := printer.PrintTiers(streams.Out, g.Output, report, printer.Options{Color: useColor(g, streams.Out), NoHeaders: opts.NoHeaders}); err != nil {
		return err
	}
	// The table's footer is for people: stdout keeps the rows alone. A run
	// that failed ends with its error alone, not a count of what it read.
	if g.Output == printer.FormatText && !g.Quiet && loaded.failed == nil {
		if err := printer.PrintTiersFooter(streams.Err, report, printer.Options{Color: useColor(g, streams.Err)}); err != nil {
			return err
		}
	}
	// What could be rendered is printed; the Kustomizations that could not
	// make the run a failure.
	return loaded.failed
}

// drawCycles writes the picture of a graph refused for its dependency
// cycles, the cycles in red (tiers.BreakCycles, printer WithCycles), and
// returns err, the refusal: the picture on stdout, the error line on
// stderr, exit 4. The picture shows a missing dependency as external,
// whatever --allow-missing says: err names it.
func drawCycles(g globalOptions, nodes []tiers.Node, loaded tiersInput, err error, streams Streams) error {
	graph, cycles, buildErr := tiers.BreakCycles(nodes, tiers.Options{AllowMissing: true})
	if buildErr != nil {
		return err
	}
	report := printer.NewTiersReport(loaded.source, graph, loaded.objs, loaded.warnings).WithCycles(cycles).Narrowed(g.Namespace)
	if printErr := printer.PrintTiers(streams.Out, g.Output, report, printer.Options{}); printErr != nil {
		return errors.Join(err, printErr)
	}
	return err
}

// explainMissing says where a dangling dependsOn is declared and what to
// do about it; other errors are returned as they are.
func explainMissing(err error, path string, loaded tiersInput) error {
	var missing *tiers.MissingError
	if !errors.As(err, &missing) {
		return err
	}
	files := strings.Join(flux.DeclaringFiles(loaded.objs, missing.Missing), ", ")
	if files == "" {
		files = "the checkout"
	}
	if path == "" {
		return fmt.Errorf("%w; on a cold cluster the root Kustomization may not have created them yet: pass --allow-missing to print the tiers anyway", err)
	}
	return fmt.Errorf("%w (dependsOn in %s): fix the name, or pass --allow-missing to treat it as external", err, files)
}
