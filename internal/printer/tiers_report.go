package printer

import (
	"slices"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// TiersSchemaVersion is the version of the tiers json and yaml schema. It
// changes only when a field is removed or changes meaning.
const TiersSchemaVersion = 1

// TiersReport is the view model of `standup tiers`: the graph's tiers with
// the details of each node, ready to print in any format.
type TiersReport struct {
	// SchemaVersion is TiersSchemaVersion.
	SchemaVersion int `json:"schemaVersion" yaml:"schemaVersion"`
	// Source says where the nodes came from, such as a cluster context or a path.
	Source string `json:"source" yaml:"source"`
	// Live is true when the nodes carry live status (Ready, revision).
	Live bool `json:"live" yaml:"live"`
	// Tiers lists the tiers in order, tier 0 first.
	Tiers []Tier `json:"tiers" yaml:"tiers"`
	// Missing lists dependencies on objects that do not exist and were
	// treated as external.
	Missing []MissingDependency `json:"missing" yaml:"missing"`
	// Warnings holds notes from reading the nodes, such as skipped documents.
	Warnings []string `json:"warnings" yaml:"warnings"`
	// Namespace is set when the report shows one namespace's nodes (-n).
	Namespace string `json:"namespace,omitempty" yaml:"namespace,omitempty"`
	// Outside lists, under a Namespace, the dependencies of its nodes in
	// other namespaces: not shown as nodes, waited on by a walk of the
	// namespace and never touched by it.
	Outside []OutsideNode `json:"outside,omitempty" yaml:"outside,omitempty"`
	// cycles are the edges of the dependency cycles the graph was refused
	// for (WithCycles), which the pictures draw in red.
	cycles []cycleEdge
}

// Tier is one tier of the report.
type Tier struct {
	// Tier is the tier's number, from 0.
	Tier int `json:"tier" yaml:"tier"`
	// Nodes are the tier's nodes, sorted by namespace, then name.
	Nodes []TierNode `json:"nodes" yaml:"nodes"`
}

// Ref names a Flux object by kind, namespace and name.
type Ref struct {
	Kind      string `json:"kind" yaml:"kind"`
	Namespace string `json:"namespace" yaml:"namespace"`
	Name      string `json:"name" yaml:"name"`
}

// DependencyRef is one dependsOn entry of a node.
type DependencyRef struct {
	Ref `yaml:",inline"`
	// ReadyExpr is the entry's CEL readiness expression, if any.
	ReadyExpr string `json:"readyExpr,omitempty" yaml:"readyExpr,omitempty"`
	// Missing is true when the dependency does not exist and was treated as external.
	Missing bool `json:"missing,omitempty" yaml:"missing,omitempty"`
	// Outside is true when the dependency lies outside the report's
	// Namespace (it is then listed in the report's Outside).
	Outside bool `json:"outside,omitempty" yaml:"outside,omitempty"`
}

// ReadyStatus is a node's Ready condition.
type ReadyStatus struct {
	Status  string `json:"status" yaml:"status"`
	Reason  string `json:"reason,omitempty" yaml:"reason,omitempty"`
	Message string `json:"message,omitempty" yaml:"message,omitempty"`
}

// TierNode is one node of a tier with what is known of its object.
type TierNode struct {
	Ref `yaml:",inline"`
	// DependsOn lists the node's dependencies, sorted by namespace, then name.
	DependsOn []DependencyRef `json:"dependsOn" yaml:"dependsOn"`
	// External is true when the graph holds the node but no object was
	// given for it, so nothing else is known.
	External bool `json:"external" yaml:"external"`
	// Suspended is spec.suspend.
	Suspended bool `json:"suspended" yaml:"suspended"`
	// Ready is the Ready condition; absent offline and before the
	// controller first reports.
	Ready *ReadyStatus `json:"ready,omitempty" yaml:"ready,omitempty"`
	// Revision is status.lastAppliedRevision.
	Revision string `json:"revision,omitempty" yaml:"revision,omitempty"`
	// Path is spec.path.
	Path string `json:"path,omitempty" yaml:"path,omitempty"`
	// SourceRef is spec.sourceRef, its namespace defaulted.
	SourceRef *Ref `json:"sourceRef,omitempty" yaml:"sourceRef,omitempty"`
	// AppliedBy is the Kustomization whose build produced this object.
	AppliedBy *Ref `json:"appliedBy,omitempty" yaml:"appliedBy,omitempty"`
	// File is the file the object was read from, relative to the repository root.
	File string `json:"file,omitempty" yaml:"file,omitempty"`
	// Target is the cluster the object applies to, from its
	// spec.kubeConfig (flux.Object.TargetCluster): its Secret as
	// namespace/name, ConfigMap/namespace/name for the workload-identity
	// form. Empty, and left out of json and yaml, for the cluster the
	// object lives in: the common case, one cluster, reads as before.
	Target string `json:"target,omitempty" yaml:"target,omitempty"`
}

// MissingDependency is a dependsOn edge to an object that does not exist.
type MissingDependency struct {
	// Dependent is the node declaring the dependency.
	Dependent Ref `json:"dependent" yaml:"dependent"`
	// Missing is the object that does not exist.
	Missing Ref `json:"missing" yaml:"missing"`
}

// NewTiersReport builds the report of g. Node details come from the object
// in objs with the same ID; a node without one is marked External. The
// report is Live when any object was read from a cluster (it has a
// generation or a Ready condition).
func NewTiersReport(source string, g *tiers.Graph, objs []flux.Object, warnings []string) TiersReport {
	byID := make(map[tiers.ID]*flux.Object, len(objs))
	for i := range objs {
		byID[objs[i].ID] = &objs[i]
	}
	r := TiersReport{
		SchemaVersion: TiersSchemaVersion,
		Source:        source,
		Tiers:         []Tier{},
		Missing:       []MissingDependency{},
		Warnings:      append([]string{}, warnings...),
	}
	for t, ids := range g.Tiers() {
		tier := Tier{Tier: t, Nodes: make([]TierNode, 0, len(ids))}
		for _, id := range ids {
			obj := byID[id]
			tier.Nodes = append(tier.Nodes, newTierNode(g, id, obj))
			r.Live = r.Live || (obj != nil && (obj.Generation > 0 || obj.Ready != nil))
		}
		r.Tiers = append(r.Tiers, tier)
	}
	for _, m := range g.Missing() {
		r.Missing = append(r.Missing, MissingDependency{Dependent: refOf(m.Dependent), Missing: refOf(m.Missing)})
	}
	return r
}

func newTierNode(g *tiers.Graph, id tiers.ID, obj *flux.Object) TierNode {
	n := TierNode{Ref: refOf(id), DependsOn: dependencyRefs(g, id), External: obj == nil}
	if obj == nil {
		return n
	}
	n.Suspended = obj.Suspended
	n.Revision = obj.LastAppliedRevision
	n.Path = obj.Path
	n.File = obj.File
	n.Target = obj.TargetCluster()
	if obj.Ready != nil {
		n.Ready = &ReadyStatus{Status: obj.Ready.Status, Reason: obj.Ready.Reason, Message: obj.Ready.Message}
	}
	if obj.SourceRef != (tiers.ID{}) {
		ref := refOf(obj.SourceRef)
		n.SourceRef = &ref
	}
	if obj.AppliedBy != nil {
		ref := refOf(*obj.AppliedBy)
		n.AppliedBy = &ref
	}
	return n
}

// dependencyRefs lists a node's declared dependencies once each, sorted.
func dependencyRefs(g *tiers.Graph, id tiers.ID) []DependencyRef {
	node, _ := g.Node(id)
	deps := slices.Clone(node.DependsOn)
	slices.SortStableFunc(deps, func(a, b tiers.Dependency) int { return compareIDs(a.ID, b.ID) })
	out := make([]DependencyRef, 0, len(deps))
	for i, d := range deps {
		if i > 0 && d.ID == deps[i-1].ID {
			if last := &out[len(out)-1]; last.ReadyExpr == "" {
				last.ReadyExpr = d.ReadyExpr
			}
			continue
		}
		_, present := g.TierOf(d.ID)
		out = append(out, DependencyRef{Ref: refOf(d.ID), ReadyExpr: d.ReadyExpr, Missing: !present})
	}
	return out
}

func compareIDs(a, b tiers.ID) int {
	switch {
	case a.Less(b):
		return -1
	case b.Less(a):
		return 1
	default:
		return 0
	}
}

func refOf(id tiers.ID) Ref { return Ref{Kind: id.Kind, Namespace: id.Namespace, Name: id.Name} }

// id converts a Ref back to a graph ID.
func (r Ref) id() tiers.ID { return tiers.ID{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name} }

// namespacedName renders the Ref as namespace/name.
func (r Ref) namespacedName() string { return r.Namespace + "/" + r.Name }
