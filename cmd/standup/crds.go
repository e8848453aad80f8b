package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/urfave/cli/v2"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// crdsOptions are the flags of `standup crds`.
type crdsOptions struct {
	Bundle      string
	DryRun      bool
	All         bool
	NodeTimeout time.Duration
}

func crdsCommand(streams Streams) *cli.Command {
	return &cli.Command{
		Name:  "crds",
		Usage: "find Kustomizations deadlocked on CRDs created at runtime, prove it, and create only the missing CRDs",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "crds", Usage: "CRD bundle directory (default: bootstrap/crds)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the diagnosis and what would be created; change nothing"},
			&cli.BoolFlag{Name: "all", Usage: "legacy fallback: create every bundle CRD absent from the cluster (never touches one that exists)"},
			&cli.DurationFlag{Name: "node-timeout", Usage: "fail a repaired Kustomization not Ready this long after standup asks it to reconcile (0: its spec.timeout)"},
		},
		Subcommands: []*cli.Command{captureCommand(streams)},
		Action: func(c *cli.Context) error {
			opts := crdsOptions{Bundle: c.String("crds"), DryRun: c.Bool("dry-run"), All: c.Bool("all"), NodeTimeout: c.Duration("node-timeout")}
			return runCRDs(c.Context, globals(c), opts, streams)
		},
	}
}

func runCRDs(ctx context.Context, g globalOptions, opts crdsOptions, streams Streams) error {
	bundle, err := loadBundle(opts.Bundle)
	if err != nil {
		return err
	}
	if bundle == nil {
		return usageErrorf("no CRD bundle: pass --crds DIR (or create bootstrap/crds); capture one with standup crds capture")
	}
	cl, err := connect(ctx, g)
	if err != nil {
		return err
	}
	objs, err := flux.ListKustomizations(ctx, cl.Client, g.Namespace)
	if err != nil {
		return err
	}
	if opts.All {
		return createAll(ctx, cl, bundle, opts.DryRun, streams)
	}
	present, err := listCRDs(ctx, cl)
	if err != nil {
		return err
	}
	lookup := crds.Presence(mapValues(present))
	var stuck []crds.Diagnosis
	for _, o := range objs {
		if d, ok := crds.Diagnose(o, lookup, bundle); ok && d.Deadlocked() {
			stuck = append(stuck, d)
		}
	}
	if len(stuck) == 0 {
		fmt.Fprintln(streams.Out, "no Kustomization is stuck on a missing CRD: nothing to do")
		return nil
	}
	var unresolved []error
	for _, d := range stuck {
		fmt.Fprintf(streams.Out, "%s\n", d.String())
		planned, err := crds.PlanPreApply(d, bundle)
		if err != nil {
			unresolved = append(unresolved, err)
			continue
		}
		for _, e := range planned {
			fmt.Fprintf(streams.Out, "  will create CustomResourceDefinition/%s (field manager %s) once the deadlock is proven\n", e.CRD.Name, crds.FieldManager)
		}
	}
	if len(unresolved) > 0 {
		return &exitError{code: ExitDeadlock, err: joinLines(unresolved)}
	}
	if opts.DryRun {
		fmt.Fprintln(streams.Out, "dry run: nothing changed")
		return nil
	}
	return repairStuck(ctx, g, cl, stuck, bundle, opts, streams)
}

// repairStuck walks only the stuck Kustomizations (and their ancestors, left
// untouched when ready): a reconcile standup requests proves each deadlock,
// the missing CRDs are created, and each is followed to Ready.
func repairStuck(ctx context.Context, g globalOptions, cl *cluster, stuck []crds.Diagnosis, bundle *crds.Bundle, opts crdsOptions, streams Streams) error {
	var names []string
	for _, d := range stuck {
		names = append(names, d.Kustomization.Namespace+"/"+d.Kustomization.Name)
	}
	out := newProgress(globalOptions{Output: "", Quiet: g.Quiet, NoColor: g.NoColor}, streams)
	loop := &wait.Loop{
		Dynamic: cl.Dynamic, Client: cl.Client, Namespace: g.Namespace, Bundle: bundle,
		Options: wait.Options{NoUnsuspend: true, Timeout: opts.NodeTimeout, Selection: tiers.Selection{Only: names}},
		OnEvent: out.Event,
	}
	summary, err := loop.Run(ctx)
	out.Close(summary)
	if g.Verbose {
		fmt.Fprintf(streams.Err, "API requests: %s\n", cl.Counter.Summary())
	}
	return resumeError(summary, err)
}

