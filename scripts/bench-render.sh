#!/usr/bin/env bash
# bench-render.sh: offline render speed, side by side with a base commit
# (issues 14 and 37). Builds standup at BASE and at the working tree, runs
# `tiers --path` and `audit` on every repository of the corpus
# (../shared/corpus, see its MANIFEST.md) and on generated repositories,
# and prints, per case and command, the median wall time and CPU time
# (user + system) of each binary, their ratios (base / new: above 1 is
# faster) and each binary's peak RSS, then the goals of issue 37 against
# the new binary's figures. Each figure is over RUNS runs, the two
# binaries alternating, so that both see the same machine; the CPU time
# suffers less than the wall time from a busy one.
#
# The generated repositories are written by the Go generator the render's
# benchmarks use (pkg/render/internal/rendertest, through its genrepo
# command): gen-N, N Kustomizations of one ConfigMap each
# (BenchmarkLoadScale's shape), and gen-replacements-N, the home-ops
# template's shape (BenchmarkLoadReplacements): per-namespace
# kustomizations pulling in shared components and a shared replacements
# file, N applications each a Kustomization with components of its own.
#
# Both binaries' stdout, stderr and exit codes are kept under $BENCH_OUT,
# so that any change of output can be diffed:
#   diff -r $BENCH_OUT/base $BENCH_OUT/new
#
#   BASE=bb0c065 RUNS=5 scripts/bench-render.sh [--write-doc]
#
# --write-doc puts the table into docs/benchmarks.md (between
# <!-- bench:render begin --> and <!-- bench:render end -->), under a line
# naming the commit, the command, the base, the machine and the load
# average before and after, and keeps every run's measurements in
# docs/data/render.csv (case, binary, command, run, wall, CPU, peak RSS), so
# that the table can be derived again.
#
# variables: BASE (commit to compare with; default bb0c065, where issue 37
# started), RUNS (runs per case; default 5), CORPUS (default
# ../shared/corpus), SCALE (sizes of gen-N; default "500 1000 2000 4000"),
# REPLACEMENTS (sizes of gen-replacements-N; default 160), CASES (a regular
# expression of the case names to run, such as "kochhaus|gen-2000"; default
# all), BENCH_OUT (default a new temporary directory).
set -euo pipefail

root=$(git rev-parse --show-toplevel)
cd "$root"
. scripts/doclib.sh

write_doc=0
for a in "$@"; do
  case "$a" in
    --write-doc) write_doc=1 ;;
    *) echo "usage: [BASE=…] [RUNS=…] scripts/bench-render.sh [--write-doc]" >&2; exit 2 ;;
  esac
done

BASE=${BASE:-bb0c065}
RUNS=${RUNS:-5}
CORPUS=$(cd "${CORPUS:-$root/../shared/corpus}" && pwd)
SCALE=${SCALE:-500 1000 2000 4000}
REPLACEMENTS=${REPLACEMENTS:-160}
CASES=${CASES:-.*}
BENCH_OUT=${BENCH_OUT:-$(mktemp -d -t bench-render.XXXXXX)}
mkdir -p "$BENCH_OUT/bin" "$BENCH_OUT/base" "$BENCH_OUT/new" "$BENCH_OUT/gen"

# The command as run, for the stamp: the variables that change what runs.
command="BASE=$BASE RUNS=$RUNS"
[[ $SCALE == "500 1000 2000 4000" ]] || command+=" SCALE=\"$SCALE\""
[[ $REPLACEMENTS == 160 ]] || command+=" REPLACEMENTS=\"$REPLACEMENTS\""
[[ $CASES == ".*" ]] || command+=" CASES='$CASES'"
command+=" scripts/bench-render.sh"
((write_doc)) && command+=" --write-doc"

echo "building base $BASE and the working tree ($(git rev-parse --short HEAD)$(git diff --quiet || echo '+dirty'))" >&2
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
git archive "$BASE" | tar -x -C "$tree"
(cd "$tree" && go build -o "$BENCH_OUT/bin/base" ./cmd/standup)
go build -o "$BENCH_OUT/bin/new" ./cmd/standup
go build -o "$BENCH_OUT/bin/genrepo" ./pkg/render/internal/rendertest/genrepo

