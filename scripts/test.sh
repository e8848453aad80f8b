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
# -p 1: the end-to-end packages each start real control planes; on a
# 2-core machine running them side by side only makes them slower.
exec go test -race -p 1 -timeout 80m "$@" ./...
