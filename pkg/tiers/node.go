package tiers

import "fmt"

// ID identifies a Flux object in the graph by kind, namespace and name.
type ID struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// String renders the ID as Kind/namespace/name, the form used in errors.
func (id ID) String() string {
	return fmt.Sprintf("%s/%s/%s", id.Kind, id.Namespace, id.Name)
}

// NamespacedName renders the ID as namespace/name, the form used in cycle paths.
func (id ID) NamespacedName() string {
	return id.Namespace + "/" + id.Name
}

// Less orders IDs by namespace, then name, then kind, so that output is deterministic.
func (id ID) Less(other ID) bool {
	if id.Namespace != other.Namespace {
		return id.Namespace < other.Namespace
	}
	if id.Name != other.Name {
		return id.Name < other.Name
	}
	return id.Kind < other.Kind
}

// Dependency is one spec.dependsOn entry, already resolved to a full ID
// (a missing namespace defaults to the dependent's own namespace).
type Dependency struct {
	ID ID `json:"id"`
	// ReadyExpr is the entry's CEL readiness expression, if any. It does not
	// change the graph: an entry with an expression is still an edge.
	ReadyExpr string `json:"readyExpr,omitempty"`
	// ExistsOnly is true for an entry that asks only that the object
	// exist, not that it be ready (a Flux Operator ResourceSet's dependsOn
	// without ready). It does not change the graph either.
	ExistsOnly bool `json:"existsOnly,omitempty"`
}

// Node is one vertex of the dependency graph.
type Node struct {
	ID        ID           `json:"id"`
	DependsOn []Dependency `json:"dependsOn,omitempty"`
}
