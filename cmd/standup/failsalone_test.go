package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOneKustomizationFailsAlone: a Kustomization that Flux would fail
// alone (pkg/render/testdata/fails-alone: a missing spec.path, a malformed
// file, a Component listed as a resource, a spec that does not decode, a
// postBuild substitution Flux refuses) never fails the whole repository.
// tiers prints every node, the failed one among them, writes one line on
// stderr naming it, its file and the reason, and exits 1; audit reports it
// as a BUILD_FAILED finding at that file, audits the rest, and exits 1.
func TestOneKustomizationFailsAlone(t *testing.T) {
	tests := []struct {
		fixture, failed, file, reason string
		kinds                         string
	}{
		{fixture: "missing-path", failed: "flux-system/gone", file: "clusters/c/root.yaml", reason: "kustomization path not found: ./does-not-exist"},
		{fixture: "unset-var-path", failed: "flux-system/web", file: "apps/ks.yaml", reason: "a variable in it is not defined"},
		{fixture: "malformed", failed: "flux-system/tier", file: "tier/bad.yaml", reason: "tier/bad.yaml: document 3"},
		{fixture: "empty-kustomization", failed: "flux-system/apps", file: "clusters/c/root.yaml", reason: "kustomization.yaml is empty"},
		{fixture: "component-as-resource", failed: "flux-system/apps", file: "clusters/c/root.yaml", reason: "expected kind != 'Component'"},
		{fixture: "bool-label", failed: "flux-system/apps", file: "clusters/c/root.yaml", reason: "label and annotation values must be strings"},
		{fixture: "bad-spec", failed: "flux-system/bad", file: "clusters/c/root.yaml", reason: "decode failed"},
		{fixture: "postbuild-error", failed: "flux-system/apps", file: "clusters/c/root.yaml", reason: "'cluster-name' var name is invalid"},
		{fixture: "self-postbuild", failed: "flux-system/flux-system", file: "clusters/c/flux-system.yaml", reason: "'cluster-name' var name is invalid"},
		{fixture: "helmrelease-spec", failed: "HelmRelease/default/web", file: "apps/hr.yaml", reason: "spec.dependsOn[0]: name is empty", kinds: "ks,hr"},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			root := filepath.Join("..", "..", "pkg", "render", "testdata", "fails-alone", tt.fixture)
			path := filepath.Join(root, "clusters", "c")
			failed := tt.failed
			if !strings.Contains(failed, "HelmRelease") {
				failed = "Kustomization/" + failed
			}
			args := []string{"tiers", "--path", path, "--repo-root", root, "-o", "json", "-q"}
			if tt.kinds != "" {
				args = append(args, "--kinds", tt.kinds)
			}
			out, errOut, code := runOffline(t, args...)
			if code != ExitFailure {
				t.Fatalf("tiers exit %d, want %d: %s", code, ExitFailure, errOut)
			}
			var doc struct {
				Tiers []struct {
					Tier  int `json:"tier"`
					Nodes []struct{ Kind, Namespace, Name string }
				} `json:"tiers"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("tiers -o json: %v\n%s", err, out)
			}
			nodes := map[string]int{}
			for _, tr := range doc.Tiers {
				for _, n := range tr.Nodes {
					nodes[n.Kind+"/"+n.Namespace+"/"+n.Name] = tr.Tier
				}
			}
			okTier, hasOK := nodes["Kustomization/flux-system/ok"]
			failedTier, hasFailed := nodes[failed]
			if !hasOK || !hasFailed {
				t.Errorf("tiers printed %v, want every node, %s and the one that failed among them", nodes, "Kustomization/flux-system/ok")
			}
			if !strings.Contains(failed, "HelmRelease") && okTier <= failedTier {
				t.Errorf("ok (tier %d) is not ordered after %s (tier %d), which it depends on", okTier, failed, failedTier)
			}
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], failed+" not rendered") || !strings.Contains(lines[0], tt.file) || !strings.Contains(lines[0], tt.reason) {
				t.Errorf("stderr %q, want one line naming %s, %s and %q", errOut, failed, tt.file, tt.reason)
			}
			if tt.kinds != "" {
				return // audit reads Kustomizations only
			}

			doc2, code := auditJSON(t, "--path", path, "--repo-root", root, "-q")
			if code != ExitFailure {
				t.Errorf("audit exit %d, want %d", code, ExitFailure)
			}
			var found bool
			for _, h := range doc2.places() {
				if h.Code == "BUILD_FAILED" && h.Kustomization.String() == failed && h.File == tt.file && strings.Contains(h.Message, tt.reason) {
					found = true
				}
			}
			if !found {
				t.Errorf("audit places %q, want a BUILD_FAILED of %s at %s", hazardLines(doc2.places()), failed, tt.file)
			}
			if doc2.Summary.Kustomizations == 0 {
				t.Error("audit audited nothing: the rest of the repository must be audited")
			}

			sarif, _, _ := runOffline(t, "audit", "--path", path, "--repo-root", root, "-o", "sarif")
			checkSARIF(t, sarif)
		})
	}
}

// TestDependsOnWhatAFailedKustomizationApplies: a dependsOn on a
// Kustomization that one which failed alone would have applied dangles
// offline, not in Flux: tiers prints the graph with it as external, says
// so, and exits 1 for the failure, not 4 for the graph; audit's
// DANGLING_DEPENDENCY is a warning that names the failed Kustomization,
// beside its BUILD_FAILED error.
func TestDependsOnWhatAFailedKustomizationApplies(t *testing.T) {
	ks := func(name, path, dependsOn string) string {
		deps := ""
		if dependsOn != "" {
			deps = ", dependsOn: [{name: " + dependsOn + "}]"
		}
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: " + name + ", namespace: flux-system}\n" +
			"spec: {interval: 10m, path: " + path + ", prune: true, sourceRef: {kind: GitRepository, name: flux-system}" + deps + "}\n"
	}
	root := writeTree(t, t.TempDir(), map[string]string{
		"standup.yaml":                    "",
		"clusters/c/infra.yaml":           ks("infra", "./infra", ""),
		"clusters/c/apps.yaml":            ks("apps", "./apps", "databases"),
		"infra/databases.yaml":            ks("databases", "./databases", ""),
		"infra/kustomization.yaml":        "resources: [databases.yaml, ../components/x]\n",
		"components/x/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n",
		"apps/cm.yaml":                    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: default}\n",
	})
	out, errOut, code := runOffline(t, "tiers", "--path", filepath.Join(root, "clusters", "c"), "--no-headers")
	if code != ExitFailure {
		t.Fatalf("exit %d, want %d: %s", code, ExitFailure, errOut)
	}
	for _, want := range []string{"flux-system/apps", "flux-system/infra"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout %q lacks %s", out, want)
		}
	}
	for _, want := range []string{
		"depends on Kustomization/flux-system/databases, which does not exist (treated as external; it may be among what the Kustomizations not rendered apply)",
		"Kustomization/flux-system/infra not rendered (clusters/c/infra.yaml): kustomize build failed",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}

	doc, code := auditJSON(t, "--path", filepath.Join(root, "clusters", "c"), "-q")
	got := hazardLines(doc.places())
	want := []string{
		"BUILD_FAILED error infra Kustomization/flux-system/infra",
		"DANGLING_DEPENDENCY warning apps Kustomization/flux-system/apps",
	}
	if code != ExitFailure || !slices.Equal(got, want) {
		t.Errorf("audit exit %d, places %q; want 1 and %q", code, got, want)
	}
	for _, h := range doc.places() {
		if h.Code == "DANGLING_DEPENDENCY" && !strings.Contains(h.Message, "it may be among what Kustomization/flux-system/infra would apply") {
			t.Errorf("message %q does not name the failed Kustomization", h.Message)
		}
	}
}
