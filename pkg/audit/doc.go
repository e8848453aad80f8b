// Package audit finds cold-start hazards in a Flux repository before they
// merge, from files only.
//
// Audit takes the offline view that render.Load builds (every object each
// Kustomization would apply) and the repository's standup.yaml (Config), and
// classifies where the kind of every rendered object comes from (its Origin):
// a built-in Kubernetes kind, a kind Flux installs, a CRD in the same
// Kustomization's output, a CRD in an ancestor's output (through dependsOn), a
// kind whose CRD an operator creates at runtime from a trigger object
// (Config.RuntimeCRDs), a kind whose CRD a HelmRelease's chart installs
// (Config.ChartCRDs), or unknown. From the origins and the dependency graph it
// reports Hazards, each with a stable Code, a Severity, the object, its file,
// its Kustomization and a one-line fix: second-order kinds applied in the same
// pass as their trigger, missing dependsOn edges, needs that no dependsOn
// can order (the provider waits for the consumer), providers whose Ready
// does not imply the CRD exists, unknown kinds, literal ${VAR} tokens and
// the graph errors of package tiers. docs/audit.md documents every code.
//
// Nothing touches a cluster, and everything but the bootstrap (bootstrap.go,
// which reads what the repository installs before Flux) is pure.
package audit
