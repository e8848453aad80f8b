package kubeevents

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// ReportingController is the reportingController of every Event standup
// posts: `kubectl events` shows it, and a field selector on
// reportingComponent finds standup's Events alone.
const ReportingController = "standup"

// The reasons of standup's Events, one per thing it did or found.
const (
	ReasonResumed            = "Resumed"
	ReasonReconcileRequested = "ReconcileRequested"
	ReasonRequestFailed      = "RequestFailed"
	ReasonDeadlockSuspected  = "DeadlockSuspected"
	// ReasonDeadlockProven is said only of a certain proof (wait.ProofCertain).
	ReasonDeadlockProven = "DeadlockProven"
	// ReasonDeadlockAssumed is a deadlock standup acted on without
	// certainty: no progress for the quiet window, or the operator's timeout.
	ReasonDeadlockAssumed = "DeadlockAssumed"
	// ReasonCRDsPreApplied is on the Kustomization a pre-apply unblocks,
	// ReasonPreApplied on each CRD created.
	ReasonCRDsPreApplied = "CRDsPreApplied"
	ReasonPreApplied     = "PreApplied"
	ReasonPreApplyFailed = "PreApplyFailed"
	ReasonWalkFinished   = "WalkFinished"
	ReasonWalkGaveUp     = "WalkGaveUp"
)

// OnMutation reports whether an Event of reason tells of one of standup's
// mutations: a resume or reconcile request (or its failure), a CRD created
// (or its failure). There is one such Event per mutation, so that Events
// cost at most a request per mutation; every other reason is one of the
// walk's notices (a deadlock suspected and proven, the pre-apply said on
// the stuck node, the walk's end), a few per diagnosis and per walk,
// however many nodes it walks.
func OnMutation(reason string) bool {
	switch reason {
	case ReasonResumed, ReasonReconcileRequested, ReasonRequestFailed, ReasonPreApplied, ReasonPreApplyFailed:
		return true
	}
	return false
}

// The actions of standup's Events (events.k8s.io/v1 requires one): what
// standup did, or was doing, regarding the object.
const (
	ActionResume    = "Resume"
	ActionReconcile = "RequestReconcile"
	ActionDiagnose  = "DiagnoseDeadlock"
	ActionPreApply  = "PreApplyCRD"
	ActionWalk      = "Walk"
)

// noteLimit is the API server's bound on an Event's note (1 kB).
const noteLimit = 1024

// Ref names an Event's regarding or related object.
type Ref struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	// UID, when known, lets `kubectl describe` find the Event too (it
	// selects on the object's uid); flux events and kubectl events
	// select on kind, namespace and name.
	UID types.UID
}

// Notice is one Event to post.
type Notice struct {
	Time      time.Time
	Regarding Ref
	Related   *Ref
	// Type is corev1.EventTypeNormal or corev1.EventTypeWarning.
	Type   string
	Reason string
	Action string
	Note   string
}

// crdAPIVersion and crdKind name a CustomResourceDefinition as an Event's
// regarding object.
const (
	crdAPIVersion = "apiextensions.k8s.io/v1"
	crdKind       = "CustomResourceDefinition"
)

// CRDID is how a CRD is looked up by the UID function: its kind and name.
func CRDID(name string) tiers.ID { return tiers.ID{Kind: crdKind, Name: name} }

// Translator turns a walk's events into Notices. It keeps what the last
// Notices need: the tier of each node, and the nodes standup acted on.
// Pure; one per walk.
type Translator struct {
	// UID returns the object's uid when the walk has seen it, "" when not;
	// nil leaves every uid out.
	UID   func(tiers.ID) types.UID
	tiers map[tiers.ID]int
	acted map[tiers.ID]bool
}

// NewTranslator returns a Translator that looks uids up with uid (may be nil).
func NewTranslator(uid func(tiers.ID) types.UID) *Translator {
	return &Translator{UID: uid, tiers: map[tiers.ID]int{}, acted: map[tiers.ID]bool{}}
}

