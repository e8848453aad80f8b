package render

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
	"github.com/kubestandup/standup/pkg/render/kbuild"
)

// TestLoadErrors: what concerns the whole input fails the whole load, with
// one clear error and no result: a build of Path itself that fails, a Path
// that does not exist.
func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name      string
		path      string
		wantErr   string
		wantFile  string
		wantIndex int
	}{{
		name:      "malformed-root",
		path:      "clusters/c",
		wantErr:   "path clusters/c: clusters/c/list.yaml: document 2: document is not a YAML mapping (found a sequence)",
		wantFile:  "clusters/c/list.yaml",
		wantIndex: 2,
	}, {
		name:    "features",
		path:    "no-such-dir",
		wantErr: "no-such-dir",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := fixture(t, tt.name, tt.path)
			if err == nil {
				t.Fatalf("want an error, got a result with %d objects", len(res.Objects))
			}
			if res != nil {
				t.Errorf("a failed load must return no result, got %+v", res)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
			if abs, _ := filepath.Abs(filepath.Join("testdata", tt.name)); strings.Contains(err.Error(), abs) {
				t.Errorf("error %q names files by absolute path, want them relative to the repository root", err)
			}
			var malformed *kbuild.MalformedError
			if tt.wantFile != "" {
				if !errors.As(err, &malformed) {
					t.Fatalf("error %q is not a *kbuild.MalformedError", err)
				}
				if malformed.File != tt.wantFile || malformed.Index != tt.wantIndex {
					t.Errorf("malformed at %s document %d, want %s document %d", malformed.File, malformed.Index, tt.wantFile, tt.wantIndex)
				}
			}
		})
	}
}

func TestLoadOptions(t *testing.T) {
	root := filepath.Join("testdata", "flux2-example")
	tests := []struct {
		name    string
		opts    Options
		wantErr string
		kinds   []string
	}{
		{name: "default kinds", opts: Options{Path: filepath.Join(root, "clusters/production"), RepoRoot: root}, kinds: []string{KindKustomization}},
		{name: "helm releases only", opts: Options{Path: filepath.Join(root, "clusters/production"), RepoRoot: root, Kinds: []string{"helmrelease"}}, kinds: []string{KindHelmRelease}},
		{name: "unknown kind", opts: Options{Path: root, RepoRoot: root, Kinds: []string{"GitRepository"}}, wantErr: `kind "GitRepository" is not supported`},
		{name: "empty path", opts: Options{RepoRoot: root}, wantErr: "path is empty"},
		{name: "path is a file", opts: Options{Path: filepath.Join(root, "apps/production/kustomization.yaml"), RepoRoot: root}, wantErr: "not a directory"},
		{name: "path outside root", opts: Options{Path: filepath.Join("testdata", "cycle"), RepoRoot: root}, wantErr: "is outside the repository root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Load(context.Background(), tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range res.Objects {
				if !slices.Contains(tt.kinds, o.ID.Kind) {
					t.Errorf("object %s has a kind not asked for (%v)", o.ID, tt.kinds)
				}
			}
			if len(res.Objects) == 0 {
				t.Error("no objects")
			}
		})
	}
}

func TestLoadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	root := filepath.Join("testdata", "cluster-apps")
	_, err := Load(ctx, Options{Path: filepath.Join(root, "kubernetes/flux/cluster"), RepoRoot: root})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

