#!/usr/bin/env bash
# render.sh fills a plugin manifest template from a release's checksums:
#
#   packaging/render.sh VERSION CHECKSUMS TEMPLATE > manifest.yaml
#   packaging/render.sh 1.2.3 dist/standup_1.2.3_checksums.txt packaging/krew/standup.yaml
#
# VERSION is the tag without its "v". @VERSION@ becomes VERSION, and each
# @SHA256@ becomes the checksum of the archive named by the nearest uri: or
# url: line above it. An archive missing from CHECKSUMS is an error, so a
# manifest never points at a file the release does not have. Comment lines
# (the template's notes) are left out.
set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 VERSION CHECKSUMS TEMPLATE" >&2
  exit 2
fi
version=$1 checksums=$2 template=$3
case $version in
  v*) echo "render.sh: VERSION is written without the v (got $version)" >&2; exit 2 ;;
esac

awk -v version="$version" -v checksums="$checksums" '
  BEGIN {
    while ((getline line < checksums) > 0) {
      split(line, f, /[ \t]+/)
      sum[f[2]] = f[1]
    }
  }
  /^#/ { next } # the template'"'"'s own comments
  {
    gsub(/@VERSION@/, version)
    if (match($0, /(uri|url): *[^ ]+/)) {
      archive = substr($0, RSTART, RLENGTH)
      sub(/^.*\//, "", archive)
    }
    if (index($0, "@SHA256@")) {
      if (archive == "" || !(archive in sum)) {
        printf "render.sh: line %d: no checksum for \"%s\" in %s\n", NR, archive, checksums > "/dev/stderr"
        failed = 1
        exit 1
      }
      gsub(/@SHA256@/, sum[archive])
    }
    print
  }
  END { if (failed) exit 1 }
' "$template"
