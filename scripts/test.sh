#!/usr/bin/env bash
# test.sh runs standup's whole test suite: it builds (or reuses) the test
# world with scripts/testenv.sh, including the kustomize-controller release
# matrix, then runs every test with the race detector.
# Extra arguments go to `go test` (e.g. -run TestResume).
set -euo pipefail
cd "$(dirname "$0")/.."
export STANDUP_CONTROLLER_RELEASES="${STANDUP_CONTROLLER_RELEASES:-v1.9.6,v1.7.3}"
extra=""
for r in ${STANDUP_CONTROLLER_RELEASES//,/ }; do
  [ "$r" = "v1.9.6" ] || extra="$extra $r"
done
assets=$(EXTRA_KUSTOMIZE_CONTROLLER_VERSIONS="${extra# }" bash scripts/testenv.sh)
export KUBEBUILDER_ASSETS="$assets"
echo "test: KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS releases=$STANDUP_CONTROLLER_RELEASES" >&2
# Packages build and run side by side, but those that start control planes
# (cmd/standup, internal/testenv, pkg/crds) take turns: each holds the lock
# file STANDUP_TESTENV_LOCK names while it runs (testenv.LockMachine), since
# two sets of control planes on a 2-core machine only slow each other. -p 4:
# a package waiting for the lock uses no CPU, and leaves a slot to the rest.
lock="${TMPDIR:-/tmp}/standup-testenv-$$.lock"
trap 'rm -f "$lock"' EXIT
STANDUP_TESTENV_LOCK="$lock" go test -race -p 4 -timeout 80m "$@" ./...
