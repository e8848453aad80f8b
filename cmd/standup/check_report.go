package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// The verdicts of `standup check`: pure functions of the facts it gathered.

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

// checkStatus is the verdict of one check.
type checkStatus string

const (
	checkPass checkStatus = "pass"
	checkFail checkStatus = "fail"
	checkSkip checkStatus = "skip"
)

// checkReport is the whole verdict of `standup check`, the -o json document
// (schema in docs/check.md).
type checkReport struct {
	SchemaVersion int           `json:"schemaVersion"`
	OK            bool          `json:"ok"`
	Checks        []checkResult `json:"checks"`
}

// checkResult is one line of the checklist and what it found.
type checkResult struct {
	Name    string      `json:"name"`
	Status  checkStatus `json:"status"`
	Summary string      `json:"summary"`
	Items   []checkItem `json:"items"`
}

// checkItem is one object a check looked at: every problem, and for
// --ready and controllers every object named.
type checkItem struct {
	Object    *tiers.ID       `json:"object,omitempty"`
	OK        bool            `json:"ok"`
	Message   string          `json:"message"`
	Diagnosis *crds.Diagnosis `json:"diagnosis,omitempty"`
}

// Failed returns the names of the checks that failed.
func (r checkReport) Failed() []string {
	var out []string
	for _, c := range r.Checks {
		if c.Status == checkFail {
			out = append(out, c.Name)
		}
	}
	return out
}

// evaluateCheck turns the facts into the checklist. It is pure.
func evaluateCheck(f checkFacts, ready []string) checkReport {
	installed := fluxInstalled(f.CRDs[kustomizationCRD])
	checks := []checkResult{checkFlux(f.CRDs[kustomizationCRD]), checkControllers(f), checkCRDs(f.CRDs), checkBundle(f)}
	if !installed {
		for _, name := range []string{"dry-run", "suspended", "kustomizations", "ready"} {
			checks = append(checks, newCheckResult(name, checkSkip, "needs Flux (skipped)", nil))
		}
	} else {
		dryRun, stuck := checkDryRun(f)
		checks = append(checks, dryRun, checkSuspended(f.Kustomizations), checkKustomizations(f.Kustomizations, stuck), checkReady(f, ready))
	}
	r := checkReport{SchemaVersion: 1, OK: true, Checks: checks}
	r.OK = len(r.Failed()) == 0
	return r
}

func newCheckResult(name string, st checkStatus, summary string, items []checkItem) checkResult {
	if items == nil {
		items = []checkItem{}
	}
	return checkResult{Name: name, Status: st, Summary: summary, Items: items}
}

func checkVerdict(ok bool) checkStatus {
	if ok {
		return checkPass
	}
	return checkFail
}

func checkFlux(crd *apiextensionsv1.CustomResourceDefinition) checkResult {
	switch {
	case crd == nil:
		return newCheckResult("flux", checkFail, "Flux is not installed on this cluster (no CustomResourceDefinition "+kustomizationCRD+")", nil)
	case !crds.Established(crd):
		return newCheckResult("flux", checkFail, "Flux is not installed on this cluster: CustomResourceDefinition "+kustomizationCRD+" is not established", nil)
	case !fluxInstalled(crd):
		return newCheckResult("flux", checkFail, "this Flux does not serve kustomize.toolkit.fluxcd.io/v1; standup speaks Flux v2.x (kustomize-controller v1.x)", nil)
	}
	return newCheckResult("flux", checkPass, "Flux is installed (kustomize.toolkit.fluxcd.io/v1 served)", nil)
}

