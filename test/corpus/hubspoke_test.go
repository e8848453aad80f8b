package corpus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kubestandup/standup/internal/ciskip"
)

// TestHubSpokeTargets: on fluxcd/flux2-hub-spoke-example, tiers names the
// spoke each node applies to, the HelmReleases included, which get their
// spec.kubeConfig from their Kustomization's patches (the render applies
// them); and the audit's summary names the three clusters it covered, with
// no finding (the example is sound). It fails, never skips, when CI is set
// and the corpus is missing.
func TestHubSpokeTargets(t *testing.T) {
	root := filepath.Join(corpusDir(), "fluxcd__flux2-hub-spoke-example")
	if _, err := os.Stat(root); err != nil {
		ciskip.Skipf(t, "corpus missing at %s: %v", root, err)
	}
	bin := buildStandup(t)
	path := filepath.Join(root, "hub")
	out, errOut, code := run(t, bin, "tiers", "--path", path, "--repo-root", root, "-o", "json", "-q")
	if code != 0 {
		t.Fatalf("tiers exit %d: %s", code, errOut)
	}
	var doc struct {
		Tiers []struct {
			Nodes []struct {
				Kind, Namespace, Name, Target string
			} `json:"nodes"`
		} `json:"tiers"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tier := range doc.Tiers {
		for _, node := range tier.Nodes {
			n++
			// infra-controllers and apps apply on the hub (their
			// HelmReleases carry the kubeConfig); every other node
			// applies to its namespace's spoke.
			want := node.Namespace + "/cluster-kubeconfig"
			if node.Kind == "Kustomization" && (node.Name == "infra-controllers" || node.Name == "apps") {
				want = ""
			}
			if node.Target != want {
				t.Errorf("%s/%s/%s: target %q, want %q", node.Kind, node.Namespace, node.Name, node.Target, want)
			}
		}
	}
	if n != 14 {
		t.Errorf("tiers lists %d nodes, want the example's 14", n)
	}
	out, errOut, code = run(t, bin, "audit", "--path", path, "--repo-root", root, "-o", "json", "-q")
	if code != 0 {
		t.Fatalf("audit exit %d: %s", code, errOut)
	}
	var audit struct {
		Summary struct {
			Clusters []string `json:"clusters"`
		} `json:"summary"`
		Findings []json.RawMessage `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &audit); err != nil {
		t.Fatal(err)
	}
	if want := []string{"local", "production/cluster-kubeconfig", "staging/cluster-kubeconfig"}; !slices.Equal(audit.Summary.Clusters, want) {
		t.Errorf("audit summary clusters %q, want %q", audit.Summary.Clusters, want)
	}
	if len(audit.Findings) != 0 {
		t.Errorf("audit finds %d findings in the sound example, want none", len(audit.Findings))
	}
}
