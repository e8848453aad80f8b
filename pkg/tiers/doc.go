// Package tiers holds standup's dependency graph of Flux objects: nodes
// identified by kind, namespace and name, edges taken from spec.dependsOn,
// and the tiers derived from them.
//
// Tier 0 holds the nodes that depend on nothing; every other node sits one
// tier above the highest of its dependencies, and each tier is sorted by
// namespace/name (ID.Less), so the same graph always yields the same order.
//
// Build validates the graph and reports what is wrong with typed errors:
// DuplicateError for an ID given twice, CycleError listing every cycle as a
// full path (flux-system/a -> flux-system/b -> flux-system/a), and
// MissingError naming each dependent and the object it depends on that does
// not exist. With Options.AllowMissing the missing objects are instead
// treated as external and ready, and reported through Graph.Missing.
//
// Selection chooses what a walk touches (--only, --from, --exclude, and -n
// as its Namespace: the namespace's nodes are walked, their ancestors
// elsewhere only waited on), and Scope keeps a namespace's nodes with their
// ancestors in any namespace, so that a view of one namespace has the tiers
// of the whole graph.
//
// The package is pure: it never reads a cluster or a file. Every algorithm is
// iterative (Kahn's sort, Tarjan's components, Johnson's circuits), so a
// chain of any length cannot exhaust the stack.
package tiers
