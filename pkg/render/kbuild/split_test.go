package kbuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/resource"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/resid"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// TestSplitBuildMatchesKustomize builds each directory of testdata/split
// (one subdirectory per entry, under two patches that select their
// targets) split and whole, and requires the split to be taken exactly
// where it gives kustomize's result, and that result. exactCases holds the
// whole render of the fixture to the exact one as well.
func TestSplitBuildMatchesKustomize(t *testing.T) {
	root, err := canonical(filepath.Join("testdata", "split"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	patches := []kustypes.Patch{
		{Patch: "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: _}\nspec: {wait: true}\n",
			Target: &kustypes.Selector{ResId: resIDOf("kustomize.toolkit.fluxcd.io", "Kustomization")}},
		{Patch: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: _, labels: {split: \"yes\"}}\n",
			Target: &kustypes.Selector{ResId: resIDOf("", "ConfigMap")}},
	}
	tests := []struct {
		dir        string
		patches    []kustypes.Patch
		splittable bool
		split      bool
		why        string
	}{
		{"namespaces", patches, true, true, "namespaces share one component's ConfigMap, which nothing refers to"},
		{"cross", patches, true, false, "a Deployment refers to the ConfigMap another entry's generator renames"},
		{"dup", patches, true, false, "two entries hold one ID: kustomize's error"},
		{"namespaces", []kustypes.Patch{{Patch: patches[1].Patch}}, false, false, "a patch without a target finds it by name in the whole build"},
		{"namespaces", []kustypes.Patch{{Patch: patches[1].Patch, Target: patches[1].Target, Options: &kustypes.PatchArgs{AllowNameChange: true}}}, false, false, "a patch may rename"},
	}
	for _, tt := range tests {
		t.Run(tt.dir+"/"+tt.why, func(t *testing.T) {
			dir := filepath.Join(root, tt.dir)
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			kus := kustypes.Kustomization{TypeMeta: kustypes.TypeMeta{APIVersion: kustypes.KustomizationVersion, Kind: kustypes.KustomizationKind},
				Patches: tt.patches, BuildMetadata: []string{kustypes.OriginAnnotations}}
			for _, e := range entries {
				kus.Resources = append(kus.Resources, "./"+e.Name())
			}
			data, err := sigsyaml.Marshal(kus)
			if err != nil {
				t.Fatal(err)
			}
			kfile := filepath.Join(dir, "kustomization.yaml")
			if got := splittable(b.disk, dir, b.Rel(kfile), knownBytes(data), &kus); got != tt.splittable {
				t.Fatalf("splittable = %v, want %v", got, tt.splittable)
			}
			_, rs, _, ok := b.splitBuild(checkoutView{b}, dir, kfile, &kus, false)
			if !tt.splittable {
				return
			}
			if ok != tt.split {
				t.Fatalf("split build taken = %v, want %v (%s)", ok, tt.split, tt.why)
			}
			fs := &recordingFS{FileSystem: newOverlayFS(b.disk), name: b.Rel}
			if err := fs.WriteFile(kfile, data); err != nil {
				t.Fatal(err)
			}
			m, _, err := runKustomize(fs, dir, sharedBuild, true)
			if !ok {
				if tt.dir == "dup" && (err == nil || !strings.Contains(err.Error(), "already registered id")) {
					t.Fatalf("whole build: %v, want kustomize's duplicate ID error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, want := yamlOf(t, rs), yamlOf(t, m.Resources()); !slices.Equal(got, want) {
				t.Fatalf("split build:\n%s\nkustomize:\n%s", strings.Join(got, "---\n"), strings.Join(want, "---\n"))
			}
			if len(rs) != 27 {
				t.Fatalf("%d resources, want the 27 of 9 namespaces (a Namespace, a Kustomization and a ConfigMap each)", len(rs))
			}
		})
	}
}

func resIDOf(group, kind string) resid.ResId {
	return resid.ResId{Gvk: resid.Gvk{Group: group, Kind: kind}}
}

func yamlOf(t *testing.T, rs []*resource.Resource) []string {
	t.Helper()
	var docs []string
	for _, r := range rs {
		y, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(y))
	}
	return docs
}

func TestCrossReference(t *testing.T) {
	obj := func(kind, name string, fields map[string]any) *resource.Resource {
		u := map[string]any{"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"name": name}}
		for k, v := range fields {
			u[k] = v
		}
		rn, err := yaml.FromMap(u)
		if err != nil {
			t.Fatal(err)
		}
		return &resource.Resource{RNode: *rn}
	}
	envFrom := func(ref string) map[string]any {
		return map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{
			map[string]any{"name": "web", "envFrom": []any{map[string]any{"configMapRef": map[string]any{"name": ref}}}}}}}}}
	}
	tests := []struct {
		name    string
		entries [][]*resource.Resource
		want    bool
	}{
		{"a reference to a hashed name in another entry", [][]*resource.Resource{
			{obj("ConfigMap", "settings-5g7h2k", nil)}, {obj("Deployment", "web", envFrom("settings"))}}, true},
		{"a reference within its own entry", [][]*resource.Resource{
			{obj("ConfigMap", "settings-5g7h2k", nil), obj("Deployment", "web", envFrom("settings"))}, {obj("ConfigMap", "other", nil)}}, false},
		{"a referring kind that names nothing of another entry", [][]*resource.Resource{
			{obj("ConfigMap", "settings", nil)}, {obj("Deployment", "web", envFrom("elsewhere"))}}, false},
		{"a kind kustomize does not follow", [][]*resource.Resource{
			{obj("ConfigMap", "settings", nil)}, {obj("Widget", "w", envFrom("settings"))}}, false},
		{"the same name in two entries, a namespace apart", [][]*resource.Resource{
			{obj("ServiceAccount", "runner", nil)}, {obj("RoleBinding", "runner", map[string]any{"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": "runner"}}})}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := crossReference(tt.entries); got != tt.want {
				t.Fatalf("crossReference = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestNameReferencesMatchKustomize reads kustomize's nameReference
// configuration from the module standup builds with and requires
// nameReferences to be it.
func TestNameReferencesMatchKustomize(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kustomize/api").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "internal", "konfig", "builtinpluginconsts", "namereference.go"))
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(string(src), "`")
	if len(parts) < 3 {
		t.Fatal("namereference.go: no configuration between backquotes")
	}
	var config struct {
		NameReference []struct {
			Kind       string `json:"kind"`
			FieldSpecs []struct {
				Kind string `json:"kind"`
			} `json:"fieldSpecs"`
		} `json:"nameReference"`
	}
	if err := sigsyaml.Unmarshal([]byte(parts[1]), &config); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	for _, r := range config.NameReference {
		for _, f := range r.FieldSpecs {
			if f.Kind == "" {
				t.Fatalf("%s: a field spec of every kind; crossReference must treat every kind as referring", r.Kind)
			}
			if !slices.Contains(want[r.Kind], f.Kind) {
				want[r.Kind] = append(want[r.Kind], f.Kind)
			}
		}
		slices.Sort(want[r.Kind])
	}
	if !reflect.DeepEqual(nameReferences, want) {
		t.Fatalf("nameReferences = %v\nkustomize's: %v", nameReferences, want)
	}
}