func TestFindRepoRoot(t *testing.T) {
	tests := []struct {
		name   string
		marker string // created in the root: a directory when it ends in "/"
		want   string // the expected root relative to the temp dir; "" means an error
	}{
		{name: "git directory", marker: "repo/.git/", want: "repo"},
		{name: "git file (worktree)", marker: "repo/.git", want: "repo"},
		{name: "standup.yaml", marker: "repo/standup.yaml", want: "repo"},
		{name: "marker in the path itself", marker: "repo/clusters/prod/standup.yaml", want: "repo/clusters/prod"},
		{name: "nothing", marker: "repo/unrelated.txt", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(tmp, "repo/clusters/prod"), 0o755); err != nil {
				t.Fatal(err)
			}
			marker := filepath.Join(tmp, tt.marker)
			if strings.HasSuffix(tt.marker, "/") {
				err = os.MkdirAll(marker, 0o755)
			} else {
				err = os.WriteFile(marker, nil, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := FindRepoRoot(filepath.Join(tmp, "repo/clusters/prod"))
			if tt.want == "" {
				// The temp dir may itself sit inside a checkout; only
				// assert that no root is found at or below it.
				if err == nil && strings.HasPrefix(got, tmp) {
					t.Fatalf("found root %s, want none", got)
				}
				if err != nil && !errors.Is(err, ErrNoRepoRoot) {
					t.Fatalf("error %v does not wrap ErrNoRepoRoot", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(tmp, tt.want); got != want {
				t.Errorf("root %s, want %s", got, want)
			}
		})
	}
}

// Result.Remote names, per Kustomization, what its build left out offline.
func TestLoadRecordsWhatWasLeftOut(t *testing.T) {
	root := t.TempDir()
	rendertest.WriteFiles(t, root, map[string]string{
		"standup.yaml": "",
		"clusters/c/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: gateway, namespace: flux-system}
spec:
  interval: 10m
  path: ./gateway
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
`,
		"gateway/kustomization.yaml": "resources:\n  - route.yaml\n  - https://example.com/gateway-api/standard-install.yaml\n",
		"gateway/route.yaml":         "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: r, namespace: default}\n",
	})
	res := loadTree(t, root, "clusters/c")
	want := []string{"gateway/kustomization.yaml: remote resource https://example.com/gateway-api/standard-install.yaml"}
	if got := res.Remote[ksID("flux-system", "gateway")]; !slices.Equal(got, want) {
		t.Errorf("Remote = %q, want %q", got, want)
	}
}

// A SOPS document rendered into several namespaces is noted once.
func TestLoadNotesASOPSDocumentOnce(t *testing.T) {
	root := t.TempDir()
	ks := func(name string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: " + name + ", namespace: flux-system}\n" +
			"spec: {interval: 10m, path: ./shared, prune: true, targetNamespace: " + name + ", sourceRef: {kind: GitRepository, name: flux-system}}\n"
	}
	rendertest.WriteFiles(t, root, map[string]string{
		"standup.yaml":            "",
		"clusters/c/a.yaml":       ks("team-a"),
		"clusters/c/b.yaml":       ks("team-b"),
		"shared/secret.sops.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\ndata: {token: \"ENC[AES256_GCM,data:x]\"}\nsops: {version: 3.8.1}\n",
	})
	res := loadTree(t, root, "clusters/c")
	want := []string{"shared/secret.sops.yaml: Secret/creds (in 2 namespaces) is SOPS-encrypted; skipped (not decrypted offline)"}
	if !slices.Equal(res.Warnings, want) {
		t.Errorf("warnings %q, want %q", res.Warnings, want)
	}
}

// A Kustomization without spec.sourceRef is named, with why it matters.
func TestLoadNamesAKustomizationWithoutSourceRef(t *testing.T) {
	root := t.TempDir()
	rendertest.WriteFiles(t, root, map[string]string{
		"standup.yaml":       "",
		"clusters/c/ks.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: issuer, namespace: flux-system}\nspec: {interval: 10m, path: ./issuer, prune: true}\n",
	})
	res := loadTree(t, root, "clusters/c")
	want := []string{"Kustomization/flux-system/issuer (clusters/c/ks.yaml): spec.sourceRef is missing; the API server rejects the object (the field is required), so the apply of the Kustomization that applies it fails; not rendered"}
	if !slices.Equal(res.Warnings, want) {
		t.Errorf("warnings %q\nwant %q", res.Warnings, want)
	}
}

// A variable that may come from a SOPS-encrypted Secret has an unknown value
// offline, not the empty string Flux gives an undefined one.
func TestLoadVariableFromASOPSSecretIsUnknownNotEmpty(t *testing.T) {
	root := t.TempDir()
	rendertest.WriteFiles(t, root, map[string]string{
		"standup.yaml": "",
		"clusters/c/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild:
    substituteFrom:
      - {kind: Secret, name: cluster-secrets, optional: true}
`,
		"clusters/c/secret.sops.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: cluster-secrets, namespace: flux-system}\nstringData: {SECRET_DOMAIN: \"ENC[AES256_GCM,data:x]\"}\nsops: {version: 3.8.1}\n",
		"apps/cm.yaml":                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: default}\ndata: {host: \"web.${SECRET_DOMAIN}\"}\n",
	})
	res := loadTree(t, root, "clusters/c")
	want := "Kustomization/flux-system/apps: variable ${SECRET_DOMAIN} has no value offline (it may come from Secret/flux-system/cluster-secrets); shown as ${SECRET_DOMAIN} here"
	if !slices.Contains(res.Warnings, want) {
		t.Errorf("warnings %q\nwant one %q", res.Warnings, want)
	}
}

// loadTree loads path of the repository at root, which the test wrote.
func loadTree(t *testing.T, root, path string) *Result {
	t.Helper()
	res, err := Load(context.Background(), Options{Path: filepath.Join(root, path), RepoRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// An unknown variable is shown as written in names, whatever its operator:
// ${DOMAIN/./-} was shown as "" and two Kustomizations whose names differ
// only in unknown variables collapsed into one node, silently. Where they
// are one node all the same (the same name, written with an unknown
// variable, applied by two Kustomizations), one line names both and the
// variable.
func TestLoadUnknownVariablesInNames(t *testing.T) {
	const ks = `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: NAME
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
`
	const postBuild = `  postBuild:
    substitute: {OTHER: x}
    substituteFrom: [{kind: Secret, name: cluster-secrets, optional: true}]
`
	leaf := func(name string) string {
		return strings.Replace(strings.Replace(ks, "NAME", name, 1), "./apps", "./leaf", 1)
	}
	root := t.TempDir()
	rendertest.WriteFiles(t, root, map[string]string{
		"standup.yaml": "",
		"clusters/c/ks.yaml": strings.Replace(ks, "NAME", "a", 1) + postBuild +
			"---\n" + strings.Replace(strings.Replace(ks, "NAME", "b", 1), "./apps", "./apps-b", 1) + postBuild,
		"apps/ks.yaml":   leaf("cert-${DOMAIN/./-}") + "---\n" + leaf("cert-${ZONE/./-}") + "---\n" + leaf("app-${APP}"),
		"apps-b/ks.yaml": leaf("app-${APP}"),
		"leaf/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: leaf, namespace: default}\n",
	})
	res, err := Load(context.Background(), Options{Path: filepath.Join(root, "clusters", "c")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Kustomization/flux-system/a", "Kustomization/flux-system/app-${APP}", "Kustomization/flux-system/b",
		"Kustomization/flux-system/cert-${DOMAIN/./-}", "Kustomization/flux-system/cert-${ZONE/./-}",
	}
	if got := ids(res.Objects); !slices.Equal(got, want) {
		t.Errorf("objects %q, want %q", got, want)
	}
	collision := "Kustomization/flux-system/app-${APP}: apps/ks.yaml (applied by Kustomization/flux-system/a) and apps-b/ks.yaml (applied by Kustomization/flux-system/b) are one node here only because ${APP} has no value offline"
	if !slices.Contains(res.Warnings, collision) {
		t.Errorf("warnings %q lack %q", res.Warnings, collision)
	}
	if hasWarning(res, "applied by both") {
		t.Errorf("warnings %q: the collision is said twice", res.Warnings)
	}
	if !hasWarning(res, "Kustomization/flux-system/a: variable ${DOMAIN} ", "shown as ${DOMAIN/./-} here") {
		t.Errorf("warnings %q do not say how ${DOMAIN} is shown", res.Warnings)
	}
}
