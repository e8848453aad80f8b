package crds

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// RunbookPath is the document the diagnosis points the operator to.
const RunbookPath = "docs/runbook.md"

// CRDPresence is what the cluster holds for a group and kind.
type CRDPresence int

const (
	// CRDAbsent means the cluster has no CRD for the group and kind.
	CRDAbsent CRDPresence = iota
	// CRDPending means the CRD exists but is not yet Established and NamesAccepted.
	CRDPending
	// CRDEstablished means the CRD exists and the API server serves its kind.
	CRDEstablished
)

// CRDLookup tells what the cluster holds for a group and kind. The caller
// answers from a fresh read of the API server, not from cached discovery.
type CRDLookup func(schema.GroupKind) CRDPresence

// MissingType is one kind that a Kustomization needs and the API server does
// not serve, with every object of the build that uses it.
type MissingType struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	// GroupKnown is false when neither the message nor the bundle told the group.
	GroupKnown bool `json:"groupKnown"`
	// Versions are the API versions the objects asked for, sorted.
	Versions []string `json:"versions,omitempty"`
	// Plural is the resource name, from the bundle's CRD or else the message.
	Plural string `json:"plural,omitempty"`
	// CRDName is plural.group, the name of the CRD that would serve the kind;
	// "" when the plural is unknown.
	CRDName string `json:"crdName,omitempty"`
	// BundleFile is the bundle file holding the CRD; "" when the bundle lacks it.
	BundleFile string `json:"bundleFile,omitempty"`
	// HelmRelease is the Helm release (namespace/name) whose ownership
	// metadata the bundle's CRD carries (HelmReleaseOf): a chart installs
	// the CRD; "" when it carries none.
	HelmRelease string `json:"helmRelease,omitempty"`
	// Objects are the objects of the build that use the kind, sorted; empty
	// when the message did not name them.
	Objects []ObjectRef `json:"objects,omitempty"`
}

// GroupKind returns the type's group and kind.
func (t MissingType) GroupKind() schema.GroupKind {
	return schema.GroupKind{Group: t.Group, Kind: t.Kind}
}

// InBundle reports whether the bundle holds the CRD for the type.
func (t MissingType) InBundle() bool { return t.BundleFile != "" }

// String renders the type as kind.group (StorageProfile.cdi.kubevirt.io), or
// the kind alone when the group is unknown.
func (t MissingType) String() string {
	if !t.GroupKnown {
		return t.Kind
	}
	return t.GroupKind().String()
}

// Diagnosis is what standup concludes from one not-ready Kustomization whose
// dry-run failed on kinds the API server does not serve.
type Diagnosis struct {
	// Kustomization is the stuck Kustomization.
	Kustomization tiers.ID `json:"kustomization"`
	// Reason and Message are its Ready condition's.
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// Missing are the kinds whose CRD is absent from the cluster: the deadlock.
	Missing []MissingType `json:"missing,omitempty"`
	// Pending are kinds whose CRD exists but is not yet established: wait.
	Pending []MissingType `json:"pending,omitempty"`
	// Served are kinds the message names but the cluster now serves: the
	// failure is stale and the next reconcile will pass.
	Served []MissingType `json:"served,omitempty"`
	// NotCRD are missing kinds of a group that no CRD can define (the core
	// group, or a group without a dot): the API server itself lacks them.
	NotCRD []MissingType `json:"notCRD,omitempty"`
}

// Deadlocked reports whether the diagnosis found a missing kind whose CRD the
// cluster lacks. Proving a deadlock also needs the same failure to come back
// from a reconcile standup requested (see SameFailure).
func (d Diagnosis) Deadlocked() bool { return len(d.Missing) > 0 }

// Unresolvable returns the missing types the bundle cannot supply.
func (d Diagnosis) Unresolvable() []MissingType {
	var out []MissingType
	for _, t := range d.Missing {
		if !t.InBundle() {
			out = append(out, t)
		}
	}
	return out
}

