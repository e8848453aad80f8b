package wait

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/tiers"
)

// The wait for an operator: when a deadlock is not certain, an operator
// may still be creating the missing CRDs, so the walk waits while it shows
// progress. The walker asks for the reads (ProgressWanted), the loop makes
// them and feeds them back (ObserveProgress), and onDeadlock ends the wait
// when the CRDs appear, when no progress came for Options.OperatorQuiet,
// or when Options.OperatorTimeout has passed.

// ProgressTarget is one read a waiting proof asks the loop for: the
// objects of a trigger kind, or an operator's Deployment. Exactly one of
// its fields is set.
type ProgressTarget struct {
	// Trigger is a trigger kind: the loop lists its objects in every
	// namespace, at most ProgressListLimit of them.
	Trigger schema.GroupKind
	// Deployment is an operator's Deployment, namespace/name: the loop
	// lists its namespace's Deployments by that name.
	Deployment string
}

// String names the target for messages: Gizmo.example.com, or
// Deployment cdi/cdi-operator.
func (t ProgressTarget) String() string {
	if t.Deployment != "" {
		return "Deployment " + t.Deployment
	}
	return t.Trigger.String()
}

// ProgressListLimit bounds the list of a trigger kind's objects that one
// progress read makes.
const ProgressListLimit = 50

// ObjectProgress is one object of a progress read.
type ObjectProgress struct {
	// Name is namespace/name, or name for a cluster-scoped object.
	Name     string
	Progress Progress
}

// ProgressFact is one read of a ProgressTarget, made at Time.
type ProgressFact struct {
	Target  ProgressTarget
	Time    time.Time
	Objects []ObjectProgress
	// Refused: standup may not list the target (RBAC).
	Refused bool
	// Err says why the read failed otherwise; a trigger kind whose CRD is
	// absent is no error, just no objects.
	Err string
}

// WaitEnd says what ended a wait for an operator to create missing CRDs.
type WaitEnd string

const (
	// WaitCertain: nothing could create the CRDs, so there was no wait
	// (ProofCertain).
	WaitCertain WaitEnd = "certain"
	// WaitCRDsAppeared: the CRDs appeared; not a deadlock.
	WaitCRDsAppeared WaitEnd = "crds-appeared"
	// WaitNoProgress: no progress for the quiet window (ProofNoProgress).
	WaitNoProgress WaitEnd = "no-progress"
	// WaitOperatorTimeout: the operator timeout passed, progress or not
	// (ProofOperatorTimeout).
	WaitOperatorTimeout WaitEnd = "operator-timeout"
)

// OperatorWait is how a wait for an operator ended: on the event that
// ends it, and in the Summary.
type OperatorWait struct {
	// Node is the Kustomization whose dry-run failed.
	Node tiers.ID `json:"node"`
	// Ended is the evidence that ended the wait.
	Ended WaitEnd `json:"ended"`
	// Waited is the time from the suspicion to the end.
	Waited Duration `json:"waited"`
	// Quiet and Timeout are the quiet window and the operator timeout the
	// wait ran under; absent for a certain proof, which waits for neither.
	Quiet   Duration `json:"quiet,omitempty"`
	Timeout Duration `json:"timeout,omitempty"`
	// Progress counts the reads that showed progress; LastProgress says
	// what the last one showed, for people.
	Progress     int    `json:"progress,omitempty"`
	LastProgress string `json:"lastProgress,omitempty"`
}

// DefaultOperatorTimeout is Options.OperatorTimeout's default for a
// trigger whose declaration names none: an operator that shows progress
// is waited for this long at most.
const DefaultOperatorTimeout = 2 * time.Minute

// DefaultOperatorQuiet is Options.OperatorQuiet's default: long enough
// for an operator that works silently for 20 s (the demo's), short beside
// Flux's retries.
const DefaultOperatorQuiet = 30 * time.Second

// operatorWait is a node's wait for an operator.
type operatorWait struct {
	from      time.Time
	targets   []ProgressTarget
	timeout   time.Duration
	timeoutBy string // where the timeout came from, for people
	progress  int
	last      time.Time // the last progress, or from
	lastWhat  string
}

// progressTrack is what the walker keeps of one target's reads.
type progressTrack struct {
	asked time.Time         // when the last read was asked for
	read  bool              // a read came back since the walk began
	fps   map[string]string // object name → fingerprint at the last read
	note  string            // why the last read told nothing, for people
}

