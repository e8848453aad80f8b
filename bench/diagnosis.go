package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/kubestandup/standup/pkg/wait"
)

// failedPrefix starts the message kustomize-controller logs after a
// reconcile that failed: "Reconciliation failed after 12ms, next try in 2m0s".
const failedPrefix = "Reconciliation failed after "

// controllerTime is the layout of the "ts" field of kustomize-controller's
// JSON log (zap's ISO8601 encoder, which fluxcd/pkg/runtime/logger selects).
const controllerTime = "2006-01-02T15:04:05.000Z0700"

// DiagnosisTiming is when standup diagnosed a cold-start deadlock, measured
// from its first event, and how many reconciles of the stuck Kustomization
// had failed by then, as the controller logged them.
type DiagnosisTiming struct {
	// Node is the stuck Kustomization ("namespace/name").
	Node string
	// Suspected and Proven are the times of the two diagnosis events,
	// from standup's first event.
	Suspected, Proven time.Duration
	// FailedAtSuspect and FailedAtProof count the failed reconciles of Node
	// logged up to each diagnosis.
	FailedAtSuspect, FailedAtProof int
	// Repaired is the time of the first CRD pre-apply, from standup's first
	// event (0 when none).
	Repaired time.Duration
}

// DiagnosisOf reads the diagnosis events of a standup walk: the first that
// suspects, and the first that carries a Proof (whatever its kind and its
// wording); ok is false when it proved no deadlock.
func DiagnosisOf(events []wait.Event) (d DiagnosisTiming, suspected, proven time.Time, ok bool) {
	if len(events) == 0 {
		return d, suspected, proven, false
	}
	start := events[0].Time
	for _, e := range events {
		switch {
		case e.Type == wait.EventDiagnosis && strings.HasPrefix(e.Message, "suspected") && suspected.IsZero():
			suspected = e.Time
		case e.Type == wait.EventDiagnosis && e.Proof != nil && proven.IsZero():
			proven = e.Time
			if e.Node != nil {
				d.Node = e.Node.NamespacedName()
			}
		case e.Type == wait.EventAction && e.Action == string(wait.ActionPreApplyCRDs) && d.Repaired == 0:
			d.Repaired = e.Time.Sub(start)
		}
	}
	if proven.IsZero() {
		return d, suspected, proven, false
	}
	if suspected.IsZero() {
		suspected = proven
	}
	d.Suspected, d.Proven = suspected.Sub(start), proven.Sub(start)
	return d, suspected, proven, true
}

// FailedReconciles counts the failed reconciles kustomize-controller's JSON
// log records for the Kustomization node ("namespace/name") at or before
// each of the given times.
func FailedReconciles(log, node string, at ...time.Time) ([]int, error) {
	counts := make([]int, len(at))
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		if !strings.Contains(sc.Text(), failedPrefix) {
			continue
		}
		var l struct {
			logLine
			TS string `json:"ts"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil || !strings.HasPrefix(l.Msg, failedPrefix) {
			continue
		}
		ns, name := l.Namespace, l.Name
		if l.Kustomization != nil {
			ns, name = l.Kustomization.Namespace, l.Kustomization.Name
		}
		if ns+"/"+name != node {
			continue
		}
		ts, err := time.Parse(controllerTime, l.TS)
		if err != nil {
			return nil, fmt.Errorf("Kustomization/%s log %q: ts: %w", node, l.Msg, err)
		}
		for i, t := range at {
			if !ts.After(t) {
				counts[i]++
			}
		}
	}
	return counts, sc.Err()
}
