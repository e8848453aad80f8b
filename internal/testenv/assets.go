package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Versions of the test world's parts; they must match scripts/testenv.sh.
const (
	KubernetesVersion          = "v1.37.2"
	EtcdVersion                = "v3.7.0"
	KustomizeControllerVersion = "v1.9.6"
	HelmControllerVersion      = "v1.5.5"
)

// helmCRDsDir is the assets subdirectory of the CRDs only worlds running
// helm-controller serve (Options.Helm): HelmRelease, HelmChart,
// HelmRepository. A world without them lists no HelmReleases, as a cluster
// without helm-controller does.
const helmCRDsDir = "crds-helm"

// AssetsDir returns the directory holding kube-apiserver, etcd,
// kustomize-controller, helm-controller, crds/ and crds-helm/, as printed
// by scripts/testenv.sh. KUBEBUILDER_ASSETS wins; otherwise the script's
// default cache location is used, or, when that is incomplete, the
// directory the script used before helm-controller joined the world (its
// key without the helm-controller version), which serves every world but
// those of Options.Helm.
func AssetsDir() (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, checkAssets(dir)
	}
	cache := os.Getenv("STANDUP_TESTENV_CACHE")
	if cache == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("test world assets: %w", err)
			}
			base = filepath.Join(home, ".cache")
		}
		cache = filepath.Join(base, "standup-testenv")
	}
	old := filepath.Join(cache, "assets", fmt.Sprintf("k8s-%s_etcd-%s_kc-%s", KubernetesVersion, EtcdVersion, KustomizeControllerVersion))
	dir := old + "_hc-" + HelmControllerVersion
	err := checkAssets(dir)
	if err != nil && checkAssets(old) == nil {
		return old, nil
	}
	return dir, err
}

func checkAssets(dir string) error {
	return checkFiles(dir, "kube-apiserver", "etcd", "kustomize-controller", "crds/kustomize.toolkit.fluxcd.io_kustomizations.yaml")
}

// checkHelmAssets checks what a world of Options.Helm needs beyond checkAssets.
func checkHelmAssets(dir string) error {
	return checkFiles(dir, "helm-controller", helmCRDsDir+"/helm.toolkit.fluxcd.io_helmreleases.yaml", helmCRDsDir+"/source.toolkit.fluxcd.io_helmcharts.yaml")
}

func checkFiles(dir string, names ...string) error {
	var missing []error
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			missing = append(missing, err)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("test world assets incomplete in %s (run scripts/testenv.sh): %w", dir, errors.Join(missing...))
	}
	return nil
}
