#!/usr/bin/env bash
# test.sh runs standup's whole test suite: it builds (or reuses) the test
# world with scripts/testenv.sh, including the kustomize-controller release
# matrix, then runs every test with the race detector.
# Extra arguments go to `go test` (e.g. -run TestResume).
# STANDUP_TEST_VERBOSE=1 runs every test binary verbosely (-v), so that each
# test's time is in the output: the figures scripts/test-weights.txt holds.
set -euo pipefail
cd "$(dirname "$0")/.."
# The tools the tests run: the shells whose completion scripts they run (zsh,
# fish), and Graphviz's dot, which renders tiers -o dot to measure it. Under
# CI a test that lacks one fails (internal/ciskip), so they are installed
# here from Debian's packages when missing and this user may (root,
# apt-get). install_missing takes command names; package_of maps one to the
# package that provides it.
package_of() {
  case "$1" in
  dot) echo graphviz ;;
  *) echo "$1" ;;
  esac
}
install_missing() {
  local missing=()
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$(package_of "$tool")")
  done
  [ "${#missing[@]}" -gt 0 ] || return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test: installing ${missing[*]} (apt-get)" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "test: ${missing[*]} missing and not installable here: their tests skip (and fail under CI)" >&2
  fi
}
install_missing zsh fish dot
export STANDUP_CONTROLLER_RELEASES="${STANDUP_CONTROLLER_RELEASES:-v1.9.6,v1.7.3}"
extra=""
for r in ${STANDUP_CONTROLLER_RELEASES//,/ }; do
  [ "$r" = "v1.9.6" ] || extra="$extra $r"
done
assets=$(EXTRA_KUSTOMIZE_CONTROLLER_VERSIONS="${extra# }" bash scripts/testenv.sh)
export KUBEBUILDER_ASSETS="$assets"
# Go's internal linker, without DWARF: kustomize's api imports Go's plugin
# package, which uses cgo, and that alone makes the go command hand every
# binary that renders to the system's linker (gcc and ld): 10 s more for the
# cmd/standup test binary that every shard waits for, and a fifth of the
# suite's build CPU. Nothing of standup calls C, and the race detector
# links internally. Test binaries need no debugging information (stack
# traces and race reports come from the Go symbol table): leaving it out
# halves the rest of each link. To debug a test, run go test directly.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }\"-ldflags=-linkmode=internal -w\""
echo "test: KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS releases=$STANDUP_CONTROLLER_RELEASES" >&2
# Packages build and run side by side, but the processes that start control
# planes (cmd/standup's shards, internal/testenv, pkg/crds) take turns for
# the three slots of the lock STANDUP_TESTENV_LOCK names
# (testenv.LockMachine): the two shards and one other at a time; more sets
# of control planes on a 2-core machine only slow each other's
# timing-sensitive tests. -p 4: a package waiting for a slot uses no CPU,
# and leaves its place to the rest.
lock="${TMPDIR:-/tmp}/standup-testenv-$$.lock"
work=$(mktemp -d)
trap 'rm -rf "$work" "$lock".*' EXIT
export STANDUP_TESTENV_LOCK="$lock"
export STANDUP_TESTENV_SLOTS="${STANDUP_TESTENV_SLOTS:-3}"
shards="${STANDUP_TEST_SHARDS:-2}"
verbose=()
[ "${STANDUP_TEST_VERBOSE:-}" = 1 ] && verbose=(-v)
if [ "$#" -gt 0 ]; then
  go test -race -p 4 -timeout 80m "$@" ./...
  exit
fi

# The tests built without the race detector alone (files with the line
# //go:build !race: the render's fidelity checks over the corpus, the input
# limits at 16 MiB and a million nodes, whose sequential scans and renders
# of eleven real repositories would cost minutes under it) run in a pass of
# their own, package by package, found by that line: each package's tests
# are those of its own files that carry it.
norace_pass() {
  local dir names st=0
  for dir in $(grep -rlx --include='*_test.go' '//go:build !race' . | xargs -n1 dirname | sort -u); do
    names=$(grep -lx '//go:build !race' "$dir"/*_test.go | xargs sed -n 's/^func \(\(Test\|Fuzz\)[A-Za-z0-9_]*\)(.*/\1/p' | sort -u | paste -sd'|')
    [ -n "$names" ] || continue
    echo "# without the race detector: $dir: ${names//|/ }"
    go test -timeout 30m ${verbose[@]+"${verbose[@]}"} -run "^($names)\$" "$dir" || st=1
  done
  return "$st"
}
norace_pass > "$work/norace" 2>&1 &
norace_pid=$!
report_norace() {
  local st=0
  wait "$norace_pid" || st=1
  cat "$work/norace"
  return "$st"
}
if [ "$shards" -le 1 ]; then
  status=0
  go test -race -p 4 -timeout 80m ./... || status=1
  report_norace || status=1
  exit "$status"
fi

# cmd/standup is most of the suite's time, most of it spent waiting on
# controllers, and its tests run one after another (Run is a process entry
# point). So its race-detecting test binary is built once, first (it is the
# critical path, and `go test` would link it again for every process), and
# its top-level tests are dealt into $shards runs of that binary side by side,
# balanced by scripts/test-weights.txt (longest first, each to the lightest
# shard). The last shard runs every test the others do not (-test.skip), so
# each test runs exactly once, listed or not. The other packages run
# meanwhile.
sharded=./cmd/standup
module=$(go list -m)
go vet "$sharded"
# The real binary (the tests that signal a process, the corpus test) is
# built once for every process that runs one, beside the test binary.
go build -o "$work/standup" "$sharded" &
build=$!
go test -race -c -o "$work/standup.test" "$sharded"
wait "$build"
export STANDUP_TEST_BINARY="$work/standup"
env -u STANDUP_TESTENV_LOCK "$work/standup.test" -test.short -test.list '.*' > "$work/list"
go test -race -p 4 -timeout 80m ${verbose[@]+"${verbose[@]}"} $(go list ./... | grep -vx "$module/cmd/standup") &
rest=$!
grep -E '^(Test|Fuzz|Example)' "$work/list" \
  | awk -v weights=scripts/test-weights.txt 'BEGIN { while ((getline l < weights) > 0) if (l !~ /^#/) { split(l, f, " "); w[f[1]] = f[2] } }
      { print $1, ($1 in w ? w[$1] : 3) }' \
  | sort -k2,2nr -k1,1 \
  | awk -v n="$shards" -v dir="$work" '{ best = 0; for (i = 1; i < n; i++) if (load[i] < load[best]) best = i
      load[best] += $2; names[best] = names[best] (names[best] == "" ? "" : "|") $1 }
      END { for (i = 0; i < n; i++) print names[i] > (dir "/shard." i) }'
others=""
for ((i = 0; i < shards - 1; i++)); do
  others="$others${others:+|}$(cat "$work/shard.$i")"
done
pids=()
for ((i = 0; i < shards; i++)); do
  if ((i < shards - 1)); then select=(-test.run "^($(cat "$work/shard.$i"))\$"); else select=(-test.skip "^($others)\$"); fi
  ( cd "$sharded" && start=$SECONDS && if "$work/standup.test" -test.paniconexit0 -test.timeout 80m ${verbose[@]+-test.v} "${select[@]}" > "$work/out.$i" 2>&1
    then echo "ok  	$module/cmd/standup	$((SECONDS - start))s" >> "$work/out.$i"
    else echo "FAIL	$module/cmd/standup	$((SECONDS - start))s" >> "$work/out.$i"; exit 1; fi ) &
  pids+=($!)
done
status=0
wait "$rest" || status=1
report_norace || status=1
for ((i = 0; i < shards; i++)); do
  shard_status=0
  wait "${pids[$i]}" || shard_status=1
  echo "# $sharded, shard $((i + 1)) of $shards: $(tr '|' ' ' < "$work/shard.$i" | wc -w) tests"
  cat "$work/out.$i"
  [ "$shard_status" = 0 ] || status=1
done
exit "$status"
