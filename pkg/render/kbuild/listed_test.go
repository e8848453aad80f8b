package kbuild

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/konfig"
	kustypes "sigs.k8s.io/kustomize/api/types"

	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
)

// TestListedBuildMatchesKustomize builds every directory of the fixtures
// and the examples that has no kustomization file of its own
// (so that Flux generates one listing its manifests) both without
// kustomize (listedBuild) and with it, and compares every object, its
// file, and what each build set aside. Wherever kustomize fails, the
// listed build must have declined.
func TestListedBuildMatchesKustomize(t *testing.T) {
	roots := map[string]string{}
	for _, dir := range []string{"testdata", filepath.Join("..", "testdata"), filepath.Join("..", "..", "..", "examples")} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() {
				roots[e.Name()] = filepath.Join(dir, e.Name())
			}
		}
	}
	// The corpus is TestListedBuildMatchesKustomizeOnTheCorpus's.
	listed := 0
	for name, dir := range roots {
		t.Run(name, func(t *testing.T) {
			listed += compareListedBuilds(t, dir)
		})
	}
	// The generated repository of BenchmarkLoadScale is the case the listed
	// build is for: every Kustomization, and the cluster directory of
	// 200 files, must take it.
	t.Run("generated", func(t *testing.T) {
		dir := rendertest.ScaleRepo(t, 200)
		if n := compareListedBuilds(t, dir); n < 201 {
			t.Errorf("%d directories built without kustomize, want at least 201", n)
		}
	})
	if listed == 0 {
		t.Error("no fixture directory was built without kustomize: the comparison proves nothing")
	}
}

// compareListedBuilds compares the listed build with kustomize's on every
// directory under root without a kustomization file, and returns how many
// the listed build took.
func compareListedBuilds(t *testing.T, root string) int {
	t.Helper()
	root, err := canonical(root)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := New(root)
	if err != nil {
		t.Fatalf("New(%s): %v", root, err)
	}
	slow, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	slow.kustomizeAlways = true
	took := 0
	err = filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		for _, k := range konfig.RecognizedKustomizationFileNames() {
			if _, err := os.Lstat(filepath.Join(dir, k)); err == nil {
				return nil
			}
		}
		v := checkoutView{fast}
		gen, err := v.generate(map[string]any{}, dir, false)
		if err != nil || !gen.listed {
			return nil
		}
		kus, _, err := gen.parse()
		if err != nil {
			t.Fatal(err)
		}
		kus.BuildMetadata = append(kus.BuildMetadata, kustypes.OriginAnnotations)
		got, ok := fast.listedBuild(v, dir, &kus, true)
		if !ok {
			return nil
		}
		took++
		want, err := slow.Build(nil, dir)
		rel := fast.Rel(dir)
		if err != nil {
			t.Errorf("%s: kustomize fails (%v), the listed build gave %d objects", rel, err, len(got.objects))
			return nil
		}
		if g, w := buildText(t, got), buildText(t, want); g != w {
			t.Errorf("%s: the listed build differs from kustomize's\n--- listed:\n%s\n--- kustomize:\n%s", rel, g, w)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d directories built without kustomize", took)
	return took
}

// buildText renders a build result for comparison: each object's file
// and JSON, sorted (Load sorts what a build returns), then what it set
// aside.
func buildText(t *testing.T, res *Output) string {
	t.Helper()
	var docs []string
	for _, o := range res.objects {
		y, err := o.toYAML()
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, o.File+"\n"+string(o.json)+"\n"+string(y))
	}
	slices.Sort(docs)
	for _, m := range res.SOPS {
		js, err := m.Object.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, "sops "+m.File+"\n"+string(js))
	}
	docs = append(docs, "remote: "+strings.Join(res.Remote, ", "), "warnings: "+strings.Join(res.Warnings, ", "))
	return strings.Join(docs, "\n---\n")
}
