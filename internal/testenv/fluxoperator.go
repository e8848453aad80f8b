package testenv

import (
	"fmt"
	"os"
	"path/filepath"
)

// FluxOperatorVersion is the Flux Operator release scripts/testenv.sh
// builds (FLUX_OPERATOR_VERSION there).
const FluxOperatorVersion = "v0.58.0"

// fluxOperatorAssetsEnv names a directory holding flux-operator and crds/,
// instead of the one scripts/testenv.sh builds.
const fluxOperatorAssetsEnv = "STANDUP_FLUX_OPERATOR_ASSETS"

// FluxOperatorAssetsDir returns the directory holding the flux-operator
// binary and its CRDs (crds/: ResourceSet, ResourceSetInputProvider,
// FluxInstance, FluxReport). scripts/testenv.sh builds it beside the
// assets directory (AssetsDir), keyed by the operator's version alone:
// flux-operator-v0.58.0 next to k8s-…_hc-…. STANDUP_FLUX_OPERATOR_ASSETS
// wins.
func FluxOperatorAssetsDir(assets string) (string, error) {
	dir := os.Getenv(fluxOperatorAssetsEnv)
	if dir == "" {
		dir = filepath.Join(filepath.Dir(assets), "flux-operator-"+FluxOperatorVersion)
	}
	return dir, checkFiles(dir, "flux-operator", "crds/fluxcd.controlplane.io_resourcesets.yaml")
}

// newFluxOperator returns the Flux Operator, not started, logging into the
// world's flux-operator directory. It runs every reconciler the operator
// has (it has no flag to turn one off), but only the ResourceSet ones
// have work: a FluxInstance is reconciled only when named flux in
// flux-system, which no test creates, so the operator never installs
// Flux. Its web UI is off (--web-server-port=0), and FIPS 140-3 mode on
// (GODEBUG=fips140=on): the operator refuses to run without it.
func (w *World) newFluxOperator(opts Options) (*Controller, error) {
	dir, err := FluxOperatorAssetsDir(w.Assets)
	if err != nil {
		return nil, err
	}
	data := filepath.Join(w.Dir, "flux-operator", "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, fmt.Errorf("flux-operator: %w", err)
	}
	return &Controller{
		Name:        "flux-operator",
		Binary:      filepath.Join(dir, "flux-operator"),
		Kubeconfig:  w.Kubeconfig,
		Dir:         filepath.Join(w.Dir, "flux-operator"),
		NoWatchFlag: true,
		Env:         []string{"GODEBUG=fips140=on"},
		Args: append([]string{
			"--web-server-port=0",
			"--storage-path=" + data,
			"--requeue-dependency=1s",
		}, opts.FluxOperatorArgs...),
	}, nil
}

// fluxOperatorCRDs is the directory of the operator's CRDs, for a world
// of Options.FluxOperator.
func (w *World) fluxOperatorCRDs() (string, error) {
	dir, err := FluxOperatorAssetsDir(w.Assets)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "crds"), nil
}
