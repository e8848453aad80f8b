package check

import (
	"strings"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/tiers"
)

// Status is the verdict of one check.
type Status string

// The verdicts a check can reach.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	// Skip is a check that does not apply: nothing to look at, or it needs
	// what another check found missing (Flux itself).
	Skip Status = "skip"
)

// Report is the whole verdict of `standup check`, the -o json document
// (schema in docs/check.md).
type Report struct {
	SchemaVersion int      `json:"schemaVersion"`
	OK            bool     `json:"ok"`
	Checks        []Result `json:"checks"`
}

// Result is one line of the checklist and what it found.
type Result struct {
	Name    string `json:"name"`
	Status  Status `json:"status"`
	Summary string `json:"summary"`
	Items   []Item `json:"items"`
}

// Item is one object a check looked at: every problem, and for --ready and
// controllers every object named.
type Item struct {
	Object    *tiers.ID       `json:"object,omitempty"`
	OK        bool            `json:"ok"`
	Message   string          `json:"message"`
	Diagnosis *crds.Diagnosis `json:"diagnosis,omitempty"`
}

// Failed returns the names of the checks that failed.
func (r Report) Failed() []string {
	var out []string
	for _, c := range r.Checks {
		if c.Status == Fail {
			out = append(out, c.Name)
		}
	}
	return out
}

// FailedError is a report in which some checks failed; it names them.
type FailedError struct{ Checks []string }

func (e *FailedError) Error() string { return "check failed: " + strings.Join(e.Checks, ", ") }

// Err returns a *FailedError naming the failed checks, or nil when every check held.
func (r Report) Err() error {
	if failed := r.Failed(); len(failed) > 0 {
		return &FailedError{Checks: failed}
	}
	return nil
}
