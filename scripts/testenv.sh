#!/usr/bin/env bash
# testenv.sh builds the real test world (kube-apiserver, etcd, kustomize-controller,
# and the Flux CRDs) from the Go module proxy into a cache directory outside the
# repository, keyed by version, and prints the directory to use as KUBEBUILDER_ASSETS.
#
# It is idempotent: a second run with a warm cache only checks the files exist.
# Progress goes to stderr; the only line on stdout is the assets directory.
set -euo pipefail

KUBERNETES_VERSION="${KUBERNETES_VERSION:-v1.37.2}"
ETCD_VERSION="${ETCD_VERSION:-v3.7.0}"
KUSTOMIZE_CONTROLLER_VERSION="${KUSTOMIZE_CONTROLLER_VERSION:-v1.9.6}"
SOURCE_CONTROLLER_VERSION="${SOURCE_CONTROLLER_VERSION:-v1.9.6}"
# Extra kustomize-controller releases to build beside the default one (space separated).
EXTRA_KUSTOMIZE_CONTROLLER_VERSIONS="${EXTRA_KUSTOMIZE_CONTROLLER_VERSIONS:-}"

CACHE="${STANDUP_TESTENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/standup-testenv}"
ASSETS="$CACHE/assets/k8s-${KUBERNETES_VERSION}_etcd-${ETCD_VERSION}_kc-${KUSTOMIZE_CONTROLLER_VERSION}"
WORK="$CACHE/work"
export GOFLAGS="${GOFLAGS:--buildvcs=false}"
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"

step=""
log() { printf 'testenv: %s\n' "$*" >&2; }
fail() { log "FAILED at step: $step (log: ${steplog:-none})"; if [ -n "${steplog:-}" ] && [ -f "$steplog" ]; then tail -n 30 "$steplog" >&2; fi; exit 1; }
trap fail ERR

run_step() { # run_step NAME LOGFILE CMD...
  step="$1"; steplog="$2"; shift 2
  log "$step ..."
  local t0=$SECONDS
  "$@" >"$steplog" 2>&1
  log "$step done in $((SECONDS - t0))s"
}

mkdir -p "$ASSETS" "$WORK"

build_kube_apiserver() {
  local dir="$WORK/kube-apiserver-$KUBERNETES_VERSION" minor
  minor="${KUBERNETES_VERSION#v1.}"; minor="${minor%%.*}"
  local staging="v0.${KUBERNETES_VERSION#v1.}"
  mkdir -p "$dir"
  (
    cd "$dir"
    local gomod
    gomod=$(go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
    [ -f "$gomod" ] || { echo "no go.mod for k8s.io/kubernetes@$KUBERNETES_VERSION" >&2; exit 1; }
    {
      echo "module standup.local/kube-apiserver"
      echo
      echo "go $(go env GOVERSION | sed 's/^go//')"
      echo
      echo "require k8s.io/kubernetes $KUBERNETES_VERSION"
      echo
      grep -E '^[[:space:]]*k8s\.io/[a-z0-9-]+ => \./staging/' "$gomod" |
        awk -v v="$staging" '{print "replace " $1 " => " $1 " " v}'
    } > go.mod
    printf 'package main\n\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver"\n' > tools.go
    sed -i 's/^package main/\/\/go:build tools\n\npackage main/' tools.go
    go mod tidy -e
    go build -o "$ASSETS/kube-apiserver" \
      -ldflags "-X k8s.io/component-base/version.gitVersion=$KUBERNETES_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor" \
      k8s.io/kubernetes/cmd/kube-apiserver
  )
}

build_etcd() {
  local dir="$WORK/etcd-$ETCD_VERSION"
  mkdir -p "$dir"
  (
    cd "$dir"
    printf 'module standup.local/etcd\n\ngo %s\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$(go env GOVERSION | sed 's/^go//')" "$ETCD_VERSION" > go.mod
    printf 'package main\n\nimport (\n\t"os"\n\n\t"go.etcd.io/etcd/server/v3/etcdmain"\n)\n\nfunc main() { etcdmain.Main(os.Args) }\n' > main.go
    go mod tidy
    go build -o "$ASSETS/etcd" .
  )
}

# build_kustomize_controller VERSION KUSTOMIZE_API_VERSION OUT
build_kustomize_controller() {
  local version="$1" kustomize="$2" out="$3" dir="$WORK/kustomize-controller-$1"
  mkdir -p "$dir"
  (
    cd "$dir"
    cat > go.mod <<GOMOD
module standup.local/kustomize-controller

go $(go env GOVERSION | sed 's/^go//')

replace (
	github.com/opencontainers/go-digest => github.com/opencontainers/go-digest v1.0.1-0.20220411205349-bde1400a84be
	sigs.k8s.io/kustomize/api => sigs.k8s.io/kustomize/api $kustomize
	sigs.k8s.io/kustomize/kyaml => sigs.k8s.io/kustomize/kyaml $kustomize
	gopkg.in/yaml.v3 => gopkg.in/yaml.v3 v3.0.1
)
GOMOD
    go get -tool "github.com/fluxcd/kustomize-controller@$version"
    go build -o "$out" github.com/fluxcd/kustomize-controller
  )
}

copy_crds() {
  local kc sc
  kc=$(go mod download -json "github.com/fluxcd/kustomize-controller@$KUSTOMIZE_CONTROLLER_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  sc=$(go mod download -json "github.com/fluxcd/source-controller@$SOURCE_CONTROLLER_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  mkdir -p "$ASSETS/crds"
  cp "$kc"/config/crd/bases/*.yaml "$ASSETS/crds/"
  for f in gitrepositories ocirepositories buckets externalartifacts; do
    cp "$sc/config/crd/bases/source.toolkit.fluxcd.io_$f.yaml" "$ASSETS/crds/"
  done
  chmod -R u+w "$ASSETS/crds"
}

cd "$WORK"
[ -x "$ASSETS/etcd" ] || run_step "build etcd $ETCD_VERSION" "$WORK/etcd.log" build_etcd
[ -x "$ASSETS/kustomize-controller" ] || run_step "build kustomize-controller $KUSTOMIZE_CONTROLLER_VERSION" "$WORK/kc.log" \
  build_kustomize_controller "$KUSTOMIZE_CONTROLLER_VERSION" v0.21.1 "$ASSETS/kustomize-controller"
for v in $EXTRA_KUSTOMIZE_CONTROLLER_VERSIONS; do
  case "$v" in v1.7.*|v1.8.*) kapi=v0.20.1 ;; *) kapi=v0.21.1 ;; esac
  [ -x "$ASSETS/kustomize-controller-$v" ] || run_step "build kustomize-controller $v" "$WORK/kc-$v.log" \
    build_kustomize_controller "$v" "$kapi" "$ASSETS/kustomize-controller-$v"
done
[ -f "$ASSETS/crds/kustomize.toolkit.fluxcd.io_kustomizations.yaml" ] || run_step "copy Flux CRDs" "$WORK/crds.log" copy_crds
[ -x "$ASSETS/kube-apiserver" ] || run_step "build kube-apiserver $KUBERNETES_VERSION" "$WORK/kube-apiserver.log" build_kube_apiserver
trap - ERR
log "assets ready: $ASSETS ($(du -sh "$ASSETS" | cut -f1))"
echo "$ASSETS"
