#!/usr/bin/env bash
# bench-coldstart.sh runs standup's cold-start benchmarks (issues 4, 7, 18
# and 19: the chains of five Kustomizations and of five HelmReleases, which
# the default pattern's Chain5 matches) on the real test world, prints their
# tables, and with --write-doc puts them into docs/benchmarks.md: the one
# command that regenerates its tables.
#
# Every scenario starts each contender from the same cold state: every
# existing Kustomization suspended, kustomize-controller running with its
# default flags. Contenders: Flux alone, Flux tuned (--requeue-dependency=5s,
# in a world of its own), the seed's tier-by-tier script
# (scripts/tier-walk.sh), `standup resume`, and the bounds (critical path,
# throughput). Method and results: docs/benchmarks.md.
#
# Usage: scripts/bench-coldstart.sh [quick|full] [--write-doc] [--background] [go test flags...]
#   quick         one run per scenario, the stuck deadlock contenders capped at
#                 2m: for development (about 35 minutes)
#   full          BENCH_RUNS runs per scenario (default 3): the recorded
#                 tables (about 2 hours). The default mode.
#   --write-doc   replace each scenario's table in docs/benchmarks.md (between
#                 its <!-- bench:NAME begin/end --> markers) with this run's,
#                 stamped with the commit, the mode and the command; then
#                 the goals table built from the blocks, and the README's
#                 summary (<!-- bench:summary begin/end -->) likewise
#   --background  run detached (nohup), logging to $BENCH_OUT/log; prints the
#                 pid and where to look
#
# Environment:
#   BENCH_RUNS           runs per scenario (full mode; default 3)
#   BENCH_DEADLOCK_RUNS  runs of the deadlock scenario (default BENCH_RUNS;
#                        three of its contenders wait out their cap)
#   BENCH_CAP            cap of the generated scenarios (default 10m)
#   BENCH_SCALE_CAP      cap of the scale scenario (default 30m)
#   BENCH_DEADLOCK_CAP   cap of the deadlock scenario (default 5m; 2m quick)
#   BENCH_PATTERN        go test -bench pattern (default 'Coldstart|Chain5';
#                        e.g. Coldstart/scale)
#   BENCH_OUT            where the tables go (default a new temporary directory)
#   BENCH_SCALE          the scale scenario at another size, DEPTHxWIDTHxSLOW
#                        (development only: --write-doc refuses it)
#   BENCH_CONTENDERS     only these contenders (flux,tuned,script,standup) in
#                        the generated scenarios (development only, likewise)
#   BENCH_CONTROLLER_TMPDIR  where kustomize-controller untars artifacts, e.g.
#                        /dev/shm (a tmpfs): the scenarios are then named
#                        NAME-tmpfs, tables and doc markers alike
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/doclib.sh

mode=full write_doc=0 background=0
args=()
for a in "$@"; do
  case "$a" in
    quick|full) mode="$a" ;;
    --write-doc) write_doc=1 ;;
    --background) background=1 ;;
    *) args+=("$a") ;;
  esac
done

# knobs: every variable the caller set that changes what runs, for the
# command each table's stamp shows (before quick mode sets its own).
knobs=""
for v in BENCH_RUNS BENCH_DEADLOCK_RUNS BENCH_CAP BENCH_DEADLOCK_CAP BENCH_SCALE_CAP BENCH_CONTROLLER_TMPDIR; do
  [ -n "${!v:-}" ] && knobs="$knobs $v=${!v}"
done
if [ "$mode" = quick ]; then
  export BENCH_RUNS=1 BENCH_DEADLOCK_RUNS=1
  export BENCH_DEADLOCK_CAP="${BENCH_DEADLOCK_CAP:-2m}"
fi
export BENCH_OUT="${BENCH_OUT:-$(mktemp -d -t standup-bench.XXXXXX)}"
mkdir -p "$BENCH_OUT"
if [ "$write_doc" = 1 ] && [ -n "${BENCH_SCALE:-}${BENCH_CONTENDERS:-}" ]; then
  echo "bench: --write-doc records the issue's scenarios only; unset BENCH_SCALE and BENCH_CONTENDERS" >&2
  exit 2
fi

if [ "$background" = 1 ]; then
  rest=("$mode")
  [ "$write_doc" = 1 ] && rest+=(--write-doc)
  nohup "$0" "${rest[@]}" ${args[@]+"${args[@]}"} >"$BENCH_OUT/log" 2>&1 </dev/null &
  echo "bench: running in the background as pid $!; log in $BENCH_OUT/log, tables in $BENCH_OUT" >&2
  exit 0
