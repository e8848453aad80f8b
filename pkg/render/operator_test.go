package render

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubestandup/standup/pkg/tiers"
)

// writeTree writes files (path to content) under a new directory and
// returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// syncRoot is a FluxInstance syncing clusters/c from a Git repository.
const syncRoot = `apiVersion: fluxcd.controlplane.io/v1
kind: FluxInstance
metadata:
  name: flux
  namespace: flux-system
spec:
  sync:
    kind: GitRepository
    url: https://example.com/fleet.git
    ref: refs/heads/main
    path: clusters/c
`

// resourceSets is the ResourceSets TestResourceSetNodes renders.
const resourceSets = `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata: {name: staged, namespace: flux-system}
spec:
  dependsOn:
    - {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: db, namespace: flux-system, ready: true}
    - {apiVersion: kustomize.toolkit.fluxcd.io/v1, kind: Kustomization, name: nowhere}
  steps:
    - name: first
      resources:
        - {apiVersion: kustomize.toolkit.fluxcd.io/v1, kind: Kustomization, metadata: {name: one, namespace: flux-system}, spec: {interval: 1h, path: ./one, prune: true, sourceRef: {kind: OCIRepository, name: other}}}
    - name: second
      resources:
        - {apiVersion: kustomize.toolkit.fluxcd.io/v1, kind: Kustomization, metadata: {name: two, namespace: flux-system}, spec: {interval: 1h, path: ./two, prune: true, sourceRef: {kind: OCIRepository, name: other}}}
---
apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata: {name: broken, namespace: flux-system}
spec:
  resourcesTemplate: "<< if >>"
---
apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata: {name: prs, namespace: flux-system}
spec:
  inputsFrom: [{name: github-prs}]
  inputs: [{id: main}]
  resources:
    - {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, metadata: {name: "app-<< inputs.id >>", namespace: flux-system}, spec: {interval: 1h, chart: {spec: {chart: app, sourceRef: {kind: HelmRepository, name: charts}}}}}
---
apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata: {name: previews, namespace: flux-system}
spec:
  dependsOn:
    - {apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, name: widgets.example.com, readyExpr: "true"}
  inputsFrom: [{kind: ResourceSetInputProvider, name: github-tags}]
  resources:
    - {apiVersion: v1, kind: Namespace, metadata: {name: "preview-<< inputs.id >>"}}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: db, namespace: flux-system}
spec: {interval: 1h, chart: {spec: {chart: db, sourceRef: {kind: HelmRepository, name: charts}}}}
`

// TestResourceSetNodes: steps order the nodes of a later step after those
// of the earlier ones; a dependsOn on a HelmRelease is an edge only where
// HelmReleases are nodes; a dependsOn without namespace is noted and kept,
// to dangle; a ResourceSet the Operator would stall on fails alone, a node
// still; inputsFrom is noted for each ResourceSet, naming its providers,
// and the in-line inputs expanded (none: nothing, a node still); a
// readyExpr without ready: true is noted.
func TestResourceSetNodes(t *testing.T) {
	root := writeTree(t, map[string]string{
		"clusters/c/flux-system/instance.yaml": syncRoot,
		"clusters/c/sets.yaml":                 resourceSets,
	})
	load := func(kinds ...string) *Result {
		res, err := Load(context.Background(), Options{Path: filepath.Join(root, "clusters/c"), RepoRoot: root, Kinds: kinds})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := load()
	want := []string{
		"Kustomization/flux-system/two -> Kustomization/flux-system/one",
		"Kustomization/flux-system/two -> Kustomization//nowhere",
		"Kustomization/flux-system/one -> Kustomization//nowhere",
		"ResourceSet/flux-system/staged -> Kustomization//nowhere",
	}
	if got := edges(res.Objects); !sameSet(got, want) {
		t.Errorf("Kustomizations only: edges\n got %q\nwant %q", got, want)
	}
	withHR := edges(load(KindKustomization, KindHelmRelease).Objects)
	for _, e := range []string{"ResourceSet/flux-system/staged -> HelmRelease/flux-system/db", "Kustomization/flux-system/two -> HelmRelease/flux-system/db"} {
		if !slices.Contains(withHR, e) {
			t.Errorf("with HelmReleases: no edge %s in %q", e, withHR)
		}
	}
	if !hasWarning(res, "ResourceSet/flux-system/staged", "dependsOn Kustomization/nowhere has no namespace") ||
		!hasWarning(res, "ResourceSet/flux-system/prs", "ResourceSetInputProvider/flux-system/github-prs", "not known offline", "only its 1 in-line input set(s) are expanded") ||
		!hasWarning(res, "ResourceSet/flux-system/previews", "ResourceSetInputProvider/flux-system/github-tags", "not known offline", "nothing is expanded") ||
		!hasWarning(res, "ResourceSet/flux-system/previews", "dependsOn CustomResourceDefinition/widgets.example.com has a readyExpr without ready: true") ||
		hasWarning(res, "ResourceSet/flux-system/staged", "readyExpr") ||
		!hasWarning(res, "ResourceSet/flux-system/staged", "2 steps") {
		t.Errorf("warnings %q", res.Warnings)
	}
	if len(res.Failed) != 1 || res.Failed[0].ID.String() != "ResourceSet/flux-system/broken" || !strings.Contains(res.Failed[0].Error(), "failed to parse template") {
		t.Errorf("failed %v", res.Failed)
	}
	if got := rendered(res, tiers.ID{Kind: KindResourceSet, Namespace: "flux-system", Name: "prs"}); !slices.Equal(got, []string{"HelmRelease/flux-system/app-main clusters/c/sets.yaml"}) {
		t.Errorf("prs rendered %q", got)
	}
	if got := rendered(res, tiers.ID{Kind: KindResourceSet, Namespace: "flux-system", Name: "previews"}); len(got) != 0 {
		t.Errorf("previews rendered %q, want nothing", got)
	}
	if !slices.Contains(ids(res.Objects), "ResourceSet/flux-system/previews") {
		t.Errorf("previews is not a node: %q", ids(res.Objects))
	}
}

// TestFluxInstanceRoot: --path at the entry path a FluxInstance syncs, or
// at the FluxInstance's own folder, renders the entry path from the
// Kustomization the Operator makes; its GitRepository is the checkout.
func TestFluxInstanceRoot(t *testing.T) {
	root := writeTree(t, map[string]string{
		"clusters/c/flux-system/instance.yaml": syncRoot,
		"clusters/c/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec: {interval: 1h, path: ./apps, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
`,
		"apps/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\n",
	})
	for _, path := range []string{"clusters/c", "clusters/c/flux-system"} {
		res, err := Load(context.Background(), Options{Path: filepath.Join(root, path), RepoRoot: root})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(res.Objects); !slices.Equal(got, []string{"Kustomization/flux-system/apps", "Kustomization/flux-system/flux-system"}) {
			t.Errorf("%s: objects %q", path, got)
		}
		sync := objectByID(t, res, ksID("flux-system", "flux-system"))
		if sync.AppliedBy != nil || sync.File != "clusters/c/flux-system/instance.yaml" || sync.Path != "clusters/c" {
			t.Errorf("%s: sync Kustomization %+v", path, sync)
		}
		if got := rendered(res, ksID("flux-system", "apps")); !slices.Equal(got, []string{"ConfigMap/default/x apps/cm.yaml"}) {
			t.Errorf("%s: apps rendered %q, warnings %q", path, got, res.Warnings)
		}
	}
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
