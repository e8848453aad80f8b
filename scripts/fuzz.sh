#!/usr/bin/env bash
# fuzz.sh runs every fuzz target for FUZZTIME (default 60s) each, one after
# the other, and ends with one line per target: result and exec count.
# `make fuzz` calls it. The seed corpora live in each package's
# testdata/fuzz and run as ordinary tests in `go test ./...` (CI).
# A failing input is written to testdata/fuzz/<Target>/ by go test itself.
#   FUZZTIME=10m bash scripts/fuzz.sh      # longer runs
#   FUZZPARALLEL=1 bash scripts/fuzz.sh    # fewer workers on a busy machine
#   FUZZTIME=1000000x bash scripts/fuzz.sh # a count of executions, not a time
# Each new interesting input is minimised for at most FUZZMINIMIZETIME
# (default 3s; go test's own default of 60s stalls the run for minutes).
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-60s}
minimize=${FUZZMINIMIZETIME:-3s}
parallel=()
if [[ -n "${FUZZPARALLEL:-}" ]]; then
	parallel=(-parallel "$FUZZPARALLEL")
fi

# package target
targets=(
	"./pkg/crds FuzzParseDryRunFailure"
	"./pkg/flux FuzzParseInventoryID"
	"./pkg/render FuzzReadManifests"
	"./pkg/crds FuzzLoadBundle"
	"./pkg/tiers FuzzBuild"
	"./internal/input FuzzCheckYAML"
	"./pkg/render FuzzRenderPrescan"
	"./pkg/audit FuzzBootstrapFile"
	"./pkg/render FuzzResourceJSON"
)

log=$(mktemp)
trap 'rm -f "$log"' EXIT
summary=()
status=0
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	echo "fuzz: $name ($pkg) for $fuzztime" >&2
	result=ok
	if ! go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" "${parallel[@]}" 2>&1 | tee "$log" >&2; then
		result=FAIL
		status=1
	fi
	execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -n 1 | awk '{print $2}' || true)
	summary+=("$(printf '%-24s %-14s %-4s execs=%s' "$name" "$pkg" "$result" "${execs:-unknown}")")
done
echo "fuzz: summary (FUZZTIME=$fuzztime)"
printf '%s\n' "${summary[@]}"
exit "$status"
