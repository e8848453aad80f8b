#!/usr/bin/env bash
# tier-walk.sh is the seed's `standup.sh resume`, kept as the tier-by-tier
# contender of the cold-start benchmark (bench/, docs/benchmarks.md).
#
# It reads a TIER_ORDER file as `standup tiers -o shell` writes it and walks
# it one tier at a time: it resumes every member of the tier the way
# `flux resume kustomization` does (spec.suspend=false plus a
# reconcile.fluxcd.io/requestedAt annotation, in one patch), then runs
# `kubectl wait --for=condition=Ready` on each member, and only then moves on
# to the next tier. That barrier at every tier is what standup removes.
#
# Usage: tier-walk.sh [-n NAMESPACE] [-t TIMEOUT] TIER_ORDER_FILE
#   -n  namespace of bare names; without it a bare name is looked up in all
#       namespaces, waiting for it to appear (a parent may still be creating it)
#   -t  kubectl wait timeout per Kustomization (default 5m)
# kubectl reads KUBECONFIG as usual. Progress goes to stderr; the exit code
# is kubectl's first failure, or 0 once every tier is Ready.
set -euo pipefail

namespace="" timeout="5m"
while getopts "n:t:" opt; do
  case "$opt" in
    n) namespace="$OPTARG" ;;
    t) timeout="$OPTARG" ;;
    *) echo "usage: $0 [-n NAMESPACE] [-t TIMEOUT] TIER_ORDER_FILE" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: $0 [-n NAMESPACE] [-t TIMEOUT] TIER_ORDER_FILE" >&2; exit 2; }
order="$1"
KS="kustomizations.kustomize.toolkit.fluxcd.io"

log() { printf '%s tier-walk: %s\n' "$(date -u +%H:%M:%S.%3N)" "$*" >&2; }

# tiers[i] holds the entries of tier i, space separated, in file order.
tiers=()
in_array=0
while IFS= read -r line || [ -n "$line" ]; do
  line="${line#"${line%%[![:space:]]*}"}"
  case "$line" in
    "TIER_ORDER=(") in_array=1 ;;
    ")") in_array=0 ;;
    "# tier "*) [ "$in_array" -eq 1 ] && tiers+=("") ;;
    ""|"#"*) ;;
    *)
      if [ "$in_array" -eq 1 ]; then
        [ ${#tiers[@]} -gt 0 ] || tiers+=("")
        entry="${line#\'}"; entry="${entry%\'}"
        tiers[${#tiers[@]}-1]+="${tiers[${#tiers[@]}-1]:+ }$entry"
      fi
      ;;
  esac
done < "$order"
[ ${#tiers[@]} -gt 0 ] || { echo "tier-walk: no TIER_ORDER entries in $order" >&2; exit 2; }

# resolve ENTRY prints "namespace name" for an entry: namespace/name as
# given, a bare name in -n's namespace, or else wherever it exists.
resolve() {
  local entry="${1#Kustomization/}" ns deadline
  if [[ "$entry" == */* ]]; then echo "${entry%%/*} ${entry#*/}"; return; fi
  if [ -n "$namespace" ]; then echo "$namespace $entry"; return; fi
  deadline=$(( $(date +%s) + 300 ))
  while :; do
    ns=$(kubectl get "$KS" -A --field-selector "metadata.name=$entry" -o jsonpath='{.items[0].metadata.namespace}' 2>/dev/null || true)
    if [ -n "$ns" ]; then echo "$ns $entry"; return; fi
    [ "$(date +%s)" -lt "$deadline" ] || { echo "tier-walk: Kustomization $entry not found" >&2; return 1; }
    sleep 0.5
  done
}

for i in "${!tiers[@]}"; do
  log "tier $i: resuming ${tiers[$i]}"
  members=()
  # Resolve and resume one member at a time: a member of tier 0 may only
  # appear once the root, resumed just before it, has applied it.
  for entry in ${tiers[$i]}; do
    m="$(resolve "$entry")"
    members+=("$m")
    read -r ns name <<<"$m"
    now=$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)
    kubectl patch "$KS" "$name" -n "$ns" --type merge \
      -p "{\"spec\":{\"suspend\":false},\"metadata\":{\"annotations\":{\"reconcile.fluxcd.io/requestedAt\":\"$now\"}}}" >/dev/null
  done
  for m in "${members[@]}"; do
    read -r ns name <<<"$m"
    kubectl wait --for=condition=Ready "$KS/$name" -n "$ns" --timeout="$timeout" >/dev/null
    log "tier $i: $ns/$name Ready"
  done
done
log "all ${#tiers[@]} tiers Ready"
