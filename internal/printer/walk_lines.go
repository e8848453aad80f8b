package printer

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubestandup/standup/pkg/wait"
)

// eventLine renders one event as a line: mark, object, message.
func eventLine(e wait.Event, st Styles) string {
	node := ""
	if e.Node != nil {
		node = e.Node.String() + " "
	}
	switch e.Type {
	case wait.EventAction:
		if e.Reason == "Failed" {
			return st.Fail.Render("✗") + " " + node + e.Action + " failed: " + e.Message
		}
		return st.Pending.Render("►") + " " + node + e.Action + ": " + e.Message
	case wait.EventDiagnosis:
		text := e.Message
		if e.Diagnosis != nil {
			text += "\n    " + strings.ReplaceAll(e.Diagnosis.String(), "\n", "\n    ")
		}
		return st.Warning.Render("!") + " " + node + text
	}
	switch e.Phase {
	case wait.PhaseReady:
		return st.OK.Render("✔") + " " + node + e.Message
	case wait.PhaseFailed:
		return st.Fail.Render("✗") + " " + node + e.Reason + ": " + firstLine(e.Message)
	case wait.PhaseBlocked:
		return st.Fail.Render("⊘") + " " + node + e.Message
	}
	return st.Dim.Render("…") + " " + node + string(e.Phase) + ": " + firstLine(e.Message)
}

// summaryLine renders a walk's summary: counts, time, mutations, and a mark
// that is ✔ only when every node ended ready.
func summaryLine(s wait.Summary, st Styles) string {
	line := fmt.Sprintf("%d/%d ready, %d failed, %d blocked in %.1fs (%d mutations)",
		s.Ready, s.Total, s.Failed, s.Blocked, time.Duration(s.Elapsed).Seconds(), s.Mutations)
	if s.Pending > 0 {
		line += fmt.Sprintf(", %d unfinished", s.Pending)
	}
	if s.Interrupted {
		line += ", interrupted"
	}
	if s.Failed == 0 && s.Blocked == 0 && s.Pending == 0 {
		return st.OK.Render("✔") + " " + line
	}
	return st.Fail.Render("✗") + " " + line
}

// firstLine returns the first line of s once s is trimmed: a Ready message
// can carry a whole change-set log.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
