# doclib.sh: what every script that writes measurements into docs/ shares.
# Source it: `. "$(dirname "$0")/doclib.sh"`.
#
# machine_line: the machine a measurement ran on (CPU model, cores, memory,
# Go version), for the line that stamps a generated block.
machine_line() {
  local cpu cores mem
  cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n1)
  cores=$(nproc 2>/dev/null || echo '?')
  mem=$(awk '/^MemTotal:/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)
  printf '%s, %s cores, %s, %s' "${cpu:-unknown CPU}" "$cores" "${mem:-? GiB}" "$(go version | cut -d' ' -f3-)"
}

# load_average: the first three fields of /proc/loadavg.
load_average() {
  cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown
}

# commit_line: the short commit as a code span, followed by " (with
# uncommitted changes)" when the tree differs from it outside docs/ and the
# README, which the scripts write.
commit_line() {
  local c
  c=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  printf '`%s`' "$c"
  git diff --quiet HEAD -- . ':!docs' ':!README.md' 2>/dev/null || printf ' (with uncommitted changes)'
}

# splice_doc DOC NAME FILE: replace the lines between DOC's
# `<!-- NAME begin -->` and `<!-- NAME end -->` markers with FILE's.
# A doc without the markers is left alone, with a warning.
splice_doc() {
  local doc="$1" name="$2" file="$3"
  if ! grep -q "^<!-- $name begin -->" "$doc"; then
    echo "$doc has no <!-- $name begin --> marker; $name not written" >&2
    return 1
  fi
  awk -v name="$name" -v body="$file" '
    $0 == "<!-- " name " begin -->" { print; while ((getline line < body) > 0) print line; skip = 1; next }
    $0 == "<!-- " name " end -->" { skip = 0 }
    !skip { print }
  ' "$doc" >"$doc.tmp" && mv "$doc.tmp" "$doc"
  echo "$doc: $name written" >&2
}
