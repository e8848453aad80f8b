#!/usr/bin/env bash
# fuzz.sh runs every fuzz target of the module (every `func Fuzz…` in a
# _test.go file, found anew each run) for FUZZTIME (default 60s) each, one
# after the other, and ends with one line per target: result, executions
# and new interesting inputs. `make fuzz` calls it. The seed corpora live in
# each package's testdata/fuzz and run as ordinary tests in `go test ./...`.
# A failing input is written to testdata/fuzz/<Target>/ by go test itself.
#   FUZZTIME=10m bash scripts/fuzz.sh      # longer runs
#   FUZZPARALLEL=1 bash scripts/fuzz.sh    # fewer workers on a busy machine
#   FUZZTIME=1000000x bash scripts/fuzz.sh # a count of executions, not a time
#   FUZZTARGETS='FuzzBuild|FuzzLoadBundle' bash scripts/fuzz.sh  # some targets
#   bash scripts/fuzz.sh --write-doc       # the table of docs/reliability.md
# --write-doc runs every target (FUZZTARGETS is refused), writes the table
# between the `<!-- fuzz begin/end -->` markers of docs/reliability.md under a
# line naming the commit, the command, the machine and the load, and keeps
# the raw summary in docs/data/fuzz.tsv.
# Each new interesting input is minimised for at most FUZZMINIMIZETIME
# (default 3s; go test's own default of 60s stalls the run for minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/doclib.sh

write_doc=0
for arg in "$@"; do
	case "$arg" in
	--write-doc) write_doc=1 ;;
	*) echo "fuzz: unknown argument $arg (want --write-doc)" >&2; exit 2 ;;
	esac
done
if [[ "$write_doc" = 1 && -n "${FUZZTARGETS:-}" ]]; then
	echo "fuzz: --write-doc records every target; unset FUZZTARGETS" >&2
	exit 2
fi

fuzztime=${FUZZTIME:-60s}
minimize=${FUZZMINIMIZETIME:-3s}
parallel=()
if [[ -n "${FUZZPARALLEL:-}" ]]; then
	parallel=(-parallel "$FUZZPARALLEL")
fi

# "package target" for every fuzz target, sorted by package then name.
mapfile -t targets < <(grep -rl --include='*_test.go' '^func Fuzz' . | while read -r f; do
	sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$f" | sed "s|^|./$(dirname "${f#./}") |"
done | sort -u | grep -E " (${FUZZTARGETS:-.*})\$" || true)
if [[ "${#targets[@]}" = 0 ]]; then
	echo "fuzz: no fuzz target matches ${FUZZTARGETS:-.*}" >&2
	exit 2
fi

log=$(mktemp)
raw=$(mktemp)
trap 'rm -f "$log" "$raw"' EXIT
load_before=$(load_average)
status=0
printf 'target\tpackage\tresult\texecs\tnew_interesting\tfuzztime\n' >"$raw"
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	echo "fuzz: $name ($pkg) for $fuzztime" >&2
	result=ok
	if ! go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" "${parallel[@]}" 2>&1 | tee "$log" >&2; then
		result=FAIL
		status=1
	fi
	execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -n 1 | awk '{print $2}' || true)
	interesting=$(grep -oE 'new interesting: [0-9]+' "$log" | tail -n 1 | awk '{print $3}' || true)
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "${pkg#./}" "$result" "${execs:-unknown}" "${interesting:-unknown}" "$fuzztime" >>"$raw"
done
load_after=$(load_average)

echo "fuzz: summary (FUZZTIME=$fuzztime)"
column -t -s $'\t' "$raw" 2>/dev/null || cat "$raw"

if [[ "$write_doc" = 1 ]]; then
	body=$(mktemp)
	{
		printf 'Measured at %s on %s with `%s%sscripts/fuzz.sh --write-doc` (%s; %s each, %s; load average %s before, %s after). Raw: [data/fuzz.tsv](data/fuzz.tsv).\n\n' \
			"$(commit_line)" "$(date -u +%Y-%m-%d)" "${FUZZTIME:+FUZZTIME=$FUZZTIME }" "${FUZZPARALLEL:+FUZZPARALLEL=$FUZZPARALLEL }" \
			"$(machine_line)" "$fuzztime" "${FUZZPARALLEL:-$(nproc)} worker(s)" "$load_before" "$load_after"
		echo '| target | package | result | executions | new interesting inputs |'
		echo '|---|---|---|---|---|'
		tail -n +2 "$raw" | awk -F'\t' '{ printf "| `%s` | `%s` | %s | %s | %s |\n", $1, $2, ($3 == "ok" ? "no failure" : "**FAILED**"), $4, $5 }'
	} >"$body"
	mkdir -p docs/data
	cp "$raw" docs/data/fuzz.tsv
	splice_doc docs/reliability.md fuzz "$body"
	rm -f "$body"
fi
exit "$status"
