package check

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// Evaluate turns the facts into the checklist, ready being the
// Kustomizations named as --ready. It is pure. The checks come in a fixed
// order, every one of them always present: both are part of the -o json
// schema.
func Evaluate(f Facts, ready []string) Report {
	installed := fluxInstalled(f.CRDs[flux.KustomizationCRD])
	checks := []Result{fluxResult(f.CRDs[flux.KustomizationCRD]), controllersResult(f), crdsResult(f.CRDs), bundleResult(f)}
	if !installed {
		for _, name := range []string{"dry-run", "suspended", "kustomizations", "helmreleases", "ready"} {
			checks = append(checks, newResult(name, Skip, "needs Flux (skipped)", nil))
		}
	} else {
		dryRun, stuck := dryRunResult(f)
		checks = append(checks, dryRun, suspendedResult(f.Kustomizations), kustomizationsResult(f.Kustomizations, stuck),
			helmReleasesResult(f), readyResult(f, ready))
	}
	r := Report{SchemaVersion: 1, OK: true, Checks: checks}
	r.OK = len(r.Failed()) == 0
	return r
}

// fluxInstalled reports whether the API server serves kustomize.toolkit.fluxcd.io/v1.
func fluxInstalled(crd *apiextensionsv1.CustomResourceDefinition) bool {
	if !crds.Established(crd) {
		return false
	}
	for _, v := range crd.Spec.Versions {
		if v.Name == "v1" && v.Served {
			return true
		}
	}
	return false
}

// newResult never leaves Items nil, so that -o json prints [] rather than null.
func newResult(name string, st Status, summary string, items []Item) Result {
	if items == nil {
		items = []Item{}
	}
	return Result{Name: name, Status: st, Summary: summary, Items: items}
}

func verdict(ok bool) Status {
	if ok {
		return Pass
	}
	return Fail
}

func fluxResult(crd *apiextensionsv1.CustomResourceDefinition) Result {
	switch {
	case crd == nil:
		return newResult("flux", Fail, "Flux is not installed on this cluster (no CustomResourceDefinition "+flux.KustomizationCRD+")", nil)
	case !crds.Established(crd):
		return newResult("flux", Fail, "Flux is not installed on this cluster: CustomResourceDefinition "+flux.KustomizationCRD+" is not established", nil)
	case !fluxInstalled(crd):
		return newResult("flux", Fail, "this Flux does not serve kustomize.toolkit.fluxcd.io/v1; standup speaks Flux v2.x (kustomize-controller v1.x)", nil)
	}
	return newResult("flux", Pass, "Flux is installed (kustomize.toolkit.fluxcd.io/v1 served)", nil)
}

func controllersResult(f Facts) Result {
	if f.ControllersErr != nil {
		return newResult("controllers", Fail, "controllers: "+f.ControllersErr.Error(), nil)
	}
	if len(f.Controllers) == 0 {
		return newResult("controllers", Skip, "controllers: not deployed in-cluster (skipped)", nil)
	}
	var items []Item
	bad := 0
	for i := range f.Controllers {
		d := &f.Controllers[i]
		id := tiers.ID{Kind: "Deployment", Namespace: d.GetNamespace(), Name: d.GetName()}
		res, err := status.Compute(d)
		item := Item{Object: &id, OK: err == nil && res.Status == status.CurrentStatus}
		switch {
		case err != nil:
			item.Message = err.Error()
		case item.OK:
			item.Message = "Available"
		default:
			item.Message = string(res.Status) + ": " + res.Message
		}
		if !item.OK {
			bad++
		}
		items = append(items, item)
	}
	summary := fmt.Sprintf("controllers: %d Available in %s", len(items), flux.InstallNamespace)
	if bad > 0 {
		summary = fmt.Sprintf("controllers: %d of %d in %s not Available", bad, len(items), flux.InstallNamespace)
	}
	return newResult("controllers", verdict(bad == 0), summary, items)
}

