// Package bench holds standup's cold-start benchmarks on the real test
// world (kube-apiserver, etcd and kustomize-controller from
// internal/testenv), and the pure helpers they report with.
//
// BenchmarkColdstart (issue 7) measures, for each scenario and from the same
// cold state (every existing Kustomization suspended, the controller
// running), the wall time until every Kustomization is Ready under four
// contenders: Flux alone, the seed's tier-by-tier script
// (scripts/tier-walk.sh), `standup resume`, and the critical-path bound
// computed from the reconcile durations kustomize-controller logged in the
// standup run. BenchmarkChain5 (issue 4) is the two-contender chain of five.
//
// The helpers here are pure: Summarize and Stat for medians, ReconcileDurations
// for the controller's log, ParseRequests for `standup -v`, GraphOf for a
// rendered repository, and Scenario.Markdown for the results table. The
// benchmarks themselves live in the _test.go files; see docs/benchmarks.md
// and scripts/bench-coldstart.sh.
package bench
