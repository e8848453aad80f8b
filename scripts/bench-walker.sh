#!/usr/bin/env bash
# bench-walker.sh: the pure walker (pkg/wait) without a cluster, driven by a
# synthetic cold start (BenchmarkWalkerEvents: every node observed
# suspended, kicked, handled and Ready). Runs
#   go test -run '^$' -bench BenchmarkWalkerEvents -benchtime 5x -count 3 ./pkg/wait/
# and prints, per case, the time per event (median, min–max over the
# counts), the memory and the allocations per walk (medians).
#   bash scripts/bench-walker.sh              # print the table
#   bash scripts/bench-walker.sh --write-doc  # and write it into docs/benchmarks.md
# --write-doc writes the table between the `<!-- bench:walker begin/end -->`
# markers of docs/benchmarks.md under a line naming the commit, the command,
# the machine and the load, and keeps go test's raw output in
# docs/data/walker-events.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/doclib.sh

write_doc=0
for arg in "$@"; do
	case "$arg" in
	--write-doc) write_doc=1 ;;
	*) echo "bench-walker: unknown argument $arg (want --write-doc)" >&2; exit 2 ;;
	esac
done

raw=$(mktemp)
table=$(mktemp)
trap 'rm -f "$raw" "$table"' EXIT
load_before=$(load_average)
go test -run '^$' -bench BenchmarkWalkerEvents -benchtime 5x -count 3 ./pkg/wait/ | tee "$raw" >&2
load_after=$(load_average)

# One line per benchmark result: case, µs per event, MB per walk, allocations
# per walk; then per case the median (and min–max of the time) over the counts.
awk '
	$1 ~ /^BenchmarkWalkerEvents\// {
		name = $1; sub(/^BenchmarkWalkerEvents\//, "", name); sub(/-[0-9]+$/, "", name)
		ev = bytes = allocs = ""
		for (i = 3; i < NF; i++) {
			if ($(i+1) == "ns/event") ev = $i
			if ($(i+1) == "B/op") bytes = $i
			if ($(i+1) == "allocs/op") allocs = $i
		}
		if (!(name in seen)) { seen[name] = 1; order[++n] = name }
		k = ++count[name]
		evs[name, k] = ev / 1000; mbs[name, k] = bytes / 1e6; als[name, k] = allocs
	}
	function median(a, name, c,    v, i, j, t) {
		for (i = 1; i <= c; i++) v[i] = a[name, i]
		for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		lo = v[1]; hi = v[c]
		return (c % 2) ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
	}
	END {
		print "| case | µs per event: median (min–max) | MB per walk | allocations per walk |"
		print "|---|---|---|---|"
		for (i = 1; i <= n; i++) {
			name = order[i]; c = count[name]
			ev = median(evs, name, c); evlo = lo; evhi = hi
			mb = median(mbs, name, c); al = median(als, name, c)
			printf "| `%s` | %.1f (%.1f–%.1f) | %.1f | %d |\n", name, ev, evlo, evhi, mb, al
		}
	}
' "$raw" >"$table"
if [[ $(wc -l <"$table") -le 2 ]]; then
	echo "bench-walker: no BenchmarkWalkerEvents result in go test's output" >&2
	exit 1
fi
cat "$table"

if [[ "$write_doc" = 1 ]]; then
	body=$(mktemp)
	{
		printf 'Measured at %s on %s with `scripts/bench-walker.sh --write-doc`, which runs `go test -run '"'"'^$'"'"' -bench BenchmarkWalkerEvents -benchtime 5x -count 3 ./pkg/wait/` (%s; load average %s before, %s after). Raw: [data/walker-events.txt](data/walker-events.txt).\n\n' \
			"$(commit_line)" "$(date -u +%Y-%m-%d)" "$(machine_line)" "$load_before" "$load_after"
		cat "$table"
	} >"$body"
	mkdir -p docs/data
	cp "$raw" docs/data/walker-events.txt
	splice_doc docs/benchmarks.md bench:walker "$body"
	rm -f "$body"
fi