// Walk returns the Notices of one walk event: none for progress.
func (t *Translator) Walk(e wait.Event) []Notice {
	if e.Node == nil {
		return nil
	}
	id := *e.Node
	if e.Type == wait.EventNode || e.Type == wait.EventDiagnosis {
		t.tiers[id] = e.Tier
	}
	switch e.Type {
	case wait.EventAction:
		return t.action(e, id)
	case wait.EventDiagnosis:
		return []Notice{t.diagnosis(e, id)}
	}
	return nil
}

func (t *Translator) action(e wait.Event, id tiers.ID) []Notice {
	t.acted[id] = true
	n := Notice{Time: e.Time, Regarding: t.node(id), Type: corev1.EventTypeNormal}
	switch {
	case e.Action == string(wait.ActionReconcile) && e.Reason == "Failed":
		n.Type, n.Reason, n.Action = corev1.EventTypeWarning, ReasonRequestFailed, ActionReconcile
		n.Note = "standup could not request a reconcile: " + e.Message
	case e.Action == string(wait.ActionReconcile) && e.Reason == "Resumed":
		n.Reason, n.Action = ReasonResumed, ActionResume
		n.Note = "standup resumed it and requested a reconcile (" + e.Message + ")"
	case e.Action == string(wait.ActionReconcile):
		n.Reason, n.Action = ReasonReconcileRequested, ActionReconcile
		n.Note = "standup requested a reconcile, its dependencies being Ready (" + e.Message + ")"
	case e.Reason == "Failed":
		n.Type, n.Reason, n.Action = corev1.EventTypeWarning, ReasonPreApplyFailed, ActionPreApply
		n.Note = "standup could not pre-apply the missing CRDs: " + e.Message
	default:
		return t.preApplied(e, id, n)
	}
	return []Notice{n}
}

// preApplied is a pre-apply's Notices: one on the stuck node, and one on
// each CRD created, related to the node, unless it was created on a spoke.
func (t *Translator) preApplied(e wait.Event, id tiers.ID, n Notice) []Notice {
	n.Reason, n.Action = ReasonCRDsPreApplied, ActionPreApply
	n.Note = "standup pre-applied the missing CRDs of its cold-start deadlock: " + e.Message
	out := []Notice{n}
	if e.Spoke != "" {
		// The CRDs are on the spoke, the Events are posted on the hub: the
		// node's Notice, whose message names the spoke, says it all.
		return out
	}
	related := t.node(id)
	for _, name := range e.Applied {
		out = append(out, Notice{
			Time: e.Time, Type: corev1.EventTypeNormal, Reason: ReasonPreApplied, Action: ActionPreApply,
			Regarding: Ref{APIVersion: crdAPIVersion, Kind: crdKind, Name: name, UID: t.uid(CRDID(name))},
			Related:   &related,
			Note:      fmt.Sprintf("standup created this CRD (field manager standup) for %s, stuck on a dry-run of its kind on a cold start", id),
		})
	}
	return out
}

func (t *Translator) diagnosis(e wait.Event, id tiers.ID) Notice {
	n := Notice{Time: e.Time, Regarding: t.node(id), Type: corev1.EventTypeWarning, Action: ActionDiagnose}
	switch {
	case e.Proof == nil:
		n.Reason = ReasonDeadlockSuspected
		n.Note = "standup suspects a cold-start deadlock: " + e.Message
	case e.Proof.Kind == wait.ProofCertain:
		n.Reason = ReasonDeadlockProven
		n.Note = "standup proved a cold-start deadlock (proof: certain): " + e.Message
	default:
		n.Reason = ReasonDeadlockAssumed
		n.Note = fmt.Sprintf("standup treats it as a cold-start deadlock, not proven (proof: %s): %s", e.Proof.Kind, e.Message)
	}
	return n
}

