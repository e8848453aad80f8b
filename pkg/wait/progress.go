package wait

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Progress is what one read of an object says of an operator's work on
// it, a pure function of the object (TriggerProgress, DeploymentProgress).
// The walker compares it with the previous read of the same object: a
// Fingerprint that moved is progress, and so is a Working object at every
// read, unless the object is Stalled.
type Progress struct {
	// Fingerprint is the part of the status an operator moves as it works:
	// status.observedGeneration and each condition's type, status, reason,
	// message, observedGeneration and lastTransitionTime (for a
	// Deployment, its rollout counters and its Progressing condition).
	Fingerprint string `json:"-"`
	// Summary says the same for people: the conditions, type=status
	// (reason: message), or the Deployment's replicas.
	Summary string `json:"summary,omitempty"`
	// Working says why the object reads as work under way at this very
	// read: a Crossplane package Installed and not yet Healthy, or a
	// kstatus Reconciling=True; "" when it does not.
	Working string `json:"working,omitempty"`
	// Stalled says why the object reads as stopped for good: kstatus
	// Stalled=True, a Crossplane package whose signature verification
	// failed or whose revision or runtime is unhealthy, a Deployment past
	// its progress deadline; "" when it does not.
	Stalled string `json:"stalled,omitempty"`
}

// crossplanePackages are the kinds of pkg.crossplane.io whose Installed
// and Healthy conditions say how their package manager is getting on
// (crossplane apis/pkg/v1/conditions.go).
var crossplanePackages = []string{"Provider", "Configuration", "Function"}

// TriggerProgress reads a trigger object: its conditions and observed
// generation, and, for a Crossplane package (pkg.crossplane.io Provider,
// Configuration, Function), Crossplane's own words for work under way.
// Crossplane writes Installed=True (ActivePackageRevision) once the
// package revision is active and Healthy=True only once it and its runtime
// are healthy: in between it is installing the package's CRDs, so it is
// Working. Healthy=False is Stalled when the message Crossplane writes says
// a revision or runtime health is "False" (PackageHealth), not when it is
// still "Unknown"; so is Verified=False (SignatureVerificationFailed).
// Any object with kstatus conditions is Working at Reconciling=True and
// Stalled at Stalled=True.
func TriggerProgress(u *unstructured.Unstructured) Progress {
	conds := conditionsOf(u)
	og, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
	p := Progress{Fingerprint: fmt.Sprintf("og=%d", og)}
	var summary []string
	for _, c := range conds {
		p.Fingerprint += fmt.Sprintf("|%s=%s/%s/%s/%d/%s", c.Type, c.Status, c.Reason, c.Message, c.ObservedGeneration, c.LastTransitionTime)
		summary = append(summary, c.String())
	}
	p.Summary = strings.Join(summary, ", ")
	get := func(t string) (condition, bool) {
		i := slices.IndexFunc(conds, func(c condition) bool { return c.Type == t })
		if i < 0 {
			return condition{}, false
		}
		return conds[i], true
	}
	gvk := u.GroupVersionKind()
	if gvk.Group == "pkg.crossplane.io" && slices.Contains(crossplanePackages, gvk.Kind) {
		healthy, hasHealthy := get("Healthy")
		switch v, ok := get("Verified"); {
		case ok && v.Status == "False" && v.Reason == "SignatureVerificationFailed":
			p.Stalled = v.String()
		case hasHealthy && healthy.Status == "False" && strings.Contains(healthy.Message, `health is "False"`):
			p.Stalled = healthy.String()
		}
		if in, ok := get("Installed"); ok && in.Status == "True" && (!hasHealthy || healthy.Status != "True") && p.Stalled == "" {
			p.Working = "Installed=True, not yet Healthy"
		}
	}
	if s, ok := get("Stalled"); ok && s.Status == "True" {
		p.Stalled = s.String()
	}
	if r, ok := get("Reconciling"); ok && r.Status == "True" && p.Stalled == "" && p.Working == "" {
		p.Working = r.String()
	}
	return p
}

// DeploymentProgress reads an operator's Deployment. Its Fingerprint is
// what the Deployment controller moves as a rollout advances (generation,
// observed generation, replicas, updated, ready and available replicas, and
// the Progressing condition with its lastUpdateTime, which the controller
// renews at each step forward), so a read that differs from the last is
// the rollout progressing. It is never Working by itself: a rollout that
// stands still (an image that cannot be pulled) is not progress. It is
// Stalled past its progress deadline (Progressing=False,
// ProgressDeadlineExceeded).
func DeploymentProgress(u *unstructured.Unstructured) Progress {
	n := func(f string) int64 {
		v, _, _ := unstructured.NestedInt64(u.Object, "status", f)
		return v
	}
	want, found, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
	if !found {
		want = 1
	}
	p := Progress{
		Fingerprint: fmt.Sprintf("gen=%d og=%d r=%d u=%d rd=%d a=%d", u.GetGeneration(), n("observedGeneration"), n("replicas"), n("updatedReplicas"), n("readyReplicas"), n("availableReplicas")),
		Summary:     fmt.Sprintf("%d/%d updated, %d/%d ready, %d/%d available", n("updatedReplicas"), want, n("readyReplicas"), want, n("availableReplicas"), want),
	}
	for _, c := range conditionsOf(u) {
		if c.Type != "Progressing" {
			continue
		}
		p.Fingerprint += fmt.Sprintf("|%s/%s/%s", c.Status, c.Reason, c.LastUpdateTime)
		if c.Status == "False" && c.Reason == "ProgressDeadlineExceeded" {
			p.Stalled = c.String()
		}
	}
	return p
}

// condition is the part of a status condition progress reads.
type condition struct {
	Type, Status, Reason, Message      string
	LastTransitionTime, LastUpdateTime string
	ObservedGeneration                 int64
}

// String renders the condition as people read it: Type=Status (Reason: message).
func (c condition) String() string {
	s := c.Type + "=" + c.Status
	switch {
	case c.Reason != "" && c.Message != "":
		s += " (" + c.Reason + ": " + firstLine(c.Message) + ")"
	case c.Reason != "":
		s += " (" + c.Reason + ")"
	case c.Message != "":
		s += " (" + firstLine(c.Message) + ")"
	}
	return s
}

// conditionsOf reads status.conditions, sorted by type so that the
// fingerprint does not move when an operator reorders them.
func conditionsOf(u *unstructured.Unstructured) []condition {
	raw, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	var out []condition
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		c := condition{Type: str("type"), Status: str("status"), Reason: str("reason"), Message: str("message"),
			LastTransitionTime: str("lastTransitionTime"), LastUpdateTime: str("lastUpdateTime")}
		switch g := m["observedGeneration"].(type) {
		case int64:
			c.ObservedGeneration = g
		case float64:
			c.ObservedGeneration = int64(g)
		}
		if c.Type != "" {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b condition) int { return strings.Compare(a.Type, b.Type) })
	return out
}
