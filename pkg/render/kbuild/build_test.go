package kbuild

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
)

func TestBuildMalformedKustomization(t *testing.T) {
	tmp := t.TempDir()
	rendertest.WriteFiles(t, tmp, map[string]string{
		"app/kustomization.yaml": "resources:\n  - cm.yaml\nnamespace: [oops\n",
		"app/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
	})
	root, err := canonical(tmp)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Build(nil, filepath.Join(root, "app"))
	var malformed *MalformedError
	if !errors.As(err, &malformed) || malformed.File != "app/kustomization.yaml" || malformed.Index != 1 {
		t.Fatalf("error %v, want a *MalformedError for app/kustomization.yaml document 1", err)
	}
}

func TestBuildSkipsRemoteResources(t *testing.T) {
	tmp := t.TempDir()
	rendertest.WriteFiles(t, tmp, map[string]string{
		// 10.255.255.1 never answers: a fetch would hang or fail the build.
		"app/kustomization.yaml": `resources:
  - cm.yaml
  - https://github.com/example/repo//base?ref=v1
  - github.com/fluxcd/flux2/manifests/install?ref=v2.6.0
configMapGenerator:
  - name: dash
    files:
      - local.json
      - remote.json=https://10.255.255.1/dash.json
    envs: [https://10.255.255.1/app.env]
patches:
  - path: https://10.255.255.1/patch.yaml
  - patch: '[{"op": "add", "path": "/metadata/labels", "value": {"patched": "yes"}}]'
    target: {kind: ConfigMap, name: local}
`,
		"app/cm.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n",
		"app/local.json": "{}\n",
	})
	root, err := canonical(tmp)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.Build(nil, filepath.Join(root, "app"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range out.objects {
		names = append(names, o.Object.GetName())
		if o.Object.GetName() == "local" && o.Object.GetLabels()["patched"] != "yes" {
			t.Errorf("the local patch was not applied: %v", o.Object.GetLabels())
		}
	}
	if len(names) != 2 || names[0] != "local" || !strings.HasPrefix(names[1], "dash-") {
		t.Errorf("objects %q, want the local ConfigMap and the generated dash-*", names)
	}
	want := []string{
		"app/kustomization.yaml: remote resource https://github.com/example/repo//base?ref=v1",
		"app/kustomization.yaml: remote resource github.com/fluxcd/flux2/manifests/install?ref=v2.6.0",
		"app/kustomization.yaml: remote file https://10.255.255.1/dash.json (configMapGenerator dash)",
		"app/kustomization.yaml: remote file https://10.255.255.1/app.env (configMapGenerator dash)",
		"app/kustomization.yaml: remote patch https://10.255.255.1/patch.yaml",
	}
	if !slices.Equal(out.Remote, want) {
		t.Errorf("remote %q, want %q", out.Remote, want)
	}
}

// A kustomization file of empty documents reaches kustomize unchanged, which
// reports it, rather than panicking in the remote filter.
func TestWithoutRemoteLeavesEmptyDocumentsAlone(t *testing.T) {
	for _, in := range []string{"", "---\n---\n", "# only a comment\n"} {
		out, remote := withoutRemote([]byte(in))
		if string(out) != in || remote != nil {
			t.Errorf("withoutRemote(%q) = %q, %q; want it unchanged", in, out, remote)
		}
	}
}
