package printer

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// eventLine renders one event as a line: mark, object, message. notes
// keep what was explained already (walkNotes).
func eventLine(e wait.Event, st Styles, notes *walkNotes) string {
	node := nodePrefix(e)
	switch e.Type {
	case wait.EventAction:
		if e.Reason == "Failed" {
			return st.Fail.Render("✗") + " " + node + e.Action + " failed: " + e.Message
		}
		return st.Pending.Render("►") + " " + node + e.Action + ": " + e.Message
	case wait.EventDiagnosis:
		return notes.diagnosis(e, st)
	}
	switch e.Phase {
	case wait.PhaseReady:
		return st.OK.Render("✔") + " " + node + e.Message
	case wait.PhaseFailed:
		return st.Fail.Render("✗") + " " + node + e.Reason + ": " + notes.failure(e)
	case wait.PhaseBlocked:
		return st.Fail.Render("⊘") + " " + node + e.Message
	}
	return st.Dim.Render("…") + " " + node + progressText(e)
}

// progressText is a node's state while it waits: its phase, how long it
// has waited (since standup asked it to reconcile, or since the walk
// began), and the message and reason, the controller's own once it took
// the request up: "reconciling, 31.0s: Running health checks for revision
// main@sha1:… with a timeout of 2m0s (Progressing)".
func progressText(e wait.Event) string {
	s := string(e.Phase)
	if e.Elapsed > 0 {
		s += ", " + formatElapsed(time.Duration(e.Elapsed))
	}
	s += ": " + firstLine(e.Message)
	if e.Reason != "" {
		s += " (" + e.Reason + ")"
	}
	return s
}

// summaryLine renders a walk's summary: counts, time, mutations, what
// stopped it, and a mark that is ✔ only when every node ended ready and
// nothing stopped the walk: exactly when the command exits 0.
func summaryLine(s wait.Summary, st Styles) string {
	line := fmt.Sprintf("%d/%d ready, %d failed, %d blocked in %.1fs (%s)",
		s.Ready, s.Total, s.Failed, s.Blocked, time.Duration(s.Elapsed).Seconds(), Plural(s.Mutations, "mutation"))
	if s.Pending > 0 {
		line += fmt.Sprintf(", %d unfinished", s.Pending)
	}
	if s.Interrupted {
		line += ", interrupted"
	}
	if s.Error != "" {
		line += ", stopped: " + firstLine(s.Error)
	}
	if l := limitLine(s.Limit); l != "" {
		line += "\n  " + l
	}
	if s.Failed == 0 && s.Blocked == 0 && s.Pending == 0 && !s.Interrupted && s.Error == "" {
		return st.OK.Render("✔") + " " + line
	}
	return st.Fail.Render("✗") + " " + line
}

// limitLine tells the operator what held the walk back, with the figures
// that show it, so that they know whether to change the graph or
// kustomize-controller's flags; "" when nothing was reconciled.
func limitLine(l *wait.Limit) string {
	if l == nil {
		return ""
	}
	secs := func(d wait.Duration) string { return fmt.Sprintf("%.1fs", time.Duration(d).Seconds()) }
	waited := ""
	if l.Waited > 0 {
		waited = fmt.Sprintf("%d of %d reconciles waited more than 1s for a worker (%s on average, %s at most)",
			l.Waited, l.Reconciles, secs(l.MeanWait), secs(l.MaxWait))
	}
	if l.Kind == wait.LimitWorkers {
		return fmt.Sprintf("limit: kustomize-controller's worker pool. %d reconciles took %s of work on %s (%s at least), "+
			"more than the longest dependency chain (%s); %s. --concurrent %d could save about %s, if the controller has the CPU and disk for it (each reconcile untars the source artifact).",
			l.Reconciles, secs(l.Work), Plural(l.Workers, "worker"), secs(l.ThroughputBound), secs(l.CriticalPath), waited, l.Concurrent, secs(l.Saving))
	}
	line := fmt.Sprintf("limit: the dependency chain %s (%s, %s of reconciles); the worker pool needed %s (%s), so a higher --concurrent would not help",
		chainText(l.Chain), Plural(len(l.Chain), "Kustomization"), secs(l.CriticalPath), secs(l.ThroughputBound), Plural(l.Workers, "worker"))
	if waited != "" {
		line += "; " + waited
	}
	return line + "."
}

// chainText names a chain's Kustomizations by namespace/name, its first
// two and its last when it is longer than four.
func chainText(chain []tiers.ID) string {
	names := make([]string, 0, len(chain))
	for i, id := range chain {
		if len(chain) > 4 && i >= 2 && i < len(chain)-1 {
			if i == 2 {
				names = append(names, "…")
			}
			continue
		}
		names = append(names, id.NamespacedName())
	}
	return strings.Join(names, " → ")
}

// firstLine returns the first line of s once s is trimmed: a Ready message
// can carry a whole change-set log.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
