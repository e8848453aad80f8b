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
)

// AssetsDir returns the directory holding kube-apiserver, etcd,
// kustomize-controller and crds/, as printed by scripts/testenv.sh.
// KUBEBUILDER_ASSETS wins; otherwise the script's default cache location is used.
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
	dir := filepath.Join(cache, "assets", fmt.Sprintf("k8s-%s_etcd-%s_kc-%s", KubernetesVersion, EtcdVersion, KustomizeControllerVersion))
	return dir, checkAssets(dir)
}

func checkAssets(dir string) error {
	var missing []error
	for _, name := range []string{"kube-apiserver", "etcd", "kustomize-controller", "crds/kustomize.toolkit.fluxcd.io_kustomizations.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			missing = append(missing, err)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("test world assets incomplete in %s (run scripts/testenv.sh): %w", dir, errors.Join(missing...))
	}
	return nil
}