// MissingGroupKinds returns the group and kind of every missing type, sorted.
func (d Diagnosis) MissingGroupKinds() []schema.GroupKind {
	out := make([]schema.GroupKind, 0, len(d.Missing))
	for _, t := range d.Missing {
		out = append(out, t.GroupKind())
	}
	return out
}

// SameFailure reports whether two diagnoses of the same Kustomization found the
// same non-empty set of missing kinds: the test that a reconcile standup
// requested after the first failure failed again for the same reason.
func SameFailure(a, b Diagnosis) bool {
	if a.Kustomization != b.Kustomization || !a.Deadlocked() || !b.Deadlocked() {
		return false
	}
	return slices.Equal(a.MissingGroupKinds(), b.MissingGroupKinds())
}

// Diagnose parses the Ready message of a Kustomization and sorts every kind it
// reports missing by what the cluster holds (lookup) and what the bundle can
// supply (bundle may be nil). Kinds of a group no CRD can define are set
// apart without asking lookup; lookup is not asked either when the group is
// unknown (such a kind counts as absent). It returns false when the Kustomization is not
// failing a dry-run on a missing kind: it is suspended, not Ready=False, or
// its message holds no such failure. A nil lookup counts every kind as absent.
func Diagnose(ks flux.Object, lookup CRDLookup, bundle *Bundle) (Diagnosis, bool) {
	if ks.Suspended || ks.Ready == nil || ks.Ready.Status != "False" {
		return Diagnosis{}, false
	}
	return DiagnoseFailures(ks, ParseDryRunFailures(ks.Ready.Message), lookup, bundle)
}

// DiagnoseFailures is Diagnose for failures already parsed from ks's Ready
// message by ParseDryRunFailures, for a caller that keeps the parse with
// the observation (pkg/wait) rather than parse the message again. It
// returns false when failures is empty.
func DiagnoseFailures(ks flux.Object, failures []MissingKind, lookup CRDLookup, bundle *Bundle) (Diagnosis, bool) {
	if len(failures) == 0 || ks.Ready == nil {
		return Diagnosis{}, false
	}
	d := Diagnosis{Kustomization: ks.ID, Reason: ks.Ready.Reason, Message: ks.Ready.Message}
	for _, t := range groupFailures(failures, bundle) {
		if t.GroupKnown && !strings.Contains(t.Group, ".") {
			d.NotCRD = append(d.NotCRD, t)
			continue
		}
		presence := CRDAbsent
		if lookup != nil && t.GroupKnown {
			presence = lookup(t.GroupKind())
		}
		switch presence {
		case CRDEstablished:
			d.Served = append(d.Served, t)
		case CRDPending:
			d.Pending = append(d.Pending, t)
		default:
			d.Missing = append(d.Missing, t)
		}
	}
	return d, true
}

// groupFailures merges the failures into one MissingType per group and kind,
// completing the group, plural and CRD name from the bundle. The result is
// sorted by group and kind.
func groupFailures(failures []MissingKind, bundle *Bundle) []MissingType {
	byKey := map[string]*MissingType{}
	var keys []string
	for _, f := range failures {
		group, known := f.Group, f.GroupKnown
		if !known {
			// The bare 404 names no group: take it from the bundle when one
			// CRD, and only one, defines the kind.
			if es := bundle.LookupKind(f.Kind); len(es) == 1 {
				group, known = es[0].CRD.Spec.Group, true
			}
		}
		key := fmt.Sprintf("%t|%s|%s", known, group, f.Kind)
		t, ok := byKey[key]
		if !ok {
			t = &MissingType{Group: group, Kind: f.Kind, GroupKnown: known, Plural: f.Resource}
			byKey[key] = t
			keys = append(keys, key)
		}
		if f.Version != "" && !slices.Contains(t.Versions, f.Version) {
			t.Versions = append(t.Versions, f.Version)
		}
		if t.Plural == "" {
			t.Plural = f.Resource
		}
		if !f.Object.IsZero() && !slices.Contains(t.Objects, f.Object) {
			t.Objects = append(t.Objects, f.Object)
		}
	}
	out := make([]MissingType, 0, len(keys))
	for _, k := range keys {
		t := byKey[k]
		if t.GroupKnown {
			if crd, file, ok := bundle.Lookup(t.Group, t.Kind); ok {
				t.Plural, t.BundleFile, t.HelmRelease = crd.Spec.Names.Plural, file, HelmReleaseOf(crd)
			}
			if t.Plural != "" && t.Group != "" {
				t.CRDName = t.Plural + "." + t.Group
			}
		}
		sort.Strings(t.Versions)
		sort.Slice(t.Objects, func(i, j int) bool { return t.Objects[i].String() < t.Objects[j].String() })
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Group != out[j].Group {
			return out[i].Group < out[j].Group
		}
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].GroupKnown && !out[j].GroupKnown
	})
	return out
}

