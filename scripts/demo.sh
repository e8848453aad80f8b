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
# The first run builds the test world into ~/.cache/standup-testenv
# (scripts/testenv.sh, ~15 min); after that the demo takes about a minute.
# Needs go, bash and kubectl.
set -euo pipefail
cd "$(dirname "$0")/.."

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

for tool in go kubectl; do
  command -v "$tool" >/dev/null || die "$tool is not on PATH"
done

start=$SECONDS
tmp=$(mktemp -d "${TMPDIR:-/tmp}/standup-demo.XXXXXX")
world_pid=""
cleanup() {
  if [ -n "$world_pid" ] && kill -0 "$world_pid" 2>/dev/null; then
    kill -TERM "$world_pid" 2>/dev/null || true
    wait "$world_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

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
for _ in $(seq 1 180); do
  grep -q '^KUBECONFIG=' "$tmp/world.out" && break
  kill -0 "$world_pid" 2>/dev/null || { cat "$tmp/world.log" >&2; die "the test world did not start"; }
  sleep 1
done
grep -q '^KUBECONFIG=' "$tmp/world.out" || { cat "$tmp/world.log" >&2; die "the test world did not start in 180s"; }
export KUBECONFIG="$(sed -n 's/^KUBECONFIG=//p' "$tmp/world.out")"
cat "$tmp/world.log"

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

say "Done in $((SECONDS - start))s; tearing the world down"
