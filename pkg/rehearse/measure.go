package rehearse

import (
	"time"

	"github.com/kubestandup/standup/pkg/tiers"
)

// Source says where the rehearsal took a node's reconcile duration from.
type Source string

const (
	// SourceModel: the cost model (Model.Cost).
	SourceModel Source = "model"
	// SourceRecord: an incident record's measured pass
	// (record.Report.Reconciles).
	SourceRecord Source = "record"
	// SourceCluster: the lastReconciledDuration of a Kustomization's
	// status.history (FromHistory).
	SourceCluster Source = "cluster"
)

// NodeDuration is the reconcile duration a rehearsal gives one node, and
// where it comes from.
type NodeDuration struct {
	Node     tiers.ID      `json:"node"`
	Source   Source        `json:"source"`
	Duration time.Duration `json:"duration"`
}

// Cost is what a successful reconcile of n holds a controller's worker
// for, from the moment it takes n up to Ready, wait and health checks
// included: n's measured Duration when it has one, else the model's (a
// Kustomization's build, plus each object applied, plus Health when it
// waits; a HelmRelease's install).
func (m Model) Cost(n Node) time.Duration {
	switch {
	case n.Duration > 0:
		return n.Duration
	case n.ID.Kind == KindHelmRelease:
		return m.HelmInstall
	}
	d := m.PerBuild + time.Duration(n.Objects)*m.PerObject
	if n.Waits {
		d += m.Health
	}
	return d
}

// Measure gives every node of s that measured holds (by kind, namespace
// and name) that duration, from source, and leaves the others to the
// model. It returns the scenario and, node by node in s's order, the
// duration each has under m and where it comes from; s is not changed.
func Measure(s Scenario, m Model, measured map[tiers.ID]time.Duration, source Source) (Scenario, []NodeDuration) {
	out := Scenario{Nodes: make([]Node, len(s.Nodes))}
	durations := make([]NodeDuration, len(s.Nodes))
	for i, n := range s.Nodes {
		from := SourceModel
		if d, ok := measured[n.ID]; ok && d > 0 {
			n.Duration, from = d, source
		}
		out.Nodes[i] = n
		durations[i] = NodeDuration{Node: n.ID, Source: from, Duration: m.Cost(n)}
	}
	return out, durations
}
