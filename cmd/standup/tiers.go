package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render"
	"github.com/kubestandup/standup/pkg/tiers"
)

// tiersOptions are the flags of `standup tiers`.
type tiersOptions struct {
	Path         string
	RepoRoot     string
	AllowMissing bool
	Kinds        []string
}

func tiersCommand(streams Streams) *cli.Command {
	return &cli.Command{
		Name:  "tiers",
		Usage: "print the tier order of the Flux graph, live or from a git checkout (--path)",
		Description: "Derives tiers from spec.dependsOn: tier 0 has no dependencies, every other node's tier is one more\n" +
			"than the highest tier among its dependencies. Output formats: " + strings.Join(printer.TiersFormats(), ", ") + ".",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "path", Usage: "read the graph offline from this directory of a git checkout (e.g. clusters/prod)"},
			&cli.StringFlag{Name: "repo-root", Usage: "repository root that spec.path is relative to (default: nearest ancestor with .git or standup.yaml)"},
			&cli.BoolFlag{Name: "allow-missing", Usage: "treat dependencies on absent objects as external, with a warning"},
			&cli.StringSliceFlag{Name: "kinds", Value: cli.NewStringSlice("Kustomization"), Usage: "Flux kinds to graph: Kustomization, HelmRelease"},
		},
		Action: func(c *cli.Context) error {
			opts := tiersOptions{
				Path: c.String("path"), RepoRoot: c.String("repo-root"),
				AllowMissing: c.Bool("allow-missing"), Kinds: c.StringSlice("kinds"),
			}
			return runTiers(c.Context, globals(c), opts, streams)
		},
	}
}

func runTiers(ctx context.Context, g globalOptions, opts tiersOptions, streams Streams) error {
	format := g.Output
	if format == "" {
		format = printer.FormatTable
	}
	if !contains(printer.TiersFormats(), format) {
		return usageErrorf("tiers: unknown output format %q (want one of: %s)", format, strings.Join(printer.TiersFormats(), ", "))
	}
	if err := checkKinds(opts.Kinds); err != nil {
		return err
	}
	source, objs, warnings, failed, err := loadObjects(ctx, g, opts)
	if err != nil {
		return err
	}
	nodes := make([]tiers.Node, len(objs))
	for i, o := range objs {
		nodes[i] = o.Node
	}
	graph, err := tiers.Build(nodes, tiers.Options{AllowMissing: opts.AllowMissing})
	if err != nil {
		var missing *tiers.MissingError
		if errors.As(err, &missing) && opts.Path == "" {
			return fmt.Errorf("%w; on a cold cluster the root Kustomization may not have created them yet: pass --allow-missing to print the tiers anyway", err)
		}
		if errors.As(err, &missing) && failed != nil {
			// What the unrendered Kustomizations apply is missing too.
			return withCode(ExitFailure, fmt.Errorf("%w (dependsOn in %s); it may be among what these apply:\n%w", err, strings.Join(dependentFiles(objs, missing), ", "), failed))
		}
		if errors.As(err, &missing) {
			return fmt.Errorf("%w (dependsOn in %s): fix the name, or pass --allow-missing to treat it as external", err, strings.Join(dependentFiles(objs, missing), ", "))
		}
		return err
	}
	if !g.Quiet {
		for _, w := range warnings {
			fmt.Fprintf(streams.Err, "warning: %s\n", w)
		}
		for _, m := range graph.Missing() {
			fmt.Fprintf(streams.Err, "warning: %s (treated as external)\n", m)
		}
	}
	// The report lists missing dependencies apart. The table is read on the
	// terminal that has just shown the warnings: it does not repeat them.
	if format == printer.FormatTable {
		warnings = nil
	}
	report := printer.NewTiersReport(source, graph, objs, warnings)
	if err := printer.PrintTiers(streams.Out, format, report, printer.Options{Color: useColor(g, streams.Out)}); err != nil {
		return err
	}
	// What could be rendered is printed; the Kustomizations that could not
	// make the run a failure.
	return withCode(ExitFailure, failed)
}

// buildFailures joins the Kustomizations a render left unrendered, one per
// line, each naming the file refused; nil when there are none.
func buildFailures(failed []render.BuildFailure) error {
	if len(failed) == 0 {
		return nil
	}
	errs := make([]error, len(failed))
	for i, f := range failed {
		errs[i] = f
	}
	return joinLines(errs)
}

// dependentFiles names the files that declare the dangling dependencies.
func dependentFiles(objs []flux.Object, missing *tiers.MissingError) []string {
	file := map[tiers.ID]string{}
	for _, o := range objs {
		file[o.ID] = o.File
	}
	var files []string
	for _, m := range missing.Missing {
		if f := file[m.Dependent]; f != "" && !contains(files, f) {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return []string{"the checkout"}
	}
	return files
}

// loadObjects reads the Flux objects from the cluster or, with --path, from
// files. failed names the Kustomizations that --path left unrendered
// because they read a file over a limit (nil when none did).
func loadObjects(ctx context.Context, g globalOptions, opts tiersOptions) (source string, objs []flux.Object, warnings []string, failed error, err error) {
	if opts.Path != "" {
		res, err := render.Load(ctx, render.Options{Path: opts.Path, RepoRoot: opts.RepoRoot, Kinds: opts.Kinds})
		if err != nil {
			return "", nil, nil, nil, err
		}
		objs := res.Objects
		if g.Namespace != "" {
			objs = inNamespace(objs, g.Namespace)
		}
		return opts.Path, objs, res.Warnings, buildFailures(res.Failed), nil
	}
	cl, err := connect(ctx, g)
	if err != nil {
		return "", nil, nil, nil, err
	}
	if contains(opts.Kinds, "Kustomization") {
		if objs, err = flux.ListKustomizations(ctx, cl.Client, g.Namespace); err != nil {
			return "", nil, nil, nil, err
		}
	}
	if contains(opts.Kinds, "HelmRelease") {
		releases, err := flux.ListHelmReleases(ctx, cl.Client, g.Namespace)
		switch {
		case errors.Is(err, flux.ErrHelmNotInstalled):
			warnings = append(warnings, err.Error()+": no HelmReleases listed")
		case err != nil:
			return "", nil, nil, nil, err
		}
		objs = append(objs, releases...)
	}
	return "cluster " + cl.Host, objs, warnings, nil, nil
}

func inNamespace(objs []flux.Object, ns string) []flux.Object {
	var out []flux.Object
	for _, o := range objs {
		if o.ID.Namespace == ns {
			out = append(out, o)
		}
	}
	return out
}

func checkKinds(kinds []string) error {
	for _, k := range kinds {
		if k != "Kustomization" && k != "HelmRelease" {
			return usageErrorf("--kinds: unknown kind %q (want Kustomization or HelmRelease)", k)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
