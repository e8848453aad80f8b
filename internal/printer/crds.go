package printer

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
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

// PrintChartReleases writes, after the repair walk, the HelmReleases that
// the repaired Kustomization ks applied in the pass the pre-applied CRDs
// unblocked and whose chart installs them (the chart form), and how each
// ended: Ready over the CRD, or refused by Helm, with the commands that
// finish the repair, or neither yet.
func PrintChartReleases(w io.Writer, ks tiers.ID, releases []crds.ChartRelease) {
	for _, r := range releases {
		crdNames := "CustomResourceDefinition/" + strings.Join(r.CRDs, ", CustomResourceDefinition/")
		fmt.Fprintf(w, "%s: the chart form: HelmRelease %s, applied in the same pass, installs %s from its chart", ks, r.HelmRelease.NamespacedName(), crdNames)
		switch {
		case r.Refused != nil:
			fmt.Fprintf(w, ", and Helm will not take %s into the release: standup pre-applied it without Helm's ownership metadata, and the release does not take ownership (install.disableTakeOwnership). To finish the repair, run:\n", r.Refused.Object)
			for _, c := range r.Refused.Commands {
				fmt.Fprintf(w, "  %s\n", c)
			}
			fmt.Fprintln(w, "For the next cold start, give the bundle's CRD that metadata (standup crds capture keeps it).")
		case r.Ready:
			fmt.Fprintln(w, ": Ready")
		default:
			fmt.Fprintf(w, ": not Ready: %s\n", orNone(r.Message))
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "no Ready condition yet"
	}
	return s
}

// PrintNoBundle says, after the diagnoses of a dry run without a CRD
// bundle, that repairing them takes one.
func PrintNoBundle(w io.Writer) {
	fmt.Fprintf(w, "no CRD bundle (--crds DIR, or %s): the diagnosis above needs one to repair; standup crds capture --out DIR writes one from a cluster that has these CRDs\n", crds.DefaultBundleDir)
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

// PrintCaptureSummary is capture's progress line: how many CRDs it wrote,
// and how many of Flux's own it left out (fluxOwn), and why.
func PrintCaptureSummary(w io.Writer, n, fluxOwn int) {
	fmt.Fprintf(w, "captured %d CRDs that no Kustomization inventory lists\n", n)
	if fluxOwn > 0 {
		fmt.Fprintf(w, "left out %d of Flux's own CRDs (API groups *%s, or labelled %s=%s): flux install creates them, in no inventory, and a cluster standup repairs has them already\n",
			fluxOwn, flux.ToolkitGroupSuffix, flux.PartOfLabel, flux.PartOfValue)
	}
}
