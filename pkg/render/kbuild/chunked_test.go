//go:build !race

package kbuild

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	kustypes "sigs.k8s.io/kustomize/api/types"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
)

// TestChunkedBuildMatchesKustomize (built without the race detector: its
// chunks build one after another, and kustomize under it is several times
// slower) checks that a plain kustomization of many
// files builds in chunks to what one kustomize run gives, and that whatever
// the chunks cannot reproduce (an ID in two chunks, a transformer, a
// name-hash or local-config annotation) gives kustomize's own result or error.
// chunkedFiles is the number of files of TestChunkedBuildMatchesKustomize's
// kustomization: a few more than three chunks.
const chunkedFiles = 3*chunkSize + 5

func TestChunkedBuildMatchesKustomize(t *testing.T) {
	tests := []struct {
		name string
		// edit changes the files and the kustomization before the build.
		edit func(files map[string]string, kus *kustypes.Kustomization)
		// chunked is whether the chunks are tried.
		chunked   bool
		wantError string
	}{
		{name: "plain", chunked: true},
		{name: "origin annotations", chunked: true, edit: func(_ map[string]string, kus *kustypes.Kustomization) {
			kus.BuildMetadata = []string{kustypes.OriginAnnotations}
		}},
		{name: "same ID in two chunks", chunked: true, wantError: "may not add resource with an already registered id", edit: func(files map[string]string, _ *kustypes.Kustomization) {
			// "" and "default" are one namespace to kustomize.
			files[fmt.Sprintf("r%d.yaml", chunkedFiles-1)] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-0, namespace: default}\n"
		}},
		{name: "name prefix", edit: func(_ map[string]string, kus *kustypes.Kustomization) {
			kus.NamePrefix = "p-"
		}},
		{name: "needs-hash", edit: func(files map[string]string, _ *kustypes.Kustomization) {
			files["r7.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-7, annotations: {kustomize.config.k8s.io/needs-hash: \"true\"}}\n"
			files["r150.yaml"] = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {volumes: [{name: v, configMap: {name: cm-7}}], containers: [{name: c, image: x}]}\n"
		}},
		{name: "local-config", edit: func(files map[string]string, _ *kustypes.Kustomization) {
			files["r3.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-3, annotations: {config.kubernetes.io/local-config: \"true\"}}\n"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			kus := kustypes.Kustomization{TypeMeta: kustypes.TypeMeta{APIVersion: kustypes.KustomizationVersion, Kind: kustypes.KustomizationKind}}
			for i := range chunkedFiles {
				name := fmt.Sprintf("r%d.yaml", i)
				files[name] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-%d}\ndata: {k: v}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ns-%d}\n", i, i)
				kus.Resources = append(kus.Resources, "./"+name)
			}
			if tt.edit != nil {
				tt.edit(files, &kus)
			}
			data, err := sigsyaml.Marshal(kus)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			rendertest.WriteFiles(t, dir, files)
			root, err := canonical(dir)
			if err != nil {
				t.Fatal(err)
			}
			b, err := New(root)
			if err != nil {
				t.Fatal(err)
			}
			out, errs := buildWholeAndChunked(t, b, root, data, &kus, tt.chunked)
			if errs[0] != errs[1] {
				t.Fatalf("errors differ:\none build: %s\nchunked:   %s", errs[0], errs[1])
			}
			if !strings.Contains(errs[0], tt.wantError) || (tt.wantError == "" && errs[0] != "") {
				t.Fatalf("error %q, want %q", errs[0], tt.wantError)
			}
			if out[0] != out[1] {
				t.Errorf("chunked build differs from one kustomize run:\n%s\n=====\n%s", out[0], out[1])
			}
			if tt.wantError == "" && strings.Count(out[0], "kind: ConfigMap") < chunkedFiles-2 {
				t.Errorf("want about %d ConfigMaps, got:\n%.500s", chunkedFiles, out[0])
			}
		})
	}
}

// buildWholeAndChunked builds root, whose kustomization file is data
// (parsed as kus), in one kustomize run and in chunks, and returns what
// each gives (documents sorted) and its error; chunked is whether the
// chunks are to be tried.
func buildWholeAndChunked(t *testing.T, b *Builder, root string, data []byte, kus *kustypes.Kustomization, chunked bool) (out, errs [2]string) {
	t.Helper()
	kfile := filepath.Join(root, "kustomization.yaml")
	for i, chunk := range []bool{false, true} {
		fs := &recordingFS{FileSystem: newOverlayFS(b.disk), name: b.Rel}
		if err := fs.WriteFile(kfile, data); err != nil {
			t.Fatal(err)
		}
		if i == 1 && chunkable(b.disk, root, kus) != chunked {
			t.Errorf("chunkable = %v, want %v", !chunked, chunked)
		}
		var rs []*resource.Resource
		var err error
		if chunk {
			_, rs, _, err = b.kustomize(checkoutView{b}, root, kfile, nil, knownBytes(data), kus, sharedBuild)
		} else {
			var m resmap.ResMap
			if m, _, err = runKustomize(fs, root, sharedBuild, true); err == nil {
				rs = m.Resources()
			}
		}
		if err != nil {
			errs[i] = err.Error()
		}
		var docs []string
		for _, r := range rs {
			y, err := r.AsYAML()
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, string(y))
		}
		slices.Sort(docs) // the order does not matter: Load sorts
		out[i] = strings.Join(docs, "---\n")
	}
	return out, errs
}
