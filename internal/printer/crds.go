package printer

import (
	"fmt"
	"io"

	"github.com/kubestandup/standup/pkg/crds"
)

// The crds command's report, one line per fact, on stdout.

// PrintRepairs writes each stuck Kustomization's diagnosis and the CRDs
// that will be created for it once its deadlock is proven, or says that
// none is stuck.
func PrintRepairs(w io.Writer, repairs []crds.Repair) {
	if len(repairs) == 0 {
		fmt.Fprintln(w, "no Kustomization is stuck on a missing CRD: nothing to do")
		return
	}
	for _, r := range repairs {
		fmt.Fprintf(w, "%s\n", r.Diagnosis.String())
		for _, e := range r.Create {
			fmt.Fprintf(w, "  will create CustomResourceDefinition/%s (field manager %s) once the deadlock is proven\n", e.CRD.Name, crds.FieldManager)
		}
	}
}

// PrintNothingChanged ends a dry run.
func PrintNothingChanged(w io.Writer) {
	fmt.Fprintln(w, "dry run: nothing changed")
}

// PrintCreatePlan writes what `crds --all --dry-run` would create and
// leave alone, and ends the dry run.
func PrintCreatePlan(w io.Writer, plan crds.Plan) {
	for _, e := range plan.Create {
		fmt.Fprintf(w, "CustomResourceDefinition/%s would be created (from %s)\n", e.CRD.Name, e.File)
	}
	printExisting(w, plan.Existing)
	PrintNothingChanged(w)
}

// PrintCreated writes what `crds --all` created and left alone. complete
// says the run ended without an error, so that nothing created means
// nothing was needed.
func PrintCreated(w io.Writer, res crds.Result, complete bool) {
	for _, n := range res.Created {
		fmt.Fprintf(w, "CustomResourceDefinition/%s created (field manager %s)\n", n, crds.FieldManager)
	}
	printExisting(w, res.Existing)
	if complete && len(res.Created) == 0 {
		fmt.Fprintln(w, "every bundle CRD exists: nothing to do")
	}
}

func printExisting(w io.Writer, names []string) {
	for _, n := range names {
		fmt.Fprintf(w, "CustomResourceDefinition/%s exists: left alone\n", n)
	}
}

// PrintCaptured writes the path of each file `crds capture` wrote.
func PrintCaptured(w io.Writer, paths []string) {
	for _, p := range paths {
		fmt.Fprintln(w, p)
	}
}

// PrintCaptureSummary is capture's progress line: how many CRDs it wrote.
func PrintCaptureSummary(w io.Writer, n int) {
	fmt.Fprintf(w, "captured %d CRDs that no Kustomization inventory lists\n", n)
}
