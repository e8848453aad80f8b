// Package benchgraph generates the Flux graphs standup's cold-start
// benchmarks run on: layered graphs of Kustomizations with dependsOn edges
// between consecutive tiers, a few edges that skip a tier, and a duration
// per Kustomization.
//
// Generate is deterministic: the same Spec always yields the same Graph, and
// Graph.WriteTree the same bytes. Each Kustomization gets a directory
// ./ks/<name>/ holding one Delay custom resource (bench.standup.dev/v1,
// spec.seconds = its duration), or a ConfigMap when it has no duration.
// Graph.Kustomizations returns the matching testenv.KS specs with wait: true,
// so kustomize-controller's health check holds each one un-Ready until the
// test world's Delay controller marks its Delay Ready.
//
// Graph.CriticalPath is the physical limit of any walk: the longest dependsOn
// path weighted by per-node durations (in a benchmark, the durations
// kustomize-controller reported). Graph.TierBound is what a tier-by-tier
// script costs: the sum over tiers of each tier's slowest node.
//
// kustomize-controller v1.9 polls health every 5 s (HealthCheckPoll), first
// at once after the apply, so a Delay of d seconds holds its Kustomization
// for about d rounded up to the next multiple of 5 s; Graph.Durations with
// that poll gives the durations the controller will actually show.
//
// Graph.ThroughputBound is the other limit: every reconcile holds one of
// kustomize-controller's workers (--concurrent) for its duration, so no
// walk ends before the sum of the durations over the workers. A walk is
// bound by the larger of the two.
//
// Uniform and Uneven are issue 7's scenarios; Scale is issue 18's 300-node
// one (Spec.Slow gives durations to a few nodes only, one per tier).
package benchgraph
