#!/usr/bin/env bash
# demo.sh (`make demo`): the seed's cold-start deadlock, live, and its repair.
#
# It starts the test world locally (a real kube-apiserver, etcd and Flux
# kustomize-controller, plus a simulated cdi-operator that creates the
# StorageProfile CRD only once a CDI object exists), loads
# examples/homelab-deadlock, shows Flux stuck on its own, runs
# `standup resume` (with its live view on a terminal), shows every
# Kustomization Ready, and tears the world down, also on Ctrl-C.
#
#   scripts/demo.sh           the demo, then the world torn down
#   scripts/demo.sh --keep    the demo, then the world left up (make demo
#                             KEEP=1): it prints the export KUBECONFIG=...
#                             line and how to stop it
#   scripts/demo.sh --stop DIR  stop a world --keep left up, and remove DIR
#   scripts/demo.sh --write-readme  the demo, its output (plain lines, as in
#                             a log) also written into README.md between
#                             <!-- demo:resume begin --> and its end marker,
#                             clock times, durations, ages and request
#                             tokens replaced so that reruns diff cleanly
#
# The first run builds the test world into ~/.cache/standup-testenv
# (scripts/testenv.sh, ~15 min); after that the demo takes about a minute.
# Needs go, bash and kubectl.
set -euo pipefail

REPO=examples/homelab-deadlock
BUNDLE=$REPO/bootstrap/crds
RUNTIME_CRDS=$BUNDLE/storageprofiles.cdi.kubevirt.io.yaml,cmd/standup/testdata/cdi-runtime-crds/datavolumes.cdi.kubevirt.io.yaml
# Flux re-checks an unready dependency every 30s; the demo world uses 5s so
# that Flux reaches its deadlock in seconds. standup does not depend on it.
REQUEUE_DEPENDENCY=5s

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\033[1m' reset=$'\033[0m'; else bold='' reset=''; fi
say() { printf '\n%s==> %s%s\n' "$bold" "$*" "$reset"; }
run() { printf '$ %s\n' "$*"; "$@"; }
die() { printf 'demo: %s\n' "$*" >&2; exit 1; }
usage() {
  printf 'usage: %s [--keep] [--write-readme] | --stop DIR\n' "$0" >&2
  exit 2
}

# parse_args sets mode (demo or stop), keep (0 or 1), readme (0 or 1:
# --write-readme) and stop_dir.
parse_args() {
  mode=demo keep=0 readme=0 stop_dir=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --keep) keep=1 ;;
      --write-readme) readme=1 ;;
      --stop)
        [ $# -ge 2 ] || usage
        mode=stop stop_dir=$2
        shift ;;
      -h|--help) usage ;;
      *) printf 'demo: unknown argument %s\n' "$1" >&2; usage ;;
    esac
    shift
  done
  if [ "$mode" = stop ] && { [ "$keep" = 1 ] || [ "$readme" = 1 ]; }; then usage; fi
}

# normalize_demo copies the demo's output from stdin to stdout with what
# differs from run to run replaced: kubectl's AGE column (Ns, padded to its
# width), clock times (hh:mm:ss.mmm), request tokens (RFC 3339), and the
# durations standup measures (N.Ns, and NmNNs for a wait of minutes).
# Durations a message states as a setting (at most 3s, a timeout of 5m0s)
# are kept.
normalize_demo() {
  awk '
    /^\$ kubectl get / { table = 1; print; next }
    /^(\$ |==> )/ || /^$/ { table = 0 }
    table {
      # the AGE column: the first field that reads 12s, 3m, 5m2s, 2h
      n = split($0, f, / +/)
      for (i = 1; i <= n; i++) {
        if (f[i] ~ /^[0-9]+[smhd]([0-9]+[sm])?$/) {
          pad = sprintf("%-" length(f[i]) "s", "Ns")
          sub(" " f[i] " ", " " pad " ")
          break
        }
      }
    }
    { print }
  ' |
    sed -E \
      -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z/YYYY-MM-DDThh:mm:ss.nnnnnnnnnZ/g' \
      -e 's/^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} /hh:mm:ss.mmm /' \
      -e 's/, [0-9]+m[0-9]{2}s: /, NmNNs: /g' \
      -e 's/, [0-9]+h[0-9]{2}m: /, NhNNm: /g' \
      -e 's/ready in [0-9]+m[0-9.]+s/ready in NmN.Ns/g' \
      -e 's/ready in [0-9]+s/ready in N.Ns/g' \
      -e 's/(^|[^0-9.])[0-9]+\.[0-9]+s([^0-9a-z]|$)/\1N.Ns\2/g'
}

# write_readme splices the captured demo output (file $1), normalised, into
# README.md between its demo:resume markers.
write_readme() {
  local body
  body=$(mktemp "${TMPDIR:-/tmp}/standup-demo-readme.XXXXXX")
  { echo '```'; normalize_demo <"$1" | sed '/./,$!d'; echo '```'; } >"$body"
  # shellcheck source=scripts/doclib.sh
  . scripts/doclib.sh
  splice_doc README.md demo:resume "$body"
  rm -f "$body"
}

# print_kept says how to use the world a --keep run left up, and how to
# stop it: KUBECONFIG, the directory of its files, the world's pid.
print_kept() {
  local kubeconfig=$1 dir=$2 pid=$3
  say "The world stays up (--keep)"
  printf 'Use it from another shell:\n'
  printf '  export KUBECONFIG=%s\n' "$kubeconfig"
  printf '  export PATH="%s/bin:$PATH"   # the standup this demo built\n' "$dir"
  printf '  kubectl get kustomizations -A\n'
  printf 'Stop it (kube-apiserver, etcd, kustomize-controller: pid %s) and remove %s:\n' "$pid" "$dir"
  printf '  bash scripts/demo.sh --stop %s\n' "$dir"
  printf '  (or kill %s, then rm -rf %s)\n' "$pid" "$dir"
}

