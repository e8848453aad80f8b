#!/usr/bin/env bash
# bench-coldstart.sh runs standup's cold-start benchmarks (issue 7, issue 4's
# chain of five Kustomizations and issue 19's chain of five HelmReleases,
# which the default pattern's Chain5 matches too) on the real test world and
# prints their tables.
#
# Every scenario starts each contender from the same cold state: every
# existing Kustomization suspended, kustomize-controller running with its
# default flags. Contenders: Flux alone, the seed's tier-by-tier script
# (scripts/tier-walk.sh), `standup resume`, and the critical-path bound.
# Method and results: docs/benchmarks.md.
#
# Environment:
#   BENCH_RUNS           runs per scenario (default 3; 1 for a quick look)
#   BENCH_DEADLOCK_RUNS  runs of the deadlock scenario (default BENCH_RUNS;
#                        two of its contenders wait out the 5-minute cap)
#   BENCH_CAP            cap of the generated scenarios (default 10m)
#   BENCH_DEADLOCK_CAP   cap of the deadlock scenario (default 5m)
#   BENCH_PATTERN        go test -bench pattern (default 'Coldstart|Chain5')
#   BENCH_OUT            where the tables go (default a new temporary directory)
# Extra arguments go to `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."
assets=$(bash scripts/testenv.sh)
export KUBEBUILDER_ASSETS="$assets"
export BENCH_OUT="${BENCH_OUT:-$(mktemp -d -t standup-bench.XXXXXX)}"
mkdir -p "$BENCH_OUT"
pattern="${BENCH_PATTERN:-Coldstart|Chain5}"
echo "bench: KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS BENCH_RUNS=${BENCH_RUNS:-3} BENCH_OUT=$BENCH_OUT" >&2
echo "bench: standup at $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (uncommitted changes)')" >&2
status=0
go test -run '^$' -bench "$pattern" -benchtime 1x -timeout 90m "$@" ./bench/ | tee "$BENCH_OUT/go-test.txt" || status=$?
echo
for f in uniform uneven deadlock; do
  [ -f "$BENCH_OUT/$f.md" ] && { cat "$BENCH_OUT/$f.md"; echo; }
done
grep -h '^chain of 5\|^HelmRelease chain of 5' "$BENCH_OUT/go-test.txt" || true
echo "bench: tables and raw measurements in $BENCH_OUT" >&2
exit "$status"
