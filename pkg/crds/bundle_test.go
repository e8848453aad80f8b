package crds

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLoadBundle(t *testing.T) {
	b, err := LoadBundle("testdata/bundle")
	if err != nil {
		t.Fatalf("LoadBundle: %v", err)
	}
	var names []string
	for _, e := range b.All() {
		names = append(names, e.CRD.Name)
	}
	want := []string{
		"datasources.cdi.kubevirt.io",
		"datavolumes.cdi.kubevirt.io",
		"servicemonitors.monitoring.coreos.com",
		"storageprofiles.cdi.kubevirt.io",
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("All() names = %q, want %q", names, want)
	}
	if b.Len() != len(want) {
		t.Errorf("Len() = %d, want %d", b.Len(), len(want))
	}

	lookups := []struct {
		group, kind, wantName, wantFile string
		wantDoc                         int
	}{
		{"cdi.kubevirt.io", "StorageProfile", "storageprofiles.cdi.kubevirt.io", "testdata/bundle/cdi/storageprofiles.yaml", 1},
		{"cdi.kubevirt.io", "DataSource", "datasources.cdi.kubevirt.io", "testdata/bundle/cdi/datavolumes.yml", 2},
		{"monitoring.coreos.com", "ServiceMonitor", "servicemonitors.monitoring.coreos.com", "testdata/bundle/servicemonitors.json", 1},
	}
	for _, l := range lookups {
		crd, file, ok := b.Lookup(l.group, l.kind)
		if !ok || crd.Name != l.wantName || file != l.wantFile {
			t.Errorf("Lookup(%s, %s) = %v, %q, %v; want %s, %q", l.group, l.kind, crd != nil, file, ok, l.wantName, l.wantFile)
		}
		for _, e := range b.LookupKind(l.kind) {
			if e.Document != l.wantDoc {
				t.Errorf("%s: document = %d, want %d", l.kind, e.Document, l.wantDoc)
			}
		}
	}
	if _, _, ok := b.Lookup("cdi.kubevirt.io", "CDI"); ok {
		t.Errorf("Lookup(CDI) found a CRD the bundle does not hold")
	}
	if _, _, ok := b.Lookup("example.com", "StorageProfile"); ok {
		t.Errorf("Lookup matched a kind in another group")
	}
}

