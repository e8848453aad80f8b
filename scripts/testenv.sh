#!/usr/bin/env bash
# testenv.sh builds the real test world (kube-apiserver, etcd, kustomize-controller,
# helm-controller, and the Flux CRDs) from the Go module proxy into a cache
# directory outside the repository, keyed by version, and prints the directory to
# use as KUBEBUILDER_ASSETS.
#
# helm-controller comes from the module proxy when it serves it; otherwise from
# the source tree HELM_CONTROLLER_SRC names (default: ../shared/helm-controller/<version>
# beside the repository), since some proxies refuse the module while serving every
# dependency it needs.
#
# It is idempotent: a second run with a warm cache only checks the files exist.
# Progress goes to stderr; the only line on stdout is the assets directory.
set -euo pipefail

KUBERNETES_VERSION="${KUBERNETES_VERSION:-v1.37.2}"
ETCD_VERSION="${ETCD_VERSION:-v3.7.0}"
KUSTOMIZE_CONTROLLER_VERSION="${KUSTOMIZE_CONTROLLER_VERSION:-v1.9.6}"
SOURCE_CONTROLLER_VERSION="${SOURCE_CONTROLLER_VERSION:-v1.9.6}"
HELM_CONTROLLER_VERSION="${HELM_CONTROLLER_VERSION:-v1.5.5}"
# The Flux Operator (ResourceSets) is built into a directory of its own beside
# ASSETS, keyed by its version alone, so that adding it rebuilt nothing else.
# v0.58.0 is the newest release whose go.mod a Go 1.26 toolchain takes
# (v0.59.0 needs Go 1.27).
FLUX_OPERATOR_VERSION="${FLUX_OPERATOR_VERSION:-v0.58.0}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
HELM_CONTROLLER_SRC="${HELM_CONTROLLER_SRC:-$ROOT/../shared/helm-controller/$HELM_CONTROLLER_VERSION}"
# Extra kustomize-controller releases to build beside the default one (space separated).
EXTRA_KUSTOMIZE_CONTROLLER_VERSIONS="${EXTRA_KUSTOMIZE_CONTROLLER_VERSIONS:-}"

CACHE="${STANDUP_TESTENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/standup-testenv}"
# The directory is keyed by every part it holds. BASE is the key before
# helm-controller joined the world: a cache restored with only BASE (CI keeps
# one) seeds the new directory, so nothing already built is built again.
BASE="$CACHE/assets/k8s-${KUBERNETES_VERSION}_etcd-${ETCD_VERSION}_kc-${KUSTOMIZE_CONTROLLER_VERSION}"
ASSETS="${BASE}_hc-${HELM_CONTROLLER_VERSION}"
OPERATOR_ASSETS="$CACHE/assets/flux-operator-${FLUX_OPERATOR_VERSION}"
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

mkdir -p "$ASSETS" "$OPERATOR_ASSETS" "$WORK"

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