// createAll is `crds --all`: every bundle CRD absent from the cluster is
// created through crds.CreateAbsent, the pre-apply path of resume and crds,
// so it refuses a name conflict before creating anything and leaves alone
// every CRD that exists, including one an operator creates meanwhile.
func createAll(ctx context.Context, cl *cluster, bundle *crds.Bundle, dryRun bool, streams Streams) error {
	entries := bundle.All()
	if dryRun {
		existing, err := crds.ListCRDs(ctx, cl.Client)
		if err != nil {
			return err
		}
		plan, err := crds.PlanCreate(entries, existing)
		if err != nil {
			return err
		}
		for _, e := range plan.Create {
			fmt.Fprintf(streams.Out, "CustomResourceDefinition/%s would be created (from %s)\n", e.CRD.Name, e.File)
		}
		printExisting(streams, plan.Existing)
		fmt.Fprintln(streams.Out, "dry run: nothing changed")
		return nil
	}
	res, err := crds.CreateAbsent(ctx, cl.Client, entries, crds.ApplyOptions{Reason: "standup crds --all"})
	for _, n := range res.Created {
		fmt.Fprintf(streams.Out, "CustomResourceDefinition/%s created (field manager %s)\n", n, crds.FieldManager)
	}
	printExisting(streams, res.Existing)
	if err == nil && len(res.Created) == 0 {
		fmt.Fprintln(streams.Out, "every bundle CRD exists: nothing to do")
	}
	return err
}

func printExisting(streams Streams, names []string) {
	for _, n := range names {
		fmt.Fprintf(streams.Out, "CustomResourceDefinition/%s exists: left alone\n", n)
	}
}

// listCRDs reads every CRD fresh from the API server (never from cached discovery).
func listCRDs(ctx context.Context, cl *cluster) (map[string]*apiextensionsv1.CustomResourceDefinition, error) {
	list, err := crds.ListCRDs(ctx, cl.Client)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*apiextensionsv1.CustomResourceDefinition, len(list))
	for _, c := range list {
		out[c.Name] = c
	}
	return out, nil
}

func captureCommand(streams Streams) *cli.Command {
	return &cli.Command{
		Name:  "capture",
		Usage: "write the CRDs no Flux Kustomization applied (created by operators at runtime): the bundle for a stuck cluster",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Required: true, Usage: "directory to write one file per CRD into"},
			&cli.StringSliceFlag{Name: "group", Usage: "only CRDs of these API groups"},
		},
		Action: func(c *cli.Context) error {
			return runCapture(c.Context, globals(c), c.String("out"), c.StringSlice("group"), streams)
		},
	}
}

func runCapture(ctx context.Context, g globalOptions, dir string, groups []string, streams Streams) error {
	cl, err := connect(ctx, g)
	if err != nil {
		return err
	}
	objs, err := flux.ListKustomizations(ctx, cl.Client, "")
	if err != nil {
		return err
	}
	present, err := listCRDs(ctx, cl)
	if err != nil {
		return err
	}
	var names []string
	for n, c := range present {
		if len(groups) == 0 || contains(groups, c.Spec.Group) {
			names = append(names, n)
		}
	}
	var inventories [][]string
	for _, o := range objs {
		inventories = append(inventories, o.Inventory)
	}
	runtime := crds.RuntimeCRDs(names, inventories)
	sort.Strings(runtime)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	for _, n := range runtime {
		data, err := crds.MarshalCRD(crds.StripForCapture(present[n]))
		if err != nil {
			return fmt.Errorf("CustomResourceDefinition/%s: %w", n, err)
		}
		path := filepath.Join(dir, n+".yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return fmt.Errorf("capture: %w", err)
		}
		fmt.Fprintln(streams.Out, path)
	}
	if !g.Quiet {
		fmt.Fprintf(streams.Err, "captured %d CRDs that no Kustomization inventory lists\n", len(runtime))
	}
	return nil
}

func mapValues[K comparable, V any](m map[K]V) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
