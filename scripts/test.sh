#!/usr/bin/env bash
# test.sh runs standup's whole test suite: it builds (or reuses) the test
# world with scripts/testenv.sh, then runs every test with the race detector.
# Extra arguments go to `go test` (e.g. -run TestResume).
set -euo pipefail
cd "$(dirname "$0")/.."
assets=$(bash scripts/testenv.sh)
export KUBEBUILDER_ASSETS="$assets"
echo "test: KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS" >&2
exec go test -race -timeout 60m "$@" ./...