func crdsResult(present map[string]*apiextensionsv1.CustomResourceDefinition) Result {
	var items []Item
	for _, name := range slices.Sorted(maps.Keys(present)) {
		crd := present[name]
		if crds.Established(crd) {
			continue
		}
		id := tiers.ID{Kind: "CustomResourceDefinition", Name: name}
		items = append(items, Item{Object: &id, Message: crdCondition(crd)})
	}
	if len(items) > 0 {
		return newResult("crds", Fail, fmt.Sprintf("crds: %d of %d not established", len(items), len(present)), items)
	}
	return newResult("crds", Pass, fmt.Sprintf("crds: all %d established", len(present)), nil)
}

// crdCondition says which of Established and NamesAccepted is not True, and why.
func crdCondition(crd *apiextensionsv1.CustomResourceDefinition) string {
	for _, t := range []apiextensionsv1.CustomResourceDefinitionConditionType{apiextensionsv1.NamesAccepted, apiextensionsv1.Established} {
		var c *apiextensionsv1.CustomResourceDefinitionCondition
		for i := range crd.Status.Conditions {
			if crd.Status.Conditions[i].Type == t {
				c = &crd.Status.Conditions[i]
			}
		}
		switch {
		case c == nil:
			return fmt.Sprintf("no %s condition yet", t)
		case c.Status != apiextensionsv1.ConditionTrue:
			return strings.TrimSpace(fmt.Sprintf("%s=%s (%s) %s", t, c.Status, c.Reason, c.Message))
		}
	}
	return "not established"
}

func bundleResult(f Facts) Result {
	switch {
	case f.BundleDir == "":
		return newResult("bundle", Skip, "bundle: no CRD bundle given (--crds DIR) and no bootstrap/crds (skipped)", nil)
	case f.BundleErr != nil:
		return newResult("bundle", Fail, "bundle: "+f.BundleDir+" is invalid", []Item{{Message: f.BundleErr.Error()}})
	}
	var names []string
	for _, e := range f.Bundle.All() {
		names = append(names, e.CRD.Name)
	}
	return newResult("bundle", Pass, fmt.Sprintf("bundle: %s holds %s, valid (%s)", f.BundleDir, plural(f.Bundle.Len(), "CRD"), strings.Join(names, ", ")), nil)
}

// dryRunResult finds Kustomizations stuck on a dry-run of a kind whose CRD
// the cluster lacks, and returns them too.
func dryRunResult(f Facts) (Result, map[tiers.ID]bool) {
	lookup := crds.Presence(slices.Collect(maps.Values(f.CRDs)))
	stuck := map[tiers.ID]bool{}
	var items []Item
	for _, o := range f.Kustomizations {
		d, ok := crds.Diagnose(o, lookup, f.Bundle)
		if !ok || !d.Deadlocked() {
			continue
		}
		id := o.ID
		stuck[id] = true
		items = append(items, Item{Object: &id, Message: d.String(), Diagnosis: &d})
	}
	if len(items) > 0 {
		return newResult("dry-run", Fail, fmt.Sprintf("dry-run: %s stuck on a dry-run of a missing kind", plural(len(items), "Kustomization")), items), stuck
	}
	return newResult("dry-run", Pass, "dry-run: no Kustomization is stuck on a missing kind", nil), stuck
}

func suspendedResult(objs []flux.Object) Result {
	var items []Item
	for _, o := range objs {
		if o.Suspended {
			id := o.ID
			items = append(items, Item{Object: &id, Message: "spec.suspend is true (standup resume resumes it)"})
		}
	}
	if len(items) > 0 {
		return newResult("suspended", Fail, fmt.Sprintf("suspended: %s suspended", plural(len(items), "Kustomization")), items)
	}
	return newResult("suspended", Pass, "suspended: none", nil)
}

// kustomizationsResult lists every Kustomization not Ready that no earlier
// check named already (suspended or stuck). It fails whenever one is not
// Ready, listed here or not: "1 of 2 Ready" is never a pass.
func kustomizationsResult(objs []flux.Object, stuck map[tiers.ID]bool) Result {
	var items []Item
	ready := 0
	for _, o := range objs {
		st := wait.Classify(o)
		switch {
		case st.State == wait.Ready:
			ready++
		case st.State == wait.Suspended || stuck[o.ID]:
		default:
			id := o.ID
			items = append(items, Item{Object: &id, Message: statusLine(st)})
		}
	}
	summary := fmt.Sprintf("kustomizations: %d of %d Ready", ready, len(objs))
	if others := len(objs) - ready - len(items); others > 0 {
		summary += fmt.Sprintf(" (%d more listed above)", others)
	}
	return newResult("kustomizations", verdict(ready == len(objs)), summary, items)
}

