package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
}

func tiersCommand(streams Streams, prog string) *cli.Command {
	opts := &tiersOptions{}
	return withExamples(&cli.Command{
		Name:  "tiers",
		Usage: "print the tier order of the Flux graph, live or from a git checkout (--path)",
		Description: "Derives tiers from spec.dependsOn: tier 0 has no dependencies, every other node's tier is one more\n" +
			"than the highest tier among its dependencies. Output formats: " + strings.Join(printer.TiersFormats(), ", ") + ".",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "path", TakesFile: true, Destination: &opts.Path, Usage: "read the graph offline from this directory of a git checkout (e.g. clusters/prod)"},
			&cli.StringFlag{Name: "repo-root", TakesFile: true, Destination: &opts.RepoRoot, Usage: "repository root that spec.path is relative to (default: nearest ancestor with .git or standup.yaml)"},
			&cli.BoolFlag{Name: "allow-missing", Destination: &opts.AllowMissing, Usage: "treat dependencies on absent objects as external, with a warning"},
			&cli.BoolFlag{Name: "no-headers", Destination: &opts.NoHeaders, Usage: "text: leave out the header row"},
			&cli.StringSliceFlag{Name: "kinds", Destination: &opts.Kinds, Value: cli.NewStringSlice(flux.KindKustomization), Usage: "Flux kinds to graph: ks (Kustomization), hr (HelmRelease), in any case"},
		},
		Action: func(c *cli.Context) error { return runTiers(c.Context, globals(c), *opts, streams) },
	}, prog,
		"# the tier order of a git checkout, no cluster needed",
		"standup tiers --path clusters/prod",
		"# the live graph with each Kustomization's Ready state, HelmReleases too",
		"standup tiers --kinds ks,hr",
		"# the names in tier 2, for a script",
		"standup tiers --path clusters/prod --no-headers | awk '$1 == 2 {print $2}'",
		"# a picture of the graph",
		"standup tiers --path clusters/prod -o dot | dot -Tsvg > tiers.svg",
	)
}

func runTiers(ctx context.Context, g globalOptions, opts tiersOptions, streams Streams) error {
	kinds, err := parseKinds(opts.Kinds.Value())
	if err != nil {
		return err
	}
	loaded, err := loadObjects(ctx, g, opts.Path, opts.RepoRoot, kinds)
	if err != nil {
		return err
	}
	nodes := make([]tiers.Node, len(loaded.objs))
	for i, o := range loaded.objs {
		nodes[i] = o.Node
	}
	graph, err := tiers.Build(nodes, tiers.Options{AllowMissing: opts.AllowMissing})
	var missing *tiers.MissingError
	switch {
	case errors.As(err, &missing) && opts.Path == "":
		return fmt.Errorf("%w; on a cold cluster the root Kustomization may not have created them yet: pass --allow-missing to print the tiers anyway", err)
	case errors.As(err, &missing) && loaded.failed != nil:
		// What the unrendered Kustomizations apply is missing too.
		return fmt.Errorf("%w (dependsOn in %s); it may be among what these apply:\n%w", err, strings.Join(dependentFiles(loaded.objs, missing), ", "), loaded.failed)
	case errors.As(err, &missing):
		return fmt.Errorf("%w (dependsOn in %s): fix the name, or pass --allow-missing to treat it as external", err, strings.Join(dependentFiles(loaded.objs, missing), ", "))
	case err != nil:
		return err
	}
	if !g.Quiet {
		for _, w := range loaded.warnings {
			fmt.Fprintf(streams.Err, "warning: %s\n", w)
		}
		for _, m := range graph.Missing() {
			fmt.Fprintf(streams.Err, "warning: %s (treated as external)\n", m)
		}
	}
	report := printer.NewTiersReport(loaded.source, graph, loaded.objs, loaded.warnings)
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

// dependentFiles names the files that declare the dangling dependencies.
func dependentFiles(objs []flux.Object, missing *tiers.MissingError) []string {
	file := map[tiers.ID]string{}
	for _, o := range objs {
		file[o.ID] = o.File
	}
	var files []string
	for _, m := range missing.Missing {
		if f := file[m.Dependent]; f != "" && !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return []string{"the checkout"}
	}
	return files
}