// Finished returns the Notices of a walk's end, when standup acted at all:
// a Warning on each node it gave up on (failed, deadlocked, timed out), and
// on each node it acted on of the lowest tier, where a person starts
// reading, whether the walk finished or gave up.
func (t *Translator) Finished(s wait.Summary, now time.Time) []Notice {
	if len(t.acted) == 0 {
		return nil
	}
	walk := fmt.Sprintf("%d/%d Ready, %d failed, %d blocked in %s", s.Ready, s.Total, s.Failed, s.Blocked, time.Duration(s.Elapsed).Round(100*time.Millisecond))
	ok := s.Failed == 0 && s.Blocked == 0 && s.Pending == 0 && s.Error == "" && !s.Interrupted
	var out []Notice
	gaveUp := map[tiers.ID]bool{}
	for _, group := range []struct {
		ids []tiers.ID
		why string
	}{{s.Deadlocked, "deadlocked"}, {s.TimedOut, "timed out"}, {s.FailedNodes, "failed"}} {
		for _, id := range group.ids {
			if gaveUp[id] {
				continue
			}
			gaveUp[id] = true
			out = append(out, Notice{Time: now, Regarding: t.node(id), Type: corev1.EventTypeWarning, Reason: ReasonWalkGaveUp, Action: ActionWalk,
				Note: fmt.Sprintf("standup gave up on it (%s); the walk: %s", group.why, walk)})
		}
	}
	for _, id := range t.lowestActed() {
		if gaveUp[id] {
			continue
		}
		n := Notice{Time: now, Regarding: t.node(id), Type: corev1.EventTypeNormal, Reason: ReasonWalkFinished, Action: ActionWalk,
			Note: "standup's walk finished: " + walk}
		if !ok {
			n.Type, n.Reason = corev1.EventTypeWarning, ReasonWalkGaveUp
			n.Note = "standup's walk gave up: " + walk
			if s.Error != "" {
				n.Note += ": " + s.Error
			}
		}
		out = append(out, n)
	}
	return out
}

// lowestActed is the nodes standup acted on at the lowest tier, sorted.
func (t *Translator) lowestActed() []tiers.ID {
	lowest := -1
	for id := range t.acted {
		if tier := t.tiers[id]; lowest < 0 || tier < lowest {
			lowest = tier
		}
	}
	var ids []tiers.ID
	for id := range t.acted {
		if t.tiers[id] == lowest {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b tiers.ID) int { return strings.Compare(a.String(), b.String()) })
	return ids
}

func (t *Translator) node(id tiers.ID) Ref {
	ref := Ref{Kind: id.Kind, Namespace: id.Namespace, Name: id.Name, UID: t.uid(id)}
	switch id.Kind {
	case flux.KindKustomization:
		ref.APIVersion = flux.KustomizationGVR.GroupVersion().String()
	case flux.KindHelmRelease:
		ref.APIVersion = flux.HelmReleaseGVR.GroupVersion().String()
	}
	return ref
}

func (t *Translator) uid(id tiers.ID) types.UID {
	if t.UID == nil {
		return ""
	}
	return t.UID(id)
}

// truncateNote cuts a note to the API server's limit, on a rune boundary,
// saying it was cut.
func truncateNote(s string) string {
	if len(s) <= noteLimit {
		return s
	}
	const cut = " …(cut)"
	s = s[:noteLimit-len(cut)]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return strings.TrimRight(s, " ") + cut
}

// BlanketCreated returns the Notices of `crds --all`: a PreApplied Event
// on each CRD it created, saying it was the blanket fallback, without a
// diagnosis, so that no Kustomization is named as the one it unblocked.
// A CRD it left alone (it existed) was not acted on and gets none.
func BlanketCreated(created []string, now time.Time) []Notice {
	out := make([]Notice, 0, len(created))
	for _, name := range created {
		out = append(out, Notice{
			Time: now, Type: corev1.EventTypeNormal, Reason: ReasonPreApplied, Action: ActionPreApply,
			Regarding: Ref{APIVersion: crdAPIVersion, Kind: crdKind, Name: name},
			Note:      "standup crds --all created this CRD (field manager standup): the blanket fallback, every bundle CRD absent from the cluster, without a diagnosis",
		})
	}
	return out
}
