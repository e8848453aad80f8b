package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/kube"
	"github.com/kubestandup/standup/pkg/tiers"
)

// checkOptions are the flags of `standup check`.
type checkOptions struct {
	Ready []string
	CRDs  string
}

// Flux's own install: its namespace and the label its controllers carry (as `flux check` selects them).
const (
	fluxNamespace    = "flux-system"
	fluxPartOfLabel  = "app.kubernetes.io/part-of"
	fluxPartOfValue  = "flux"
	kustomizationCRD = "kustomizations.kustomize.toolkit.fluxcd.io"
)

func checkCommand(streams Streams) *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "preflight: Flux installed and running, nothing suspended or deadlocked, named Kustomizations Ready at their source's revision",
		Description: "Exits 0 only when every check holds, else 1. -o json prints the report described in docs/check.md.\n" +
			"Before a change that moves objects out of a Kustomization, name it: standup check --ready platform-config",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "ready", Usage: "these Kustomizations (NAME or NAMESPACE/NAME) must be Ready at their source's current revision"},
			&cli.StringFlag{Name: "crds", Usage: "CRD bundle directory to validate (default: bootstrap/crds if it exists)"},
		},
		Action: func(c *cli.Context) error {
			return runCheck(c.Context, globals(c), checkOptions{Ready: c.StringSlice("ready"), CRDs: c.String("crds")}, streams)
		},
	}
}

func runCheck(ctx context.Context, g globalOptions, opts checkOptions, streams Streams) error {
	if g.Output != "" && g.Output != "text" && g.Output != "json" {
		return usageErrorf("check: unknown output format %q (want text or json)", g.Output)
	}
	cl, err := connect(ctx, g)
	if err != nil {
		return err
	}
	facts, err := gatherCheckFacts(ctx, cl, g.Namespace, opts)
	if err != nil {
		return err
	}
	report := evaluateCheck(facts, opts.Ready)
	if g.Output == "json" {
		enc := json.NewEncoder(streams.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report); err != nil {
			return err
		}
	} else {
		printCheck(streams.Out, report, printer.NewStyles(streams.Out, useColor(g, streams.Out)))
	}
	if g.Verbose {
		fmt.Fprintf(streams.Err, "API requests: %s\n", cl.Counter.Summary())
	}
	if failed := report.Failed(); len(failed) > 0 {
		return withCode(ExitFailure, fmt.Errorf("check failed: %s", strings.Join(failed, ", ")))
	}
	return nil
}

// checkFacts is everything check reads, gathered before any verdict.
type checkFacts struct {
	CRDs map[string]*apiextensionsv1.CustomResourceDefinition
	// Controllers are Flux's Deployments in flux-system; ControllersErr is why they could not be listed.
	Controllers    []unstructured.Unstructured
	ControllersErr error
	Kustomizations []flux.Object
	// Sources holds the current revision of every source a --ready Kustomization builds from.
	Sources map[tiers.ID]sourceRevision
	// BundleDir is the bundle checked ("" for none), Bundle it loaded, BundleErr why not.
	BundleDir string
	Bundle    *crds.Bundle
	BundleErr error
}

type sourceRevision struct {
	Revision string
	Err      error
}

// gatherCheckFacts reads the cluster and the bundle. Only a failure to read
// CRDs or Kustomizations is an error; anything else becomes a failed check.
func gatherCheckFacts(ctx context.Context, cl *cluster, namespace string, opts checkOptions) (checkFacts, error) {
	f := checkFacts{Sources: map[tiers.ID]sourceRevision{}}
	f.BundleDir = opts.CRDs
	if f.BundleDir == "" {
		if st, err := os.Stat("bootstrap/crds"); err == nil && st.IsDir() {
			f.BundleDir = "bootstrap/crds"
		}
	}
	if f.BundleDir != "" {
		f.Bundle, f.BundleErr = crds.LoadBundle(f.BundleDir)
	}
	var err error
	if f.CRDs, err = listCRDs(ctx, cl); err != nil {
		return f, err
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DeploymentList"})
	if err := cl.Client.List(ctx, list, client.InNamespace(fluxNamespace), client.MatchingLabels{fluxPartOfLabel: fluxPartOfValue}); err != nil {
		f.ControllersErr = kube.Explain(err, "list", "deployments.apps")
	}
	f.Controllers = list.Items
	if !fluxInstalled(f.CRDs[kustomizationCRD]) {
		return f, nil
	}
	if f.Kustomizations, err = flux.ListKustomizations(ctx, cl.Client, namespace); err != nil {
		return f, err
	}
	for _, o := range f.Kustomizations {
		if _, seen := f.Sources[o.SourceRef]; seen || !checkNamed(o.ID, opts.Ready) {
			continue
		}
		rev, err := flux.SourceRevision(ctx, cl.Client, o.SourceRef)
		f.Sources[o.SourceRef] = sourceRevision{Revision: rev, Err: err}
	}
	return f, nil
}

func checkNamed(id tiers.ID, names []string) bool {
	for _, n := range names {
		if tiers.Matches(id, n) {
			return true
		}
	}
	return false
}

// printCheck writes the checklist for people: one line per check, the
// objects under it.
func printCheck(w io.Writer, r checkReport, st printer.Styles) {
	for _, c := range r.Checks {
		mark := st.OK.Render("✔")
		switch c.Status {
		case checkFail:
			mark = st.Fail.Render("✗")
		case checkSkip:
			mark = st.Dim.Render("-")
		}
		fmt.Fprintf(w, "%s %s\n", mark, c.Summary)
		for _, it := range c.Items {
			itemMark := st.Fail.Render("✗")
			if it.OK {
				itemMark = st.OK.Render("✔")
			}
			head := ""
			if it.Object != nil && it.Diagnosis == nil { // a diagnosis names its Kustomization itself
				head = it.Object.String() + ": "
			}
			fmt.Fprintf(w, "  %s %s\n", itemMark, wrapText(head+it.Message, "    ", 100))
		}
	}
	if r.OK {
		fmt.Fprintln(w, st.OK.Render("all checks passed"))
	}
}

// wrapText breaks s into lines of at most width columns at spaces; lines after
// the first are indented. Words longer than width stay whole.
func wrapText(s, indent string, width int) string {
	var b strings.Builder
	col := 0
	for i, word := range strings.Fields(s) {
		switch {
		case i == 0:
		case col+1+len(word) > width:
			b.WriteString("\n" + indent)
			col = len(indent)
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += len(word)
	}
	return b.String()
}