// pollEvery is how often a waiting proof reads its targets: six times per
// quiet window, from once a second to once every 5 s, the first one poll
// into the wait.
func pollEvery(quiet time.Duration) time.Duration {
	return min(max(quiet/6, time.Second), 5*time.Second)
}

// startWait begins, or returns, st's wait for an operator of the triggers
// of d's missing kinds. The node's deadline moves past the wait's end, so
// that the wait does not count against --node-timeout.
func (w *Walker) startWait(st *nodeState, d *crds.Diagnosis, nodeTimeout time.Duration) *operatorWait {
	if st.wait != nil {
		return st.wait
	}
	triggers, _ := w.triggersOf(d)
	ow := &operatorWait{from: st.suspectedAt, last: st.suspectedAt}
	ow.timeout, ow.timeoutBy = w.operatorTimeout(triggers)
	for _, tr := range triggers {
		ow.targets = append(ow.targets, ProgressTarget{Trigger: tr.Kind})
		if tr.Operator != "" && !slices.Contains(ow.targets, ProgressTarget{Deployment: tr.Operator}) {
			ow.targets = append(ow.targets, ProgressTarget{Deployment: tr.Operator})
		}
	}
	if end := ow.from.Add(ow.timeout + nodeTimeout); st.deadline.Before(end) {
		st.deadline = end
	}
	st.wait = ow
	return ow
}

// operatorTimeout is how long the operators of triggers may take:
// --operator-timeout, else the longest their declarations give, else
// DefaultOperatorTimeout; and where that came from.
func (w *Walker) operatorTimeout(triggers []crds.Trigger) (time.Duration, string) {
	if w.opts.OperatorTimeout > 0 {
		return w.opts.OperatorTimeout, "--operator-timeout"
	}
	var d time.Duration
	by := ""
	for _, tr := range triggers {
		if tr.Timeout > d {
			d, by = tr.Timeout, tr.Kind.String()+"'s, from "+tr.From
		}
	}
	if d > 0 {
		return d, by
	}
	return DefaultOperatorTimeout, "the default"
}

// awaitOperator decides, for a deadlock that is not certain, whether the
// wait goes on: it asks for the reads that are due and returns when to
// look again; or it ends the wait and returns the proof.
func (w *Walker) awaitOperator(now time.Time, ow *operatorWait, why string) (*Proof, time.Time) {
	quietEnd, timeoutEnd := ow.last.Add(w.opts.OperatorQuiet), ow.from.Add(ow.timeout)
	last := "no progress seen since the wait began"
	if ow.progress > 0 {
		last = "last progress " + roundDuration(now.Sub(ow.last)) + " ago: " + ow.lastWhat
	}
	if notes := w.progressNotes(ow); notes != "" {
		last += "; " + notes
	}
	switch {
	case !now.Before(timeoutEnd):
		return &Proof{Kind: ProofOperatorTimeout, Reason: fmt.Sprintf("the operator was still not done after %s (the operator timeout: %s), treated as deadlocked (%s): %s", ow.timeout, ow.timeoutBy, last, why)}, time.Time{}
	case !now.Before(quietEnd):
		return &Proof{Kind: ProofNoProgress, Reason: fmt.Sprintf("no progress for %s, treated as deadlocked (%s): %s", w.opts.OperatorQuiet, last, why)}, time.Time{}
	}
	wake := earliest(quietEnd, timeoutEnd)
	every := pollEvery(w.opts.OperatorQuiet)
	for _, t := range ow.targets {
		// The first read is due one poll into the wait, not at its start:
		// an operator that creates the CRD within it (cdi-operator, 2 s
		// after the seed's CDI) costs no read at all.
		tr := w.track(t)
		due := tr.asked
		if due.Before(ow.from) {
			due = ow.from
		}
		if due = due.Add(every); !now.Before(due) {
			w.progressWanted[t] = struct{}{}
			tr.asked, due = now, now.Add(every)
		}
		wake = earliest(wake, due)
	}
	return nil, wake
}

// waitingMessage is the node's message while it waits for an operator.
func (w *Walker) waitingMessage(d *crds.Diagnosis, ow *operatorWait, why string) string {
	msg := fmt.Sprintf("dry-run failed on missing kinds %s; waiting while an operator shows progress (%s without progress, or %s in all, ends the wait): %s",
		joinTypes(d.Missing), w.opts.OperatorQuiet, ow.timeout, why)
	if ow.progress > 0 {
		msg += "; last progress: " + ow.lastWhat
	}
	return msg
}