func checkControllers(f checkFacts) checkResult {
	if f.ControllersErr != nil {
		return newCheckResult("controllers", checkFail, "controllers: "+f.ControllersErr.Error(), nil)
	}
	if len(f.Controllers) == 0 {
		return newCheckResult("controllers", checkSkip, "controllers: not deployed in-cluster (skipped)", nil)
	}
	var items []checkItem
	bad := 0
	for i := range f.Controllers {
		d := &f.Controllers[i]
		id := tiers.ID{Kind: "Deployment", Namespace: d.GetNamespace(), Name: d.GetName()}
		res, err := status.Compute(d)
		item := checkItem{Object: &id, OK: err == nil && res.Status == status.CurrentStatus}
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
	summary := fmt.Sprintf("controllers: %d Available in %s", len(items), fluxNamespace)
	if bad > 0 {
		summary = fmt.Sprintf("controllers: %d of %d in %s not Available", bad, len(items), fluxNamespace)
	}
	return newCheckResult("controllers", checkVerdict(bad == 0), summary, items)
}

func checkCRDs(present map[string]*apiextensionsv1.CustomResourceDefinition) checkResult {
	var items []checkItem
	for _, name := range checkSortedKeys(present) {
		crd := present[name]
		if crds.Established(crd) {
			continue
		}
		id := tiers.ID{Kind: "CustomResourceDefinition", Name: name}
		items = append(items, checkItem{Object: &id, Message: crdCondition(crd)})
	}
	if len(items) > 0 {
		return newCheckResult("crds", checkFail, fmt.Sprintf("crds: %d of %d not established", len(items), len(present)), items)
	}
	return newCheckResult("crds", checkPass, fmt.Sprintf("crds: all %d established", len(present)), nil)
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

func checkBundle(f checkFacts) checkResult {
	switch {
	case f.BundleDir == "":
		return newCheckResult("bundle", checkSkip, "bundle: no CRD bundle given (--crds DIR) and no bootstrap/crds (skipped)", nil)
	case f.BundleErr != nil:
		return newCheckResult("bundle", checkFail, "bundle: "+f.BundleDir+" is invalid", []checkItem{{Message: f.BundleErr.Error()}})
	}
	var names []string
	for _, e := range f.Bundle.All() {
		names = append(names, e.CRD.Name)
	}
	return newCheckResult("bundle", checkPass, fmt.Sprintf("bundle: %s holds %s, valid (%s)", f.BundleDir, checkCount(f.Bundle.Len(), "CRD"), strings.Join(names, ", ")), nil)
}

// checkDryRun finds Kustomizations stuck on a dry-run of a kind whose CRD
// the cluster lacks, and returns them too.
func checkDryRun(f checkFacts) (checkResult, map[tiers.ID]bool) {
	lookup := crds.Presence(mapValues(f.CRDs))
	stuck := map[tiers.ID]bool{}
	var items []checkItem
	for _, o := range f.Kustomizations {
		d, ok := crds.Diagnose(o, lookup, f.Bundle)
		if !ok || !d.Deadlocked() {
			continue
		}
		id := o.ID
		stuck[id] = true
		items = append(items, checkItem{Object: &id, Message: d.String(), Diagnosis: &d})
	}
	if len(items) > 0 {
		return newCheckResult("dry-run", checkFail, fmt.Sprintf("dry-run: %s stuck on a dry-run of a missing kind", checkCount(len(items), "Kustomization")), items), stuck
	}
	return newCheckResult("dry-run", checkPass, "dry-run: no Kustomization is stuck on a missing kind", nil), stuck
}

func checkSuspended(objs []flux.Object) checkResult {
	var items []checkItem
	for _, o := range objs {
		if o.Suspended {
			id := o.ID
			items = append(items, checkItem{Object: &id, Message: "spec.suspend is true (standup resume resumes it)"})
		}
	}
	if len(items) > 0 {
		return newCheckResult("suspended", checkFail, fmt.Sprintf("suspended: %s suspended", checkCount(len(items), "Kustomization")), items)
	}
	return newCheckResult("suspended", checkPass, "suspended: none", nil)
}

// checkKustomizations lists every Kustomization not Ready that no earlier
// check named already (suspended or stuck); it fails only on those, since
// the earlier checks fail on theirs.
func checkKustomizations(objs []flux.Object, stuck map[tiers.ID]bool) checkResult {
	var items []checkItem
	ready := 0
	for _, o := range objs {
		st := wait.Classify(o)
		switch {
		case st.State == wait.Ready:
			ready++
		case st.State == wait.Suspended || stuck[o.ID]:
		default:
			id := o.ID
			items = append(items, checkItem{Object: &id, Message: checkStatusLine(st)})
		}
	}
	summary := fmt.Sprintf("kustomizations: %d of %d Ready", ready, len(objs))
	if others := len(objs) - ready - len(items); others > 0 {
		summary += fmt.Sprintf(" (%d more listed above)", others)
	}
	return newCheckResult("kustomizations", checkVerdict(len(items) == 0), summary, items)
}

func checkStatusLine(st wait.Status) string {
	s := string(st.State)
	if st.Reason != "" {
		s += " (" + st.Reason + ")"
	}
	if m := firstLine(st.Message); m != "" {
		s += ": " + m
	}
	return s
}

// checkReady is the merge precondition: every named Kustomization Ready at
// its source's current revision.
func checkReady(f checkFacts, names []string) checkResult {
	if len(names) == 0 {
		return newCheckResult("ready", checkSkip, "ready: no Kustomization named (--ready NAME)", nil)
	}
	var items []checkItem
	bad := 0
	for _, name := range names {
		found := false
		for _, o := range f.Kustomizations {
			if !tiers.Matches(o.ID, name) {
				continue
			}
			found = true
			items = append(items, checkReadyAt(o, f.Sources[o.SourceRef]))
		}
		if !found {
			items = append(items, checkItem{Message: fmt.Sprintf("no Kustomization named %q", name)})
		}
	}
	for _, it := range items {
		if !it.OK {
			bad++
		}
	}
	summary := fmt.Sprintf("ready: %d of %d named Ready at their source's current revision", len(items)-bad, len(items))
	return newCheckResult("ready", checkVerdict(bad == 0), summary, items)
}

func checkReadyAt(o flux.Object, src sourceRevision) checkItem {
	id := o.ID
	it := checkItem{Object: &id}
	st := wait.Classify(o)
	switch {
	case st.State != wait.Ready:
		it.Message = "not Ready: " + checkStatusLine(st)
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

func checkSortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkCount renders n and noun, with an s when n is not 1.
func checkCount(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
