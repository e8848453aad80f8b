#!/usr/bin/env bash
# bench-render.sh: offline render speed, side by side with a base commit
# (issue 14). Builds standup at BASE and at the working tree, runs
# `tiers --path` and `audit` on every repository of the corpus
# (../shared/corpus, see its MANIFEST.md) and on generated repositories of
# one-ConfigMap Kustomizations, and prints the median wall time of each
# binary, their ratio (base / new: above 1 is faster) and the new
# binary's peak RSS. It also keeps both
# binaries' stdout, stderr and exit codes under $BENCH_OUT so that any
# change of output can be diffed (diff -r $BENCH_OUT/base $BENCH_OUT/new).
# Each time is the median over RUNS runs, the two binaries alternating;
# "cpu" is user + system time, which a busy machine inflates less than
# the wall time.
#
#   BASE=2359559 RUNS=5 scripts/bench-render.sh
#
# variables: BASE (commit to compare with; default 2359559), RUNS (runs per
# case; default 5), CORPUS (default ../shared/corpus), SCALE (sizes of the
# generated repositories; default "500 1000 2000 4000"), CASES (a regular
# expression of the case names to run, such as "kochhaus|gen-2000"; default
# all), BENCH_OUT (default a new temporary directory).
set -euo pipefail

root=$(git rev-parse --show-toplevel)
cd "$root"
BASE=${BASE:-2359559}
RUNS=${RUNS:-5}
CORPUS=$(cd "${CORPUS:-$root/../shared/corpus}" && pwd)
SCALE=${SCALE:-500 1000 2000 4000}
CASES=${CASES:-.*}
BENCH_OUT=${BENCH_OUT:-$(mktemp -d -t bench-render.XXXXXX)}
mkdir -p "$BENCH_OUT/bin" "$BENCH_OUT/base" "$BENCH_OUT/new" "$BENCH_OUT/gen"

echo "building base $BASE and the working tree ($(git rev-parse --short HEAD)$(git diff --quiet || echo '+dirty'))" >&2
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
git archive "$BASE" | tar -x -C "$tree"
(cd "$tree" && go build -o "$BENCH_OUT/bin/base" ./cmd/standup)
go build -o "$BENCH_OUT/bin/new" ./cmd/standup

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

# genrepo DIR N writes N Kustomizations of one ConfigMap each (the shape of
# BenchmarkLoadScale in pkg/render).
genrepo() {
  local dir=$1 n=$2 i
  mkdir -p "$dir/clusters/c" "$dir/apps"
  printf 'apiVersion: standup.kubestandup.io/v1alpha1\nkind: Config\n' >"$dir/standup.yaml"
  printf 'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: flux-system, namespace: flux-system}\nspec: {interval: 10m, path: ./clusters/c, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n' >"$dir/clusters/c/flux-system.yaml"
  for ((i = 0; i < n; i++)); do
    mkdir -p "$dir/apps/k$i"
    {
      printf 'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: k%d, namespace: flux-system}\nspec:\n  interval: 10m\n  path: ./apps/k%d\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n' "$i" "$i"
      ((i > 0)) && printf '  dependsOn: [{name: k%d}, {name: k%d}]\n' $((i - 1)) $((i / 2))
    } >"$dir/clusters/c/k$i.yaml"
    printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: k%d, namespace: apps}\ndata: {key: value-%d}\n' "$i" "$i" >"$dir/apps/k$i/cm.yaml"
  done
}
for n in $SCALE; do
  [[ -d "$BENCH_OUT/gen/n$n" ]] || genrepo "$BENCH_OUT/gen/n$n" "$n"
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

printf '%-22s %-6s %8s %8s %6s %8s %8s %6s %7s\n' case cmd "base s" "new s" ratio "base cpu" "new cpu" ratio "new MB"
for c in "${cases[@]}"; do
  IFS='|' read -r name rroot path <<<"$c"
  [[ $name =~ ^($CASES)$ ]] || continue
  rroot=${rroot/#@/$BENCH_OUT/}
  path=${path/#@/$BENCH_OUT/}
  [[ $rroot == /* ]] || rroot=$CORPUS/$rroot
  [[ $path == /* ]] || path=$CORPUS/$path
  for cmd in tiers audit; do
    [[ $name == gen-* && $cmd == audit ]] && continue
    : >"$BENCH_OUT/base.runs"
    : >"$BENCH_OUT/new.runs"
    # Alternate the two binaries, so that both see the same machine.
    for ((r = 0; r < RUNS; r++)); do
      run base "$BENCH_OUT/base" "$name.$cmd" "$cmd" --path "$path" --repo-root "$rroot" >>"$BENCH_OUT/base.runs"
      run new "$BENCH_OUT/new" "$name.$cmd" "$cmd" --path "$path" --repo-root "$rroot" >>"$BENCH_OUT/new.runs"
    done
    tb=$(cut -d' ' -f1 "$BENCH_OUT/base.runs" | median)
    tn=$(cut -d' ' -f1 "$BENCH_OUT/new.runs" | median)
    cb=$(cut -d' ' -f2 "$BENCH_OUT/base.runs" | median)
    cn=$(cut -d' ' -f2 "$BENCH_OUT/new.runs" | median)
    mn=$(cut -d' ' -f3 "$BENCH_OUT/new.runs" | sort -n | tail -n 1)
    printf '%-22s %-6s %8.2f %8.2f %6.2f %8.2f %8.2f %6.2f %7d\n' "$name" "$cmd" "$tb" "$tn" \
      "$(awk -v a="$tb" -v b="$tn" 'BEGIN {print (b > 0 ? a / b : 0)}')" "$cb" "$cn" \
      "$(awk -v a="$cb" -v b="$cn" 'BEGIN {print (b > 0 ? a / b : 0)}')" $((mn / 1024))
  done
done
echo "outputs: $BENCH_OUT/{base,new}; diff -r $BENCH_OUT/base $BENCH_OUT/new" >&2