// endWait records how st's wait ended, and returns the record.
func (w *Walker) endWait(now time.Time, id tiers.ID, st *nodeState, end WaitEnd) *OperatorWait {
	rec := OperatorWait{Node: id, Ended: end, Waited: Duration(now.Sub(st.suspectedAt))}
	if ow := st.wait; ow != nil {
		rec.Waited = Duration(now.Sub(ow.from))
		rec.Progress, rec.LastProgress = ow.progress, ow.lastWhat
		if end != WaitCertain {
			rec.Quiet, rec.Timeout = Duration(w.opts.OperatorQuiet), Duration(ow.timeout)
		}
	}
	st.wait = nil
	w.waits = append(w.waits, rec)
	return &rec
}

func (w *Walker) track(t ProgressTarget) *progressTrack {
	tr, ok := w.tracks[t]
	if !ok {
		tr = &progressTrack{}
		w.tracks[t] = tr
	}
	return tr
}

// progressNotes says which of a wait's reads told nothing, and why.
func (w *Walker) progressNotes(ow *operatorWait) string {
	var notes []string
	for _, t := range ow.targets {
		if tr := w.tracks[t]; tr != nil && tr.note != "" {
			notes = append(notes, tr.note)
		}
	}
	return strings.Join(notes, "; ")
}

// ProgressWanted returns the reads the waiting proofs need now, sorted:
// the loop makes each and reports it with ObserveProgress before the next
// Step. Each target is asked for at most once per pollEvery of the quiet
// window, and only while a proof waits on it.
func (w *Walker) ProgressWanted() []ProgressTarget {
	if len(w.progressWanted) == 0 {
		return nil
	}
	out := make([]ProgressTarget, 0, len(w.progressWanted))
	for t := range w.progressWanted {
		out = append(out, t)
	}
	clear(w.progressWanted)
	slices.SortFunc(out, func(a, b ProgressTarget) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// ObserveProgress records a read of a target. Against the previous read of
// the same target it is progress when an object's Fingerprint moved, when
// an object appeared, or when an object reads as Working; never for a
// Stalled object, and never at the first read, which is the baseline.
// Progress counts for every wait on the target that began before it.
func (w *Walker) ObserveProgress(f ProgressFact) {
	tr := w.track(f.Target)
	switch {
	case f.Refused:
		tr.note = fmt.Sprintf("forbidden: standup needs %q on %s to see its progress", "list", f.Target)
	case f.Err != "":
		tr.note = fmt.Sprintf("could not read %s: %s", f.Target, f.Err)
	default:
		tr.note = ""
		w.progressed(tr, f)
	}
	w.touchProving()
}

// progressed compares f with tr's last read, credits any progress to the
// waits on its target, and keeps f as the last read.
func (w *Walker) progressed(tr *progressTrack, f ProgressFact) {
	var what []string
	fps := make(map[string]string, len(f.Objects))
	for _, o := range f.Objects {
		p := o.Progress
		prev, had := tr.fps[o.Name]
		fps[o.Name] = p.Fingerprint
		label := f.Target.Trigger.Kind + " " + o.Name
		if f.Target.Deployment != "" {
			label = f.Target.String()
		}
		switch {
		case p.Stalled != "":
		case p.Working != "":
			what = append(what, label+": "+p.Working)
		case !tr.read:
		case !had:
			what = append(what, label+" appeared")
		case prev != p.Fingerprint:
			what = append(what, label+": "+orChanged(p.Summary))
		}
	}
	tr.fps, tr.read = fps, true
	if len(what) == 0 {
		return
	}
	for id := range w.proving {
		st := w.nodes[id]
		if st == nil || st.wait == nil || !slices.Contains(st.wait.targets, f.Target) || f.Time.Before(st.wait.from) {
			continue
		}
		st.wait.progress++
		st.wait.last = f.Time
		st.wait.lastWhat = strings.Join(what, "; ")
	}
}

func orChanged(s string) string {
	if s == "" {
		return "its status changed"
	}
	return s
}

// roundDuration renders d to the second (to the tenth below 10 s).
func roundDuration(d time.Duration) string {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
