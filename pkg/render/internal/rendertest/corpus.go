package rendertest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kubestandup/standup/internal/ciskip"
)

// CorpusCase is one repository of the shared corpus: its directory under
// the corpus (Root, the repository root) and the cluster path in it.
type CorpusCase struct{ Name, Root, Path string }

// CorpusCases are the repositories of the shared corpus the render is
// measured and held to kustomize on (see ../shared/corpus/MANIFEST.md).
var CorpusCases = []CorpusCase{
	{"onedr0p", "onedr0p__home-ops", "kubernetes/flux/cluster"},
	{"buroa", "buroa__k8s-gitops", "kubernetes/flux/cluster"},
	{"kochhaus", "haraldkoch__kochhaus-home", "kubernetes/main/flux/cluster"},
	{"budimanjojo", "budimanjojo__home-cluster", "cluster/base"},
	{"ahgraber", "ahgraber__homelab-gitops-k3s", "kubernetes/flux/cluster"},
	{"xunholy", "xunholy__k8s-gitops/kubernetes", "clusters/cluster-00"},
	{"toboshii", "toboshii__home-ops", "cluster/flux"},
	{"helm-example", "fluxcd__flux2-kustomize-helm-example", "clusters/production"},
	{"multi-tenancy", "fluxcd__flux2-multi-tenancy", "clusters/production"},
	{"monitoring", "fluxcd__flux2-monitoring-example", "clusters/test"},
	{"hub-spoke", "fluxcd__flux2-hub-spoke-example", "hub"},
}

// Corpus returns where the shared corpus is: ../shared/corpus beside the
// module's root, found from the test's working directory.
func Corpus() string {
	dir, err := os.Getwd()
	if err != nil {
		return filepath.Join("..", "shared", "corpus")
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "corpus")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Join("..", "shared", "corpus")
		}
		dir = parent
	}
}

// CorpusDir returns the shared corpus for a test over it. It skips the
// test under -short (why says what makes it long), and where the corpus is
// missing, unless CI is set: then the test fails.
func CorpusDir(t *testing.T, why string) string {
	t.Helper()
	if testing.Short() {
		t.Skip(why + ": not a -short test")
	}
	corpus := Corpus()
	if _, err := os.Stat(filepath.Join(corpus, "MANIFEST.md")); err != nil {
		ciskip.Skipf(t, "corpus missing at %s: %v", corpus, err)
	}
	return corpus
}