// helmReleasesResult lists every HelmRelease not Ready at its generation
// (suspended ones too, since standup resume walks them), with what to do
// when Helm refuses an object the release does not own.
func helmReleasesResult(f Facts) Result {
	switch {
	case f.HelmReleasesErr != nil:
		return newResult("helmreleases", Fail, "helmreleases: "+f.HelmReleasesErr.Error(), nil)
	case !crds.Established(f.CRDs[flux.HelmReleaseResource]):
		return newResult("helmreleases", Skip, "helmreleases: the cluster serves no HelmRelease API (skipped)", nil)
	}
	var items []Item
	ready := 0
	for _, o := range f.HelmReleases {
		st := wait.Classify(o)
		id := o.ID
		switch {
		case st.State == wait.Ready:
			ready++
			continue
		case st.State == wait.Suspended:
			items = append(items, Item{Object: &id, Message: "spec.suspend is true (standup resume resumes it)"})
			continue
		}
		msg := statusLine(st)
		if fail, ok := crds.ParseHelmOwnershipFailure(st.Message); ok {
			msg += ". To let the release adopt it: " + fail.Remedy() + fmt.Sprintf(", then flux reconcile hr %s -n %s --reset", id.Name, id.Namespace)
		}
		items = append(items, Item{Object: &id, Message: msg})
	}
	return newResult("helmreleases", verdict(len(items) == 0), fmt.Sprintf("helmreleases: %d of %d Ready", ready, len(f.HelmReleases)), items)
}

// statusLine is a Kustomization's state, reason and the first line of its
// message: the rest of a Ready message is a change-set log.
func statusLine(st wait.Status) string {
	s := string(st.State)
	if st.Reason != "" {
		s += " (" + st.Reason + ")"
	}
	if m := firstLine(st.Message); m != "" {
		s += ": " + m
	}
	return s
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// readyResult is the merge precondition: every named Kustomization Ready at
// its source's current revision.
func readyResult(f Facts, names []string) Result {
	if len(names) == 0 {
		return newResult("ready", Skip, "ready: no Kustomization named (--ready NAME)", nil)
	}
	var items []Item
	bad := 0
	for _, name := range names {
		found := false
		for _, o := range f.Kustomizations {
			if !tiers.Matches(o.ID, name) {
				continue
			}
			found = true
			items = append(items, readyAt(o, f.Sources[o.SourceRef]))
		}
		if !found {
			items = append(items, Item{Message: fmt.Sprintf("no Kustomization named %q", name)})
		}
	}
	for _, it := range items {
		if !it.OK {
			bad++
		}
	}
	summary := fmt.Sprintf("ready: %d of %d named Ready at their source's current revision", len(items)-bad, len(items))
	return newResult("ready", verdict(bad == 0), summary, items)
}

func readyAt(o flux.Object, src SourceRevision) Item {
	id := o.ID
	it := Item{Object: &id}
	st := wait.Classify(o)
	switch {
	case st.State != wait.Ready:
		it.Message = "not Ready: " + statusLine(st)
	case src.Err != nil:
		it.Message = "Ready, but its source could not be read: " + src.Err.Error()
	case src.Revision == "":
		it.Message = fmt.Sprintf("Ready, but its source %s has no artifact yet", o.SourceRef)
	case o.LastAppliedRevision != src.Revision:
		it.Message = fmt.Sprintf("Ready at %s, but its source %s is at %s: not yet applied", o.LastAppliedRevision, o.SourceRef, src.Revision)
	default:
		it.OK = true
		it.Message = "Ready at " + src.Revision + ", its source's current revision"
	}
	return it
}

// plural renders n and noun, with an s when n is not 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
