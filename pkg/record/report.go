package record

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/timeline"
	"github.com/kubestandup/standup/pkg/wait"
)

// Report is a record turned into the post-mortem: what happened, what
// standup changed, why it took that long. Analyze builds it; the printer
// renders it as text, markdown or JSON.
type Report struct {
	Header *Header `json:"header"`
	// Elapsed is the run's length, from the header to the last line.
	Elapsed wait.Duration `json:"elapsed"`
	// Summary is the walk's; nil when the run was cut off first.
	Summary *wait.Summary `json:"summary,omitempty"`
	// Truncated: the record ends in a partial line; Dropped: it reached
	// its size limit.
	Truncated bool     `json:"truncated,omitempty"`
	Dropped   *Dropped `json:"dropped,omitempty"`
	// Timeline is the walk, one bar per node.
	Timeline *timeline.Timeline `json:"timeline"`
	// Nodes says, node by node, how long it waited and on what.
	Nodes []NodeReport `json:"nodes"`
	// CriticalPath is the chain of nodes that set the walk's length, first
	// to last: the walk's own (Summary.Limit) when it measured one, else
	// the chain of latest-ending dependencies from the node that ended
	// last.
	CriticalPath []tiers.ID `json:"criticalPath"`
	// Changes are standup's mutations, in order: each action event.
	Changes []Change `json:"changes"`
	// Decisions are the deadlock diagnoses: suspected, proven or not.
	Decisions []wait.Event `json:"decisions"`
	// Writes counts the mutating API requests standup made, by verb and
	// resource, as the API server's audit would count them.
	Writes map[string]int `json:"writes"`
	// Requests counts every API request, and Failed those with no
	// response or a status of 400 or more.
	Requests int `json:"requests"`
	Failed   int `json:"failedRequests"`
	// Errors are the first MaxReportedErrors of those requests.
	Errors []TimedRequest `json:"errors,omitempty"`
}

// MaxReportedErrors bounds Report.Errors.
const MaxReportedErrors = 50

// NodeReport is one node's part of the bring-up.
type NodeReport struct {
	Node tiers.ID `json:"node"`
	Tier int      `json:"tier"`
	// Waited is the time before standup asked it to reconcile;
	// WaitedOn the dependency that became Ready last (what it waited on).
	Waited   wait.Duration `json:"waited"`
	WaitedOn *tiers.ID     `json:"waitedOn,omitempty"`
	// Reconciled is the time from the request to the end (stuck and
	// repair time included); Stuck that part spent on a deadlock.
	Reconciled wait.Duration    `json:"reconciled"`
	Stuck      wait.Duration    `json:"stuck,omitempty"`
	Outcome    timeline.Outcome `json:"outcome"`
	End        wait.Duration    `json:"end"`
}

// Change is one mutation standup made.
type Change struct {
	Time    time.Time `json:"time"`
	Node    *tiers.ID `json:"node,omitempty"`
	Action  string    `json:"action"`
	Message string    `json:"message"`
}

// Analyze turns a record into its report.
func Analyze(rec *Record) *Report {
	start := rec.Header.Started
	r := &Report{Header: rec.Header, Summary: rec.Summary, Truncated: rec.Truncated, Dropped: rec.Dropped, Writes: map[string]int{}}
	end := start
	for _, e := range rec.Events {
		if e.Time.After(end) {
			end = e.Time
		}
		switch e.Type {
		case wait.EventAction:
			r.Changes = append(r.Changes, Change{Time: e.Time, Node: e.Node, Action: e.Action, Message: e.Message})
		case wait.EventDiagnosis:
			r.Decisions = append(r.Decisions, e)
		}
	}
	for _, q := range rec.Request {
		r.Requests++
		if q.Code == 0 || q.Code >= 400 {
			r.Failed++
			if len(r.Errors) < MaxReportedErrors {
				r.Errors = append(r.Errors, q)
			}
		}
		if q.Mutation() {
			r.Writes[q.Verb+" "+q.Resource]++
		}
		if q.At.After(end) {
			end = q.At
		}
	}
	r.Elapsed = wait.Duration(end.Sub(start))
	title := "standup " + strings.Join(argsAfterProgram(rec.Header.Command), " ")
	r.Timeline = timeline.FromEvents(strings.TrimSpace(title), start, rec.Events)
	r.Nodes = nodeReports(r.Timeline, rec.Graph)
	r.CriticalPath = criticalPath(r, rec.Graph)
	return r
}