func TestLoadBundleErrors(t *testing.T) {
	tests := []struct {
		dir  string
		want []string
	}{
		{
			dir:  "testdata/bad-bundles/non-crd",
			want: []string{"testdata/bad-bundles/non-crd/cdi.yaml: document 2: kind ConfigMap is not an apiextensions.k8s.io/v1 CustomResourceDefinition; remove it from the CRD bundle"},
		},
		{
			dir: "testdata/bad-bundles/duplicate",
			want: []string{"testdata/bad-bundles/duplicate/b/sp.yaml: document 1: StorageProfile.cdi.kubevirt.io is also defined in " +
				"testdata/bad-bundles/duplicate/a/sp.yaml (document 1); keep one of them in the CRD bundle"},
		},
		{
			dir: "testdata/bad-bundles/malformed",
			want: []string{
				`testdata/bad-bundles/malformed/crds.yaml: document 1: malformed CustomResourceDefinition "storageprofile.cdi.kubevirt.io": ` +
					"metadata.name must be storageprofiles.cdi.kubevirt.io, spec.versions is empty",
				`testdata/bad-bundles/malformed/crds.yaml: document 2: malformed CustomResourceDefinition: error unmarshaling JSON: while decoding JSON: json: unknown field "version"`,
			},
		},
		{
			dir:  "testdata/no-such-dir",
			want: []string{"crd bundle testdata/no-such-dir: stat testdata/no-such-dir: no such file or directory"},
		},
		{
			dir:  "testdata/bundle/servicemonitors.json",
			want: []string{"crd bundle testdata/bundle/servicemonitors.json: not a directory"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			b, err := LoadBundle(tt.dir)
			if err == nil {
				t.Fatalf("LoadBundle(%s) = %d CRDs, want an error", tt.dir, b.Len())
			}
			if b != nil {
				t.Errorf("LoadBundle returned a bundle along with an error")
			}
			if got := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("error lines =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

const validCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
`

func TestDecodeBundleFile(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		wantN   int
		wantErr string
	}{
		{name: "one", data: validCRD, wantN: 1},
		{name: "leading separator and comments", data: "# header\n---\n" + validCRD + "---\n# trailing\n", wantN: 1},
		{name: "empty file", data: "", wantN: 0},
		{name: "only null", data: "---\nnull\n---\n~\n", wantN: 0},
		{name: "json", data: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","names":{"kind":"Widget","plural":"widgets"},"scope":"Cluster","versions":[{"name":"v1","served":true,"storage":true}]}}`, wantN: 1},
		{name: "v1beta1 CRD", data: strings.Replace(validCRD, "apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1", 1),
			wantErr: "f.yaml: document 1: apiVersion apiextensions.k8s.io/v1beta1 is not an apiextensions.k8s.io/v1 CustomResourceDefinition; remove it from the CRD bundle"},
		{name: "no kind", data: "foo: bar\n", wantErr: "f.yaml: document 1: a document without a kind is not an apiextensions.k8s.io/v1 CustomResourceDefinition"},
		{name: "scalar", data: "just a string\n", wantErr: "f.yaml: document 1: not an object"},
		{name: "bad yaml", data: validCRD + "---\nkind: [\n", wantN: 1, wantErr: "f.yaml: document 2: invalid YAML"},
		{name: "missing group", data: strings.Replace(validCRD, "group: example.com", "group: \"\"", 1),
			wantErr: `f.yaml: document 1: malformed CustomResourceDefinition "widgets.example.com": spec.group is empty`},
		{name: "missing kind and plural", data: strings.Replace(validCRD, "{kind: Widget, plural: widgets}", "{}", 1),
			wantErr: "spec.names.kind is empty, spec.names.plural is empty"},
		{name: "bad scope", data: strings.Replace(validCRD, "Namespaced", "Global", 1), wantErr: "spec.scope must be Namespaced or Cluster"},
		{name: "two storage versions", data: strings.Replace(validCRD, "  - {name: v1,", "  - {name: v2, served: true, storage: true}\n  - {name: v1,", 1),
			wantErr: "exactly one version must be the storage version, found 2"},
		{name: "duplicate version", data: strings.Replace(validCRD, "  - {name: v1,", "  - {name: v1, served: true, storage: false}\n  - {name: v1,", 1),
			wantErr: "spec.versions[1].name v1 is duplicated"},
		{name: "duplicate field", data: validCRD + "kind: CustomResourceDefinition\n", wantErr: "malformed CustomResourceDefinition"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeBundleFile("f.yaml", []byte(tt.data))
			if len(got) != tt.wantN {
				t.Errorf("decoded %d CRDs, want %d", len(got), tt.wantN)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestLoadBundleReportsEveryBadFile(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"a.yaml":        "apiVersion: v1\nkind: Secret\n",
		"sub/b.yaml":    validCRD + "---\napiVersion: v1\nkind: Namespace\n",
		"sub/ok.yaml":   strings.ReplaceAll(validCRD, "idget", "heel"),
		"notes.txt":     "kind: Secret",
		".hidden/x.yml": "kind: Secret",
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := LoadBundle(dir)
	if err == nil {
		t.Fatal("LoadBundle accepted a bundle holding a Secret and a Namespace")
	}
	want := []string{
		filepath.Join(dir, "a.yaml") + ": document 1: kind Secret is not an apiextensions.k8s.io/v1 CustomResourceDefinition; remove it from the CRD bundle",
		filepath.Join(dir, "sub/b.yaml") + ": document 2: kind Namespace is not an apiextensions.k8s.io/v1 CustomResourceDefinition; remove it from the CRD bundle",
	}
	if got := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(got, want) {
		t.Errorf("error lines =\n%q\nwant\n%q", got, want)
	}
}

func TestNewBundleDuplicateName(t *testing.T) {
	a, err := DecodeBundleFile("a.yaml", []byte(validCRD))
	if err != nil {
		t.Fatal(err)
	}
	// Same name, another kind: the API server would hold only one of them.
	b, err := DecodeBundleFile("b.yaml", []byte(strings.Replace(validCRD, "kind: Widget", "kind: Gizmo", 1)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewBundle(append(a, b...))
	want := "b.yaml: document 1: CustomResourceDefinition widgets.example.com is also defined in a.yaml (document 1); keep one of them in the CRD bundle"
	if err == nil || err.Error() != want {
		t.Errorf("NewBundle() error = %v, want %q", err, want)
	}
}

func FuzzLoadBundle(f *testing.F) {
	for _, path := range []string{
		"testdata/bundle/cdi/storageprofiles.yaml",
		"testdata/bundle/cdi/datavolumes.yml",
		"testdata/bundle/servicemonitors.json",
		"testdata/bad-bundles/non-crd/cdi.yaml",
		"testdata/bad-bundles/malformed/crds.yaml",
		"testdata/hostile/alias-bomb.yaml",
	} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := DecodeBundleFile("fuzz.yaml", data)
		for _, e := range entries {
			if e.CRD == nil || e.CRD.Spec.Group == "" || e.CRD.Spec.Names.Kind == "" ||
				e.CRD.Name != e.CRD.Spec.Names.Plural+"."+e.CRD.Spec.Group || len(e.CRD.Spec.Versions) == 0 {
				t.Fatalf("accepted a malformed CRD: %+v", e.CRD)
			}
		}
		if err != nil && !strings.HasPrefix(err.Error(), "fuzz.yaml: document ") {
			t.Fatalf("error does not name the file and document: %v", err)
		}
		if _, err := NewBundle(entries); err != nil && len(entries) < 2 {
			t.Fatalf("NewBundle rejected %d entries: %v", len(entries), err)
		}
	})
}