// String renders the diagnosis as one paragraph for a person: which
// Kustomization is stuck, on which kinds, used by which objects, and what
// standup or the operator must do about each.
func (d Diagnosis) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Kustomization %s cannot apply: its server-side dry-run failed on kinds the API server does not serve.",
		d.Kustomization.NamespacedName())
	if len(d.Missing) > 0 {
		fmt.Fprintf(&b, " Missing: %s. Flux dry-runs every object of a Kustomization before it applies any, so nothing of it is applied until these kinds exist: if an operator creates their CRDs only at runtime, it never will.",
			describeTypes(d.Missing))
		for _, t := range d.Missing {
			if t.InBundle() {
				fmt.Fprintf(&b, " standup can pre-apply CRD %s from %s.", t.CRDName, t.BundleFile)
			}
			if t.HelmRelease != "" {
				fmt.Fprintf(&b, " The bundle's CRD carries Helm's ownership metadata of release %s: a chart installs it, so if that release's HelmRelease is in this Kustomization it is never applied either (the chart form); once the CRD is pre-applied the chart installs over it, and the release adopts it even with install.disableTakeOwnership.", t.HelmRelease)
			}
		}
		if u := d.Unresolvable(); len(u) > 0 {
			fmt.Fprintf(&b, " The CRD bundle does not hold %s: either move the custom resources of these kinds into their own Kustomization with dependsOn: [%s] and set wait: true on %s, so that their CRDs exist before they are applied, or add the CRDs to the bundle (standup crds capture on a cluster where they exist). See %s.",
				joinTypes(u), d.Kustomization.Name, d.Kustomization.Name, RunbookPath)
		}
	}
	if len(d.Pending) > 0 {
		fmt.Fprintf(&b, " The CRDs for %s exist but are not yet established; wait for them.", joinTypes(d.Pending))
	}
	if len(d.Served) > 0 {
		fmt.Fprintf(&b, " The cluster now serves %s; the next reconcile should pass.", describeTypes(d.Served))
	}
	if len(d.NotCRD) > 0 {
		fmt.Fprintf(&b, " No CRD can define %s: fix the apiVersion of the objects, or run a Kubernetes version that serves it.",
			describeTypes(d.NotCRD))
	}
	return b.String()
}

// describeTypes renders each type with its version and the objects that use it.
func describeTypes(ts []MissingType) string {
	parts := make([]string, 0, len(ts))
	for _, t := range ts {
		s := t.String()
		if len(t.Versions) > 0 {
			s += " (" + strings.Join(t.Versions, ", ") + ")"
		}
		if len(t.Objects) > 0 {
			objs := make([]string, 0, len(t.Objects))
			for _, o := range t.Objects {
				objs = append(objs, o.String())
			}
			s += ", used by " + strings.Join(objs, ", ")
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// joinTypes renders the types' names separated by commas.
func joinTypes(ts []MissingType) string {
	parts := make([]string, 0, len(ts))
	for _, t := range ts {
		parts = append(parts, t.String())
	}
	return strings.Join(parts, ", ")
}