// Reconciles is each node's measured reconcile, read off the report's
// timeline (timeline.Bar.Pass): the pass that brought it Ready, from the
// controller taking up standup's last request to Ready, health checks
// included, as kustomize-controller times the lastReconciledDuration of
// its status.history. Left out: the wait on dependencies, in standup's or
// the controller's queue, a pass the controller cut short on a dependency
// not Ready, a deadlock's proof and repair, and the wait for CRDs to be
// established after Ready. A node that did not end Ready, that standup
// found Ready already and left alone, or that turned Ready while stuck on
// a missing kind has none.
func (r *Report) Reconciles() map[tiers.ID]time.Duration {
	out := map[tiers.ID]time.Duration{}
	for _, b := range r.Timeline.Bars {
		if d, ok := b.Pass(); ok {
			out[b.Node] = d
		}
	}
	return out
}

func argsAfterProgram(cmd []string) []string {
	if len(cmd) > 0 {
		return cmd[1:]
	}
	return nil
}

// nodeReports reads each bar: its wait, what it waited on (from the
// graph: the dependency whose bar ended last before this one's request),
// its reconcile and its stuck time.
func nodeReports(tl *timeline.Timeline, g *Graph) []NodeReport {
	deps := map[tiers.ID][]tiers.ID{}
	if g != nil {
		for _, n := range g.Nodes {
			for _, d := range n.DependsOn {
				deps[n.ID] = append(deps[n.ID], d.ID)
			}
		}
	}
	ends := map[tiers.ID]time.Duration{}
	for _, b := range tl.Bars {
		ends[b.Node] = b.End
	}
	out := make([]NodeReport, 0, len(tl.Bars))
	for _, b := range tl.Bars {
		waited := b.Time(timeline.Waiting)
		n := NodeReport{Node: b.Node, Tier: b.Tier, Waited: wait.Duration(waited), Outcome: b.Outcome, End: wait.Duration(b.End),
			Reconciled: wait.Duration(b.End - waited), Stuck: wait.Duration(b.Time(timeline.Stuck) + b.Time(timeline.Remediating))}
		var last time.Duration = -1
		for _, d := range deps[b.Node] {
			if e, ok := ends[d]; ok && e > last && e <= waited {
				dd := d
				n.WaitedOn, last = &dd, e
			}
		}
		out = append(out, n)
	}
	return out
}

// criticalPath is the walk's own chain when its summary measured one;
// else, from the node that ended last, the dependency that ended last
// before it, and so on back.
func criticalPath(r *Report, g *Graph) []tiers.ID {
	if r.Summary != nil && r.Summary.Limit != nil && len(r.Summary.Limit.Chain) > 0 {
		return r.Summary.Limit.Chain
	}
	if len(r.Nodes) == 0 {
		return nil
	}
	byID := map[tiers.ID]NodeReport{}
	for _, n := range r.Nodes {
		byID[n.Node] = n
	}
	last := slices.MaxFunc(r.Nodes, func(a, b NodeReport) int { return cmp.Compare(a.End, b.End) })
	var path []tiers.ID
	for n, ok := last, true; ok && len(path) <= len(r.Nodes); {
		path = append(path, n.Node)
		if n.WaitedOn == nil {
			break
		}
		n, ok = byID[*n.WaitedOn]
	}
	slices.Reverse(path)
	return path
}
