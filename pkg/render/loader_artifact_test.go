package render

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
)

// TestArtifactBuildErrors: what the artifact does not hold fails the
// Kustomization as it does in kustomize-controller, which builds the
// extracted artifact alone; the rest of the checkout is rendered.
func TestArtifactBuildErrors(t *testing.T) {
	const generator = `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata: {name: gen, namespace: flux-system}
spec:
  sources: [{alias: repo, kind: GitRepository, name: flux-system}]
  artifacts: [{name: apps, copy: [{from: "@repo/apps/production/**", to: "@artifact/production/"}]}]
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec: {interval: 10m, path: PATH, prune: true, sourceRef: {kind: ExternalArtifact, name: apps}}
`
	tests := []struct {
		name, path string
		want       []string
	}{
		{"a path the artifact lacks", "./apps/production", []string{
			"Kustomization/flux-system/apps not rendered: kustomization path not found: ./apps/production (defined in clusters/c/apps.yaml): ExternalArtifact/flux-system/apps holds no such directory"}},
		{"a file outside the artifact", "./production", []string{
			"Kustomization/flux-system/apps not rendered (clusters/c/apps.yaml): kustomize build failed", "ExternalArtifact/flux-system/apps/base/podinfo", "not in ExternalArtifact/flux-system/apps"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			rendertest.WriteFiles(t, root, map[string]string{
				"standup.yaml":                       "",
				"clusters/c/apps.yaml":               strings.Replace(generator, "PATH", tt.path, 1),
				"clusters/c/git.yaml":                "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: flux-system, namespace: flux-system}\n",
				"apps/production/kustomization.yaml": "resources: [../base/podinfo]\n",
				"apps/base/podinfo/cm.yaml":          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: podinfo, namespace: default}\n",
			})
			res, err := Load(context.Background(), Options{Path: filepath.Join(root, "clusters", "c")})
			if err != nil {
				t.Fatalf("Load = %v; want the Kustomization to fail alone", err)
			}
			if len(res.Failed) != 1 || res.Failed[0].ID != ksID("flux-system", "apps") {
				t.Fatalf("Failed = %v; want Kustomization/flux-system/apps", res.Failed)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Failed[0].Error(), w) {
					t.Errorf("failure %q does not contain %q", res.Failed[0], w)
				}
			}
		})
	}
}