# build_helm_controller OUT builds helm-controller $HELM_CONTROLLER_VERSION:
# from the module proxy, else from $HELM_CONTROLLER_SRC.
build_helm_controller() {
  local out="$1" module="github.com/fluxcd/helm-controller"
  if go mod download -json "$module@$HELM_CONTROLLER_VERSION" >/dev/null 2>&1; then
    echo "helm-controller $HELM_CONTROLLER_VERSION from the module proxy"
    local dir="$WORK/helm-controller-$HELM_CONTROLLER_VERSION"
    mkdir -p "$dir"
    (
      cd "$dir"
      # The replaces of helm-controller's own go.mod, which a dependent
      # module does not inherit (its ./api replace is the published api).
      cat > go.mod <<GOMOD
module standup.local/helm-controller

go $(go env GOVERSION | sed 's/^go//')

replace (
	github.com/opencontainers/go-digest => github.com/opencontainers/go-digest v1.0.1-0.20231025023718-d50d2fec9c98
	sigs.k8s.io/kustomize/api => sigs.k8s.io/kustomize/api v0.20.1
	sigs.k8s.io/kustomize/kyaml => sigs.k8s.io/kustomize/kyaml v0.20.1
)
GOMOD
      go get -tool "$module@$HELM_CONTROLLER_VERSION"
      go build -o "$out" "$module"
    )
    return
  fi
  echo "the module proxy does not serve $module@$HELM_CONTROLLER_VERSION; building $HELM_CONTROLLER_SRC"
  [ -f "$HELM_CONTROLLER_SRC/go.mod" ] || {
    echo "no helm-controller source at $HELM_CONTROLLER_SRC: set HELM_CONTROLLER_SRC to a checkout of $module at $HELM_CONTROLLER_VERSION" >&2
    exit 1
  }
  local dir="$WORK/helm-controller-src-$HELM_CONTROLLER_VERSION"
  rm -rf "$dir"
  cp -r "$HELM_CONTROLLER_SRC" "$dir"
  chmod -R u+w "$dir"
  (
    cd "$dir"
    # v1.5.5 requires github.com/fluxcd/pkg/apis/event v0.24.1, which some
    # proxies refuse; v0.24.0 builds the same controller.
    local event
    event=$(awk '$1 == "github.com/fluxcd/pkg/apis/event" {print $2; exit}' go.mod)
    if [ -n "$event" ] && ! go mod download "github.com/fluxcd/pkg/apis/event@$event" >/dev/null 2>&1; then
      go mod edit -replace github.com/fluxcd/pkg/apis/event=github.com/fluxcd/pkg/apis/event@v0.24.0
    fi
    go mod tidy
    go build -o "$out" .
  )
}