# cases: name|repo-root|path (path relative to the corpus directory).
cases=(
  "onedr0p|onedr0p__home-ops|onedr0p__home-ops/kubernetes/flux/cluster"
  "buroa|buroa__k8s-gitops|buroa__k8s-gitops/kubernetes/flux/cluster"
  "kochhaus|haraldkoch__kochhaus-home|haraldkoch__kochhaus-home/kubernetes/main/flux/cluster"
  "budimanjojo|budimanjojo__home-cluster|budimanjojo__home-cluster/cluster/base"
  "ahgraber|ahgraber__homelab-gitops-k3s|ahgraber__homelab-gitops-k3s/kubernetes/flux/cluster"
  "xunholy|xunholy__k8s-gitops/kubernetes|xunholy__k8s-gitops/kubernetes/clusters/cluster-00"
  "toboshii|toboshii__home-ops|toboshii__home-ops/cluster/flux"
  "helm-example-prod|fluxcd__flux2-kustomize-helm-example|fluxcd__flux2-kustomize-helm-example/clusters/production"
  "helm-example-staging|fluxcd__flux2-kustomize-helm-example|fluxcd__flux2-kustomize-helm-example/clusters/staging"
  "multi-tenancy-prod|fluxcd__flux2-multi-tenancy|fluxcd__flux2-multi-tenancy/clusters/production"
  "multi-tenancy-staging|fluxcd__flux2-multi-tenancy|fluxcd__flux2-multi-tenancy/clusters/staging"
  "monitoring|fluxcd__flux2-monitoring-example|fluxcd__flux2-monitoring-example/clusters/test"
  "hub-spoke|fluxcd__flux2-hub-spoke-example|fluxcd__flux2-hub-spoke-example/hub"
)
for n in $REPLACEMENTS; do
  [[ -d "$BENCH_OUT/gen/replacements$n" ]] || "$BENCH_OUT/bin/genrepo" replacements "$n" "$BENCH_OUT/gen/replacements$n"
  cases+=("gen-replacements-$n|@gen/replacements$n|@gen/replacements$n/clusters/c")
done
for n in $SCALE; do
  [[ -d "$BENCH_OUT/gen/n$n" ]] || "$BENCH_OUT/bin/genrepo" scale "$n" "$BENCH_OUT/gen/n$n"
  cases+=("gen-$n|@gen/n$n|@gen/n$n/clusters/c")
done

# run BIN OUTDIR NAME CMD ARGS...: one run; keeps its output, prints
# "wall_seconds cpu_seconds max_rss_kb".
run() {
  local bin=$1 out=$2 name=$3
  shift 3
  /usr/bin/time -f '%e %U %S %M' -o "$BENCH_OUT/time" "$BENCH_OUT/bin/$bin" "$@" \
    >"$out/$name.stdout" 2>"$out/$name.stderr" && echo 0 >"$out/$name.rc" || echo $? >"$out/$name.rc"
  tail -n 1 "$BENCH_OUT/time" | awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}'
}

# median of the numbers on stdin.
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
# ratio A B: A / B, two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }

load_before=$(load_average)
raw="$BENCH_OUT/render.csv"
echo "case,binary,command,run,wall_s,cpu_s,rss_kb" >"$raw"
table="$BENCH_OUT/table.md"
{
  echo "| case | command | base wall s | new wall s | wall ratio | base CPU s | new CPU s | CPU ratio | base peak RSS MB | new peak RSS MB |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} >"$table"
# medians: "case command wall cpu rss" of the new binary, for the goals.
: >"$BENCH_OUT/new.medians"
for c in "${cases[@]}"; do
  IFS='|' read -r name rroot path <<<"$c"
  [[ $name =~ ^($CASES)$ ]] || continue
  rroot=${rroot/#@/$BENCH_OUT/}
  path=${path/#@/$BENCH_OUT/}
  [[ $rroot == /* ]] || rroot=$CORPUS/$rroot
  [[ $path == /* ]] || path=$CORPUS/$path
  for cmd in tiers audit; do
    [[ $name =~ ^gen-[0-9]+$ && $cmd == audit ]] && continue
    for bin in base new; do : >"$BENCH_OUT/$bin.runs"; done
    # Alternate the two binaries, so that both see the same machine.
    for ((r = 1; r <= RUNS; r++)); do
      for bin in base new; do
        m=$(run "$bin" "$BENCH_OUT/$bin" "$name.$cmd" "$cmd" --path "$path" --repo-root "$rroot")
        echo "$m" >>"$BENCH_OUT/$bin.runs"
        read -r w u k <<<"$m"
        echo "$name,$bin,$cmd,$r,$w,$u,$k" >>"$raw"
      done
    done
    for bin in base new; do
      read -r "wall_$bin" <<<"$(cut -d' ' -f1 "$BENCH_OUT/$bin.runs" | median)"
      read -r "cpu_$bin" <<<"$(cut -d' ' -f2 "$BENCH_OUT/$bin.runs" | median)"
      read -r "rss_$bin" <<<"$(($(cut -d' ' -f3 "$BENCH_OUT/$bin.runs" | sort -n | tail -n 1) / 1024))"
    done
    echo "$name $cmd $wall_new $cpu_new $rss_new" >>"$BENCH_OUT/new.medians"
    printf '| %s | %s | %.2f | %.2f | %s | %.2f | %.2f | %s | %d | %d |\n' "$name" "$cmd" \
      "$wall_base" "$wall_new" "$(ratio "$wall_base" "$wall_new")" \
      "$cpu_base" "$cpu_new" "$(ratio "$cpu_base" "$cpu_new")" "$rss_base" "$rss_new" | tee -a "$table"
  done
done
load_after=$(load_average)

# The goals of issue 37, judged on the new binary's medians (wall time)
# and peak RSS; a goal whose cases did not run is left out.
goals="$BENCH_OUT/goals.md"
awk -v repl="gen-replacements-${REPLACEMENTS%% *}" '
  function verdict(ok) { return ok ? "met" : "**not met**" }
  { wall[$1 " " $2] = $3; rss[$1 " " $2] = $5 }
  $1 !~ /^gen-/ { n++; if ($3 > worst) { worst = $3; worstCase = $1 " " $2 } }
  END {
    print "Goals of issue 37, on the new binary (median wall time; peak RSS):"
    print ""
    if ((repl " tiers") in wall)
      printf "- %s in at most 1.0 s: %s (%.2f s)\n", repl, verdict(wall[repl " tiers"] <= 1.0), wall[repl " tiers"]
    if (n)
      printf "- every corpus repository in at most 1.0 s, for tiers and for audit: %s (slowest %s, %.2f s)\n", verdict(worst <= 1.0), worstCase, worst
    if (("gen-2000 tiers") in wall)
      printf "- gen-2000 in at most 1.0 s: %s (%.2f s)\n", verdict(wall["gen-2000 tiers"] <= 1.0), wall["gen-2000 tiers"]
    if (("gen-2000 tiers") in wall && ("gen-4000 tiers") in wall) {
      r = wall["gen-4000 tiers"] / wall["gen-2000 tiers"]
      printf "- gen-4000 in at most 2.2 times gen-2000: %s (%.2f times)\n", verdict(r <= 2.2), r
    }
    if (("gen-4000 tiers") in rss)
      printf "- peak RSS at most 200 MB at gen-4000: %s (%d MB)\n", verdict(rss["gen-4000 tiers"] <= 200), rss["gen-4000 tiers"]
  }' "$BENCH_OUT/new.medians" >"$goals"
echo >&2
cat "$goals"

if ((write_doc)); then
  commit=$(commit_line)
  body=$(mktemp)
  {
    printf 'Measured at %s on %s with `%s` (base `%s`; medians of %s runs per case, the two binaries alternating; %s; load average %s before, %s after). Raw: [data/render.csv](data/render.csv).\n\n' \
      "$commit" "$(date -u +%Y-%m-%d)" "$command" "$BASE" "$RUNS" "$(machine_line)" "$load_before" "$load_after"
    cat "$table"
    echo
    cat "$goals"
  } >"$body"
  splice_doc docs/benchmarks.md bench:render "$body"
  rm -f "$body"
  mkdir -p docs/data
  { printf '# %s at %s, base %s, on %s\n' "$command" "$commit" "$BASE" "$(machine_line)"; cat "$raw"; } >docs/data/render.csv
fi
echo "outputs: $BENCH_OUT/{base,new}; diff -r $BENCH_OUT/base $BENCH_OUT/new" >&2
