package kbuild

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
	"github.com/kubestandup/standup/pkg/tiers"
)

// artifactSourceFiles is the source the copy tests copy from.
var artifactSourceFiles = map[string]string{
	"apps/base/podinfo/kustomization.yaml": "resources: [release.yaml]\n",
	"apps/base/podinfo/release.yaml":       "kind: HelmRelease\n",
	"apps/base/README.md":                  "# base\n",
	"apps/production/kustomization.yaml":   "resources: [../base/podinfo]\n",
	"apps/production/values.yaml":          "replicas: 2\nimage: {tag: v1, pull: Always}\n",
	"apps/production/notes/a.md":           "a\n",
	"apps/staging/values.yaml":             "image: {tag: v2}\nlist: [1]\n",
	"apps/staging/extra.yaml":              "---\nlist: [2]\n---\nother: true\n",
	"apps/ignored.yaml":                    "kind: Secret\n",
	".sourceignore":                        "apps/ignored.yaml\n",
}

// treeCopyCase is a case of TestArtifactTreeCopies.
type treeCopyCase struct {
	name    string
	copy    []copyOperation
	want    []string
	wantErr string
}

// treeCopyCases are copy operations of an ArtifactGenerator over
// artifactSourceFiles, and what each must copy where.
var treeCopyCases = []treeCopyCase{
	{
		name: "dir/** copies the content of dir",
		copy: []copyOperation{{From: "@repo/apps/base/**", To: "@artifact/base/"}},
		want: []string{"base/README.md <- apps/base/README.md", "base/podinfo/kustomization.yaml <- apps/base/podinfo/kustomization.yaml", "base/podinfo/release.yaml <- apps/base/podinfo/release.yaml"},
	},
	{
		name: "dir/ copies dir as a directory of its own name",
		copy: []copyOperation{{From: "@repo/apps/base/podinfo/", To: "@artifact/apps/base/podinfo/"}},
		want: []string{"apps/base/podinfo/podinfo/kustomization.yaml <- apps/base/podinfo/kustomization.yaml", "apps/base/podinfo/podinfo/release.yaml <- apps/base/podinfo/release.yaml"},
	},
	{
		name: "the root of a source",
		copy: []copyOperation{{From: "@repo/", To: "@artifact/"}},
		want: []string{
			".sourceignore <- .sourceignore",
			"apps/base/README.md <- apps/base/README.md", "apps/base/podinfo/kustomization.yaml <- apps/base/podinfo/kustomization.yaml",
			"apps/base/podinfo/release.yaml <- apps/base/podinfo/release.yaml", "apps/production/kustomization.yaml <- apps/production/kustomization.yaml",
			"apps/production/notes/a.md <- apps/production/notes/a.md", "apps/production/values.yaml <- apps/production/values.yaml",
			"apps/staging/extra.yaml <- apps/staging/extra.yaml", "apps/staging/values.yaml <- apps/staging/values.yaml",
		},
	},
	{
		name: "a file into a directory, and renamed",
		copy: []copyOperation{
			{From: "@repo/apps/production/values.yaml", To: "@artifact/cfg/"},
			{From: "@repo/apps/staging/values.yaml", To: "@artifact/cfg/staging.yaml"},
			{From: "@repo/apps/base/README.md", To: "@artifact/cfg"}, // an existing directory
		},
		want: []string{"cfg/README.md <- apps/base/README.md", "cfg/staging.yaml <- apps/staging/values.yaml", "cfg/values.yaml <- apps/production/values.yaml"},
	},
	{
		name: "a glob keeps the matched path; exclusions by name and by path under the selection",
		copy: []copyOperation{
			{From: "@repo/apps/*/values.yaml", To: "@artifact/"},
			{From: "@repo/apps/production/**", To: "@artifact/prod/", Exclude: []string{"*.md", "values.yaml"}},
		},
		want: []string{"apps/production/values.yaml <- apps/production/values.yaml", "apps/staging/values.yaml <- apps/staging/values.yaml", "prod/kustomization.yaml <- apps/production/kustomization.yaml"},
	},
	{
		name: "later copies overwrite earlier ones",
		copy: []copyOperation{
			{From: "@repo/apps/production/values.yaml", To: "@artifact/values.yaml"},
			{From: "@repo/apps/staging/values.yaml", To: "@artifact/values.yaml"},
		},
		want: []string{"values.yaml <- apps/staging/values.yaml"},
	},
	{
		name: "Merge merges YAML the way Helm merges values",
		copy: []copyOperation{
			{From: "@repo/apps/production/values.yaml", To: "@artifact/values.yaml"},
			{From: "@repo/apps/staging/values.yaml", To: "@artifact/values.yaml", Strategy: copyStrategyMerge},
			{From: "@repo/apps/staging/extra.yaml", To: "@artifact/values.yaml", Strategy: copyStrategyMerge},
		},
		want: []string{"values.yaml <- apps/production/values.yaml merged: image:\n  pull: Always\n  tag: v2\nlist:\n- 2\nother: true\nreplicas: 2\n"},
	},
	{
		name:    "a file source-controller ignores is not in the source",
		copy:    []copyOperation{{From: "@repo/apps/*.yaml", To: "@artifact/"}},
		wantErr: "no files match pattern 'apps/*.yaml' in source 'repo'",
	},
	{
		name:    "a missing source",
		copy:    []copyOperation{{From: "@repo/apps/missing/", To: "@artifact/"}},
		wantErr: "source 'apps/missing' does not exist",
	},
	{
		name:    "everything excluded",
		copy:    []copyOperation{{From: "@repo/apps/base/*.md", To: "@artifact/", Exclude: []string{"**/*.md"}}},
		wantErr: "were excluded",
	},
	{
		name:    "an undefined alias",
		copy:    []copyOperation{{From: "@other/apps/", To: "@artifact/"}},
		wantErr: "source alias 'other' not found",
	},
	{
		name:    "a destination outside the artifact",
		copy:    []copyOperation{{From: "@repo/apps/staging/values.yaml", To: "@artifact/../x.yaml"}},
		wantErr: "escapes from the artifact",
	},
}

