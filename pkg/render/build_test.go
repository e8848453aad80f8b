package render

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	securefs "github.com/fluxcd/pkg/kustomize/filesys"
)

// TestRunKustomizeMatchesFlux checks that the fast build gives byte for byte
// what fluxcd/pkg/kustomize.Build gives, on overlays that use patches,
// components, generators and bases outside the directory.
func TestRunKustomizeMatchesFlux(t *testing.T) {
	tests := []struct{ root, dir string }{
		{"features", "base"},
		{"flux2-example", "apps/production"},
		{filepath.Join("..", "..", "..", "examples", "homelab"), "platform-config-cdi"},
	}
	for _, tt := range tests {
		t.Run(tt.root+"/"+tt.dir, func(t *testing.T) {
			root, err := canonical(filepath.Join("testdata", tt.root))
			if err != nil {
				t.Fatal(err)
			}
			disk, err := securefs.MakeFsOnDiskSecure(root)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(root, tt.dir)
			var out [2]string
			for i, exact := range []bool{true, false} {
				m, err := runKustomize(disk, dir, exact)
				if err != nil {
					t.Fatalf("exact=%v: %v", exact, err)
				}
				data, err := m.AsYaml()
				if err != nil {
					t.Fatal(err)
				}
				out[i] = string(data)
			}
			if out[0] == "" || out[0] != out[1] {
				t.Errorf("fluxcd/pkg/kustomize.Build gives\n%s\nthe fast build gives\n%s", out[0], out[1])
			}
		})
	}
}

func TestBuildMalformedKustomization(t *testing.T) {
	tmp := t.TempDir()
	writeFiles(t, tmp, map[string]string{
		"app/kustomization.yaml": "resources:\n  - cm.yaml\nnamespace: [oops\n",
		"app/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
	})
	root, err := canonical(tmp)
	if err != nil {
		t.Fatal(err)
	}
	b, err := newBuilder(root)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.build(nil, filepath.Join(root, "app"))
	var malformed *MalformedError
	if !errors.As(err, &malformed) || malformed.File != "app/kustomization.yaml" || malformed.Index != 1 {
		t.Fatalf("error %v, want a *MalformedError for app/kustomization.yaml document 1", err)
	}
}

func TestBuildSkipsRemoteResources(t *testing.T) {
	tmp := t.TempDir()
	writeFiles(t, tmp, map[string]string{
		"app/kustomization.yaml": "resources:\n  - cm.yaml\n  - https://github.com/example/repo//base?ref=v1\n  - github.com/fluxcd/flux2/manifests/install?ref=v2.6.0\n",
		"app/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n",
	})
	root, err := canonical(tmp)
	if err != nil {
		t.Fatal(err)
	}
	b, err := newBuilder(root)
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.build(nil, filepath.Join(root, "app"))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.objects) != 1 || out.objects[0].Object.GetName() != "local" {
		t.Errorf("objects %v, want the local ConfigMap only", out.objects)
	}
	want := []string{
		"app/kustomization.yaml: remote resource https://github.com/example/repo//base?ref=v1",
		"app/kustomization.yaml: remote resource github.com/fluxcd/flux2/manifests/install?ref=v2.6.0",
	}
	if !slices.Equal(out.remote, want) {
		t.Errorf("remote %q, want %q", out.remote, want)
	}
}