fi

assets=$(bash scripts/testenv.sh)
export KUBEBUILDER_ASSETS="$assets"
pattern="${BENCH_PATTERN:-Coldstart|Chain5}"
runs="${BENCH_RUNS:-3}"
# The tables this script writes are output, not what is measured.
commit=$(commit_line)
machine=$(machine_line)
echo "bench: $mode mode, KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS BENCH_RUNS=$runs BENCH_OUT=$BENCH_OUT" >&2
echo "bench: standup at $commit on $machine" >&2
load_before=$(load_average)
status=0
go test -run '^$' -bench "$pattern" -benchtime 1x -timeout 6h ${args[@]+"${args[@]}"} ./bench/ | tee "$BENCH_OUT/go-test.txt" || status=$?
load_after=$(load_average)
echo
scenarios="uniform uneven deadlock scale"
[ -n "${BENCH_CONTROLLER_TMPDIR:-}" ] && scenarios="uniform-tmpfs uneven-tmpfs deadlock-tmpfs scale-tmpfs"
for f in $scenarios; do
  [ -f "$BENCH_OUT/$f.md" ] && { cat "$BENCH_OUT/$f.md"; echo; }
done
grep -h '^chain of 5\|^HelmRelease chain of 5' "$BENCH_OUT/go-test.txt" >"$BENCH_OUT/chain5.md" 2>/dev/null || rm -f "$BENCH_OUT/chain5.md"
[ -f "$BENCH_OUT/chain5.md" ] && cat "$BENCH_OUT/chain5.md"

# stamp NAME: the line that says where a table comes from.
stamp() {
  local what="$runs runs per scenario"
  [ "$mode" = quick ] && what="one run per scenario"
  [ "${1%-tmpfs}" = deadlock ] && what="${BENCH_DEADLOCK_RUNS:-$runs} run(s), the stuck contenders capped at ${BENCH_DEADLOCK_CAP:-5m}"
  [ "$1" = chain5 ] && what="one run of each chain, whatever the mode"
  local env="BENCH_PATTERN='$pattern'$knobs"
  printf 'Measured at %s on %s with `%s scripts/bench-coldstart.sh %s --write-doc` (%s mode: %s; %s; load average %s before, %s after). Raw: [data/coldstart-%s.tsv](data/coldstart-%s.tsv).' \
    "$commit" "$(date -u +%Y-%m-%d)" "$env" "$mode" "$mode" "$what" "$machine" "$load_before" "$load_after" "$1" "$1"
}

# splice NAME FILE: replace the lines between NAME's markers in the doc with
# FILE, the stamp under its heading, and keep the run's raw measurements of
# NAME beside the doc (docs/data/coldstart-NAME.tsv), so that the table can
# be derived again.
splice() {
  local name="$1" file="$2" body
  body=$(mktemp)
  if head -n1 "$file" | grep -q '^### '; then
    { head -n1 "$file"; echo; stamp "$name"; echo; tail -n +2 "$file"; } >"$body"
  else
    { stamp "$name"; echo; echo; cat "$file"; } >"$body"
  fi
  splice_doc docs/benchmarks.md "bench:$name" "$body" || true
  rm -f "$body"
  mkdir -p docs/data
  { printf '# %s scripts/bench-coldstart.sh %s at %s on %s\n' "BENCH_PATTERN='$pattern'$knobs" "$mode" "$commit" "$machine"
    grep -P "^$name\t" "$BENCH_OUT/raw.txt" 2>/dev/null || true; } >"docs/data/coldstart-$name.tsv"
}

if [ "$write_doc" = 1 ]; then
  for f in $scenarios chain5; do
    [ -f "$BENCH_OUT/$f.md" ] && splice "$f" "$BENCH_OUT/$f.md"
  done
  # The goals table is read from the blocks just written and the others.
  goals=$(mktemp)
  go run ./internal/benchdoc/goaltable docs/benchmarks.md >"$goals" && splice_doc docs/benchmarks.md bench:goals "$goals"
  # So is the README's summary, the median of every contender on every graph.
  go run ./internal/benchdoc/summarytable docs/benchmarks.md >"$goals" && splice_doc README.md bench:summary "$goals"
  rm -f "$goals"
fi
echo "bench: tables and raw measurements in $BENCH_OUT" >&2
exit "$status"