// TestArtifactTreeCopies checks the copy operations of source-watcher's
// ArtifactGenerator, as its builder runs them (internal/builder): what
// lands where in the artifact, as "artifact path <- source path".
func TestArtifactTreeCopies(t *testing.T) {
	root := t.TempDir()
	rendertest.WriteFiles(t, root, artifactSourceFiles)
	b, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	ignored := func(abs string, dir bool) bool {
		return b.ignored.Match(strings.Split(abs, string(filepath.Separator)), dir)
	}
	for _, tt := range treeCopyCases {
		t.Run(tt.name, func(t *testing.T) {
			tree, err := buildArtifactTree(OutputArtifact{Name: "a", Copy: tt.copy}, map[string]string{"repo": root}, ignored, b.disk.ReadFile)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for p, f := range tree.files {
				line := p + " <- " + b.Rel(f.disk)
				if f.data != nil {
					line += " merged: " + string(f.data)
				}
				got = append(got, line)
			}
			sort.Strings(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("artifact:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

// TestArtifactPathPattern expands a pathPattern into one artifact per
// matching directory: names from lower-cased captures, copy paths from the
// captures as written.
func TestArtifactPathPattern(t *testing.T) {
	root := t.TempDir()
	rendertest.WriteFiles(t, root, map[string]string{
		"apps/Web/envs/prod/cm.yaml": "kind: ConfigMap\n",
		"apps/db/envs/dev/cm.yaml":   "kind: ConfigMap\n",
		"apps/db/README.md":          "db\n",
	})
	g := &ArtifactGenerator{spec: generatorSpec{
		PathPattern: "@repo/apps/{app}/envs/{env}",
		Artifacts:   []OutputArtifact{{Name: "{app}-{env}", Copy: []copyOperation{{From: "@repo/apps/{app}/envs/{env}/**", To: "@artifact/"}}}},
	}}
	outs, err := g.Outputs(func(tiers.ID) (string, bool) { return root, true }, func(string, bool) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range outs {
		got = append(got, o.Name+": "+o.Copy[0].From)
	}
	want := []string{"web-prod: @repo/apps/Web/envs/prod/**", "db-dev: @repo/apps/db/envs/dev/**"} // walk order
	if !slices.Equal(got, want) {
		t.Errorf("outputs %q, want %q", got, want)
	}
}

// TestGenerateKustomizationMatchesFlux holds generateKustomization, which
// generates an artifact's kustomization file on artifactFS, to the output
// of fluxcd/pkg/kustomize's generator on the same directory on disk.
func TestGenerateKustomizationMatchesFlux(t *testing.T) {
	root := t.TempDir()
	rendertest.WriteFiles(t, root, map[string]string{
		"with-kfile/kustomization.yaml":      "resources: [cm.yaml]\nimages: [{name: nginx, newTag: '1.0', digest: sha256:aa}, {name: redis, newName: valkey}]\nnamespace: base\n",
		"with-kfile/cm.yaml":                 "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n",
		"with-kfile/comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n",
		"empty-kfile/kustomization.yaml":     "namePrefix: x-\n",
		"no-kfile/a.yaml":                    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
		"no-kfile/sub/b.yml":                 "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
		"no-kfile/sub/notes.txt":             "not a manifest\n",
		"no-kfile/nested/kustomization.yaml": "resources: []\n",
		"no-kfile/nested/c.yaml":             "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
		"nothing/README.md":                  "no manifests\n",
	})
	specs := map[string]string{
		"none": `{}`,
		"all": `{targetNamespace: apps, namePrefix: p-, nameSuffix: -s,
			patches: [{patch: "- op: add\n  path: /metadata/labels\n  value: {a: b}", target: {kind: ConfigMap, name: a, labelSelector: x=y}}],
			components: [comp, missing], ignoreMissingComponents: true,
			patchesStrategicMerge: [{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {k: v}}],
			patchesJson6902: [{target: {version: v1, kind: ConfigMap, name: a}, patch: [{op: add, path: /data, value: {}}]}],
			images: [{name: nginx, newTag: '2.0'}, {name: redis, digest: sha256:bb}, {name: busybox, newName: alpine}],
			buildMetadata: [originAnnotations, managedByLabel]}`,
		"empty targetNamespace": `{targetNamespace: ""}`,
		"components kept":       `{components: [comp]}`,
	}
	for _, dir := range []string{"with-kfile", "empty-kfile", "no-kfile", "nothing"} {
		for name, spec := range specs {
			t.Run(dir+"/"+name, func(t *testing.T) {
				var specMap map[string]any
				if err := sigsyaml.Unmarshal([]byte(spec), &specMap); err != nil {
					t.Fatal(err)
				}
				ks := map[string]any{"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization", "spec": specMap}
				abs := filepath.Join(root, dir)
				wantData, wantFile, _, wantErr := fluxkustomize.NewGenerator(root, unstructured.Unstructured{Object: ks}).GenerateManifest(abs)
				b, err := New(root)
				if err != nil {
					t.Fatal(err)
				}
				gen, gotErr := generateKustomization(b.disk, ks, abs, true, scanManifests)
				var gotData []byte
				var gotFile string
				if gen != nil {
					gotFile = gen.path
					if gotErr == nil {
						gotData, gotErr = gen.bytes()
					}
				}
				if (gotErr != nil) != (wantErr != nil) {
					t.Fatalf("error %v, Flux's %v", gotErr, wantErr)
				}
				if string(gotData) != string(wantData) || gotFile != wantFile {
					t.Errorf("generated %s:\n%s\nFlux generates %s:\n%s", gotFile, gotData, wantFile, wantData)
				}
			})
		}
	}
	if _, err := os.Stat(filepath.Join(root, "no-kfile", "kustomization.yaml")); err == nil {
		t.Error("a generator wrote to disk")
	}
}
