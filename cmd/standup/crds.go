package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/urfave/cli/v2"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/kube"
	"github.com/kubestandup/standup/pkg/wait"
)

// crdsOptions are the flags of `standup crds`.
type crdsOptions struct {
	Bundle         string
	DryRun         bool
	All            bool
	ForceConflicts bool
}

func crdsCommand(streams Streams) *cli.Command {
	return &cli.Command{
		Name:  "crds",
		Usage: "find Kustomizations deadlocked on CRDs created at runtime, prove it, and pre-apply only the missing CRDs",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "crds", Usage: "CRD bundle directory (default: bootstrap/crds)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the diagnosis and what would be applied; change nothing"},
			&cli.BoolFlag{Name: "all", Usage: "legacy fallback: apply every bundle CRD absent from the cluster (never overwrites one that exists)"},
			&cli.BoolFlag{Name: "force-conflicts", Usage: "let the apply take fields another manager owns"},
		},
		Subcommands: []*cli.Command{captureCommand(streams)},
		Action: func(c *cli.Context) error {
			opts := crdsOptions{Bundle: c.String("crds"), DryRun: c.Bool("dry-run"), All: c.Bool("all"), ForceConflicts: c.Bool("force-conflicts")}
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
	cl, err := connect(g)
	if err != nil {
		return err
	}
	objs, err := flux.ListKustomizations(ctx, cl.Client, g.Namespace)
	if err != nil {
		return err
	}
	present, err := listCRDs(ctx, cl)
	if err != nil {
		return err
	}
	if opts.All {
		return applyAll(ctx, cl, bundle, present, opts, streams)
	}
	lookup := presenceLookup(present)
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
		for _, crd := range planned {
			fmt.Fprintf(streams.Out, "  will apply CustomResourceDefinition/%s (field manager %s) once the deadlock is proven\n", crd.Name, crds.FieldManager)
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
// the missing CRDs are pre-applied, and each is followed to Ready.
func repairStuck(ctx context.Context, g globalOptions, cl *cluster, stuck []crds.Diagnosis, bundle *crds.Bundle, opts crdsOptions, streams Streams) error {
	var names []string
	for _, d := range stuck {
		names = append(names, d.Kustomization.Namespace+"/"+d.Kustomization.Name)
	}
	out := newProgress(globalOptions{Output: "", Quiet: g.Quiet, NoColor: g.NoColor}, streams)
	loop := &wait.Loop{
		Dynamic: cl.Dynamic, Client: cl.Client, Namespace: g.Namespace, Bundle: bundle,
		Options: wait.Options{NoUnsuspend: true, Timeout: g.Timeout, Selection: wait.Selection{Only: names}},
		Apply:   crds.ApplyOptions{ForceConflicts: opts.ForceConflicts}, OnEvent: out.Event,
	}
	summary, err := loop.Run(ctx)
	out.Close(summary)
	if g.Verbose {
		fmt.Fprintf(streams.Err, "API requests: %s\n", cl.Counter.Summary())
	}
	return resumeError(summary, err)
}

func applyAll(ctx context.Context, cl *cluster, bundle *crds.Bundle, present map[string]*apiextensionsv1.CustomResourceDefinition, opts crdsOptions, streams Streams) error {
	var existing []*apiextensionsv1.CustomResourceDefinition
	var absent []crds.BundleEntry
	for _, c := range present {
		existing = append(existing, c)
	}
	for _, e := range bundle.All() {
		if _, ok := present[e.CRD.Name]; !ok {
			absent = append(absent, e)
		}
	}
	// Checked for the whole bundle first: nothing is applied if anything conflicts.
	if err := crds.CheckConflicts(absent, existing); err != nil {
		return err
	}
	applied := 0
	for _, e := range bundle.All() {
		if _, ok := present[e.CRD.Name]; ok {
			fmt.Fprintf(streams.Out, "CustomResourceDefinition/%s exists: left alone\n", e.CRD.Name)
			continue
		}
		if opts.DryRun {
			fmt.Fprintf(streams.Out, "CustomResourceDefinition/%s would be applied (from %s)\n", e.CRD.Name, e.File)
			continue
		}
		d := crds.Diagnosis{Missing: []crds.MissingType{{Group: e.CRD.Spec.Group, Kind: e.CRD.Spec.Names.Kind, GroupKnown: true}}}
		names, err := crds.PreApply(ctx, cl.Client, bundle, d, crds.ApplyOptions{ForceConflicts: opts.ForceConflicts, Reason: "standup crds --all"})
		if err != nil {
			return err
		}
		for _, n := range names {
			applied++
			fmt.Fprintf(streams.Out, "CustomResourceDefinition/%s applied (field manager %s)\n", n, crds.FieldManager)
		}
	}
	if applied == 0 && !opts.DryRun {
		fmt.Fprintln(streams.Out, "every bundle CRD exists: nothing to do")
	}
	return nil
}

// listCRDs reads every CRD fresh from the API server (never from cached discovery).
func listCRDs(ctx context.Context, cl *cluster) (map[string]*apiextensionsv1.CustomResourceDefinition, error) {
	list := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := cl.Client.List(ctx, list); err != nil {
		return nil, kube.Explain(err, "list", "customresourcedefinitions.apiextensions.k8s.io")
	}
	out := make(map[string]*apiextensionsv1.CustomResourceDefinition, len(list.Items))
	for i := range list.Items {
		out[list.Items[i].Name] = &list.Items[i]
	}
	return out, nil
}

func presenceLookup(present map[string]*apiextensionsv1.CustomResourceDefinition) crds.CRDLookup {
	byGK := map[schema.GroupKind]bool{}
	for _, c := range present {
		byGK[schema.GroupKind{Group: c.Spec.Group, Kind: c.Spec.Names.Kind}] = wait.CRDReady(c)
	}
	return func(gk schema.GroupKind) crds.CRDPresence {
		ready, ok := byGK[gk]
		switch {
		case !ok:
			return crds.CRDAbsent
		case ready:
			return crds.CRDEstablished
		}
		return crds.CRDPending
	}
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
	cl, err := connect(g)
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