# stop_kept stops the world a --keep run left in dir (its pid in
# dir/world.pid), waits for it to tear down, and removes dir.
stop_kept() {
  local dir=$1 pid
  [ -f "$dir/world.pid" ] || die "$dir holds no world.pid: not a world left up by demo.sh --keep"
  pid=$(cat "$dir/world.pid")
  case "$pid" in ''|*[!0-9]*) die "$dir/world.pid holds no pid" ;; esac
  if kill -TERM "$pid" 2>/dev/null; then
    for _ in $(seq 1 300); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && die "the world (pid $pid) did not stop in 30s"
    echo "demo: stopped the world (pid $pid)"
  else
    echo "demo: the world (pid $pid) was not running"
  fi
  rm -rf "$dir"
  echo "demo: removed $dir"
}

demo() {
  for tool in go kubectl; do
    command -v "$tool" >/dev/null || die "$tool is not on PATH"
  done

  start=$SECONDS
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/standup-demo.XXXXXX")
  world_pid=""
  interrupted=0
  cleanup() {
    if [ "$keep" = 1 ] && [ "$interrupted" = 0 ] && [ -n "$world_pid" ] && kill -0 "$world_pid" 2>/dev/null; then
      return # --keep: the world and its files stay, print_kept said how to stop them
    fi
    if [ -n "$world_pid" ] && kill -0 "$world_pid" 2>/dev/null; then
      kill -TERM "$world_pid" 2>/dev/null || true
      wait "$world_pid" 2>/dev/null || true
    fi
    rm -rf "$tmp"
  }
  trap cleanup EXIT
  trap 'interrupted=1; exit 130' INT TERM

  say "Test world: kube-apiserver, etcd, kustomize-controller (built once, then cached)"
  KUBEBUILDER_ASSETS=$(bash scripts/testenv.sh)
  export KUBEBUILDER_ASSETS
  echo "$KUBEBUILDER_ASSETS"

  say "Building standup and the demo world"
  mkdir -p "$tmp/bin"
  go build -o "$tmp/bin/standup" ./cmd/standup
  go build -o "$tmp/demo-world" ./internal/demo
  export PATH="$tmp/bin:$PATH"

  say "Starting the world with $REPO (Flux alone, simulated cdi-operator)"
  "$tmp/demo-world" --repo "$REPO" --runtime-crds "$RUNTIME_CRDS" --requeue-dependency "$REQUEUE_DEPENDENCY" \
    >"$tmp/world.out" 2>"$tmp/world.log" &
  world_pid=$!
  echo "$world_pid" >"$tmp/world.pid"
  for _ in $(seq 1 180); do
    grep -q '^KUBECONFIG=' "$tmp/world.out" && break
    kill -0 "$world_pid" 2>/dev/null || { cat "$tmp/world.log" >&2; die "the test world did not start"; }
    sleep 1
  done
  grep -q '^KUBECONFIG=' "$tmp/world.out" || { cat "$tmp/world.log" >&2; die "the test world did not start in 180s"; }
  KUBECONFIG="$(sed -n 's/^KUBECONFIG=//p' "$tmp/world.out")"
  export KUBECONFIG
  cat "$tmp/world.log"

  if [ "$readme" = 1 ]; then
    show_demo 2>&1 | tee "$tmp/demo.out"
    write_readme "$tmp/demo.out"
  else
    show_demo
  fi

  if [ "$keep" = 1 ]; then
    say "Done in $((SECONDS - start))s"
    print_kept "$KUBECONFIG" "$tmp" "$world_pid"
    return
  fi
  say "Done in $((SECONDS - start))s; tearing the world down (make demo KEEP=1 leaves it up)"
}

# show_demo is what the demo shows once its world is up: Flux stuck alone,
# standup's repair, every Kustomization Ready. --write-readme captures it.
show_demo() {
  say "Flux alone: waiting for platform-config to stop on the StorageProfile dry-run"
  stuck_message() {
    kubectl get kustomization platform-config -n flux-system \
      -o jsonpath='{.status.conditions[?(@.type=="Ready")].message}' 2>/dev/null || true
  }
  for _ in $(seq 1 120); do
    stuck_message | grep -q 'no matches for kind "StorageProfile"' && break
    sleep 1
  done
  stuck_message | grep -q 'no matches for kind "StorageProfile"' || die "platform-config never reached the deadlock"
  run kubectl get kustomizations -A
  run kubectl get cdis
  echo "(the CDI CR that would make cdi-operator create the StorageProfile CRD was never applied: Flux waits forever)"

  say "standup resume: prove the deadlock, pre-apply the one missing CRD, walk every tier to Ready"
  run standup resume --crds "$BUNDLE"

  say "Every Kustomization Ready"
  run kubectl get kustomizations -A
  run kubectl get crd storageprofiles.cdi.kubevirt.io \
    -o custom-columns='CRD:.metadata.name,PRE-APPLIED-FOR:.metadata.annotations.standup\.kubestandup\.io/pre-applied-for'
}

main() {
  cd "$(dirname "$0")/.."
  parse_args "$@"
  case "$mode" in
    stop) stop_kept "$stop_dir" ;;
    *) demo ;;
  esac
}

# Sourced (the tests do), it only defines its functions.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  main "$@"
fi
