package kbuild

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resource"
)

// TestParseResourcesMatchesKustomize holds parseResources to kustomize's
// own Factory.SliceFromBytes: the same resources, printed alike, or an
// error from both; on documents that take each way (de-anchored or not),
// and on every YAML file of the fixtures and the examples.
func TestParseResourcesMatchesKustomize(t *testing.T) {
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: ns}\n"
	tests := map[string]string{
		"plain":                         cm + "data: {a: b, c: d}\n",
		"two documents":                 cm + "---\n" + strings.Replace(cm, "name: cm", "name: cm2", 1),
		"empty documents":               "---\n---\n" + cm + "---\n# only a comment\n",
		"an anchor and an alias":        cm + "data:\n  a: &v value\n  b: *v\n",
		"a merge key":                   cm + "x: &base {k: v, l: w}\ndata:\n  <<: *base\n  k: over\n",
		"a quoted merge key":            cm + "data:\n  '<<': literal\n  k: v\n",
		"a repeated key":                cm + "data:\n  k: first\n  k: second\n",
		"a repeated key, deep":          cm + "spec:\n  template:\n    a: 1\n    b: 2\n    a: 3\n",
		"a null key":                    cm + "data:\n  ~: null-key\n  k: v\n",
		"an empty key":                  cm + "data:\n  '': empty\n  k: v\n",
		"a wide mapping":                cm + "data:\n" + wideMapping(40, false),
		"a wide mapping, repeat":        cm + "data:\n" + wideMapping(40, true),
		"a complex key":                 cm + "data:\n  ? {a: b}\n  : complex\n",
		"a List":                        "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSpace(cm), "\n", "\n  ") + "\n",
		"a ConfigMapList":               "apiVersion: v1\nkind: ConfigMapList\nitems: []\n",
		"a bare list":                   "- a\n- b\n",
		"no metadata":                   "apiVersion: v1\nkind: ConfigMap\n",
		"an empty list item":            cm + "data: {}\nlist:\n- a\n-\n- b\n",
		"not YAML":                      "a: [b\n",
		"comments and styles":           "# head\n" + cm + "data:\n  # note\n  k: |\n    text\n  q: 'quoted' # tail\n",
		"a separator's comment":         cm + "--- # next\n" + strings.Replace(cm, "name: cm", "name: cm2", 1),
		"a bad separator":               cm + "--- x\n" + cm,
		"CRLF line endings":             strings.ReplaceAll(cm+"data:\n  k: |\n    text\n---\n"+strings.Replace(cm, "name: cm", "name: cm2", 1), "\n", "\r\n"),
		"a ResourceList":                "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- " + strings.ReplaceAll(strings.TrimSpace(cm), "\n", "\n  ") + "\n",
		"a literal at a document's end": cm + "data:\n  k: |\n    text\n---\n" + strings.Replace(cm, "name: cm", "name: cm2", 1),
	}
	rf := provider.NewDefaultDepProvider().GetResourceFactory()
	for name, data := range tests {
		t.Run(name, func(t *testing.T) { compareParses(t, rf, []byte(data)) })
	}
	files := 0
	for _, root := range []string{"testdata", filepath.Join("..", "testdata"), filepath.Join("..", "..", "..", "examples")} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "hostile" {
				return filepath.SkipDir // an alias bomb, for the render's bounds
			}
			if d.IsDir() || (filepath.Ext(path) != ".yaml" && filepath.Ext(path) != ".yml") {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return nil // a fixture that cannot be read (a named pipe is made by its test)
			}
			files++
			t.Run(path, func(t *testing.T) { compareParses(t, rf, data) })
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 100 {
		t.Errorf("compared %d fixture files: the fixtures moved?", files)
	}
}

// compareParses requires parseResources and kustomize's parse of data to
// agree.
func compareParses(t *testing.T, rf *resource.Factory, data []byte) {
	t.Helper()
	want, wantErr := rf.SliceFromBytes(data)
	got, gotErr := parseResources(rf, data)
	if (wantErr != nil) != (gotErr != nil) {
		t.Fatalf("error %v, kustomize's %v", gotErr, wantErr)
	}
	if len(got) != len(want) {
		t.Fatalf("%d resources, kustomize's %d", len(got), len(want))
	}
	for i := range want {
		if g, w := got[i].MustString(), want[i].MustString(); g != w {
			t.Errorf("resource %d:\n%s\nkustomize's:\n%s", i, g, w)
		}
		if g, w := got[i].CurId(), want[i].CurId(); g != w {
			t.Errorf("resource %d: ID %v, kustomize's %v", i, g, w)
		}
	}
}

// wideMapping is a mapping of n keys (indented for data:), one of them
// written twice when repeat is set.
func wideMapping(n int, repeat bool) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("  k" + strings.Repeat("x", i) + ": v\n")
	}
	if repeat {
		b.WriteString("  kxxx: again\n")
	}
	return b.String()
}