# build_flux_operator OUT builds the Flux Operator's manager (cmd/operator)
# at $FLUX_OPERATOR_VERSION from a copy of its module, as the proxy serves
# it. Two things stand in for what the module zip lacks or the proxy
# refuses:
# - web/dist, the web UI's bundle that npm builds and web/embed.go embeds,
#   is not in the module: a placeholder page takes its place (the test
#   world runs the operator with --web-server-port=0);
# - v0.58.0 requires go-containerregistry's pkg/authn/kubernetes at a
#   pseudo-version some proxies refuse; their latest served one (the same
#   package, a few months older) builds the same operator.
# v0.58.0 is the newest release whose go.mod (go 1.26.0) a Go 1.26 toolchain
# takes; v0.59.0 needs Go 1.27.
build_flux_operator() {
  local out="$1" module="github.com/controlplaneio-fluxcd/flux-operator" src authn
  local dir="$WORK/flux-operator-src-$FLUX_OPERATOR_VERSION"
  authn="github.com/google/go-containerregistry/pkg/authn/kubernetes"
  src=$(go mod download -json "$module@$FLUX_OPERATOR_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  rm -rf "$dir"
  cp -r "$src" "$dir"
  chmod -R u+w "$dir"
  (
    cd "$dir"
    mkdir -p web/dist
    printf '<!doctype html><title>flux-operator</title>\n' > web/dist/index.html
    local want
    want=$(awk -v m="$authn" '$1 == m {print $2; exit}' go.mod)
    if [ -n "$want" ] && ! go mod download "$authn@$want" >/dev/null 2>&1; then
      go mod edit -replace "$authn=$authn@v0.0.0-20260224031529-85f2bf5f7303"
      go mod tidy
    fi
    go build -o "$out" ./cmd/operator
  )
}

# copy_flux_operator_crds: ResourceSet, ResourceSetInputProvider,
# FluxInstance and FluxReport, from the module's config/crd/bases.
copy_flux_operator_crds() {
  local src
  src=$(go mod download -json "github.com/controlplaneio-fluxcd/flux-operator@$FLUX_OPERATOR_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  mkdir -p "$OPERATOR_ASSETS/crds"
  cp "$src"/config/crd/bases/*.yaml "$OPERATOR_ASSETS/crds/"
  chmod -R u+w "$OPERATOR_ASSETS/crds"
}

# copy_helm_crds: the HelmRelease CRD and source-controller's HelmChart and
# HelmRepository CRDs, apart from crds/ so that only worlds running
# helm-controller serve them (ExternalArtifact is in crds/ already).
copy_helm_crds() {
  local hc sc
  mkdir -p "$ASSETS/crds-helm"
  if hc=$(go mod download -json "github.com/fluxcd/helm-controller@$HELM_CONTROLLER_VERSION" 2>/dev/null | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p') && [ -n "$hc" ]; then
    cp "$hc/config/crd/bases/helm.toolkit.fluxcd.io_helmreleases.yaml" "$ASSETS/crds-helm/"
  else
    cp "$HELM_CONTROLLER_SRC/config/crd/bases/helm.toolkit.fluxcd.io_helmreleases.yaml" "$ASSETS/crds-helm/"
  fi
  sc=$(go mod download -json "github.com/fluxcd/source-controller@$SOURCE_CONTROLLER_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  for f in helmcharts helmrepositories; do
    cp "$sc/config/crd/bases/source.toolkit.fluxcd.io_$f.yaml" "$ASSETS/crds-helm/"
  done
  chmod -R u+w "$ASSETS/crds-helm"
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

# seed_from_base links what the pre-helm-controller directory holds into the
# new one (a hard link where the filesystem allows, else a copy).
seed_from_base() {
  local f
  for f in "$BASE"/*; do
    [ -e "$ASSETS/$(basename "$f")" ] && continue
    cp -al "$f" "$ASSETS/" 2>/dev/null || cp -a "$f" "$ASSETS/"
  done
}

cd "$WORK"
[ ! -d "$BASE" ] || run_step "reuse $BASE" "$WORK/seed.log" seed_from_base
[ -x "$ASSETS/etcd" ] || run_step "build etcd $ETCD_VERSION" "$WORK/etcd.log" build_etcd
[ -x "$ASSETS/kustomize-controller" ] || run_step "build kustomize-controller $KUSTOMIZE_CONTROLLER_VERSION" "$WORK/kc.log" \
  build_kustomize_controller "$KUSTOMIZE_CONTROLLER_VERSION" v0.21.1 "$ASSETS/kustomize-controller"
for v in $EXTRA_KUSTOMIZE_CONTROLLER_VERSIONS; do
  case "$v" in v1.7.*|v1.8.*) kapi=v0.20.1 ;; *) kapi=v0.21.1 ;; esac
  [ -x "$ASSETS/kustomize-controller-$v" ] || run_step "build kustomize-controller $v" "$WORK/kc-$v.log" \
    build_kustomize_controller "$v" "$kapi" "$ASSETS/kustomize-controller-$v"
done
[ -f "$ASSETS/crds/kustomize.toolkit.fluxcd.io_kustomizations.yaml" ] || run_step "copy Flux CRDs" "$WORK/crds.log" copy_crds
[ -x "$ASSETS/helm-controller" ] || run_step "build helm-controller $HELM_CONTROLLER_VERSION" "$WORK/hc.log" \
  build_helm_controller "$ASSETS/helm-controller"
[ -f "$ASSETS/crds-helm/helm.toolkit.fluxcd.io_helmreleases.yaml" ] || run_step "copy HelmRelease CRDs" "$WORK/crds-helm.log" copy_helm_crds
[ -x "$OPERATOR_ASSETS/flux-operator" ] || run_step "build flux-operator $FLUX_OPERATOR_VERSION" "$WORK/flux-operator.log" \
  build_flux_operator "$OPERATOR_ASSETS/flux-operator"
[ -f "$OPERATOR_ASSETS/crds/fluxcd.controlplane.io_resourcesets.yaml" ] || run_step "copy Flux Operator CRDs" "$WORK/flux-operator-crds.log" copy_flux_operator_crds
[ -x "$ASSETS/kube-apiserver" ] || run_step "build kube-apiserver $KUBERNETES_VERSION" "$WORK/kube-apiserver.log" build_kube_apiserver
trap - ERR
log "assets ready: $ASSETS ($(du -sh "$ASSETS" | cut -f1)), $OPERATOR_ASSETS ($(du -sh "$OPERATOR_ASSETS" | cut -f1))"
echo "$ASSETS"
