package kbuild

import (
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/kustomize/api/resource"
	kustypes "sigs.k8s.io/kustomize/api/types"
	sigsyaml "sigs.k8s.io/yaml"
)

// placeCase is a case of TestPlacedMatchesOrigin.
type placeCase struct {
	dir    string
	traced bool
}

// placeCases are the directories of testdata/place, and whether
// placeBuild must trace each.
var placeCases = []placeCase{
	{"plain", true},     // "app" and "app-config": without a prefix, names are compared whole
	{"prefix", true},    // one base under two prefixes: both copies come from its file
	{"generator", true}, // generated objects come from the kustomization file
	{"namespace", true}, // kustomize names the Namespace "_" after the namespace it sets
	// Only the Namespace under the namespace is named after it.
	{"namespace-scoped", true},
	{"configurations", true}, // a configuration that adds a name reference renames nothing
	// A configuration that has kustomize write the namespace as a
	// ConfigMap's name, on one copy of a base under two kustomization
	// files: every document is still traced, but not that copy.
	{"configuration-twice", false},
	{"patchfile", true},     // a patch file holds the ID of the object it patches, and is no resource
	{"components", true},    // a component's resources
	{"groups", true},        // two kinds of one name, told apart by group
	{"namespaces", true},    // one kind and name in two namespaces, and in none
	{"ambiguous", false},    // under a prefix, "x-app-config" holds both "app" and "app-config"
	{"replace-name", false}, // a replacement may write metadata.name
	{"replace-field", true}, // a replacement that writes data only
	// One base under two prefixes, one copy renamed by a replacement to
	// "zzz-other", which holds the name of another document: every
	// document is still traced, but not the renamed copy's.
	{"replace-twice", false},
	{"replace-twice-inline", false}, // the same, the replacement written in the kustomization file
	{"deleted", false},              // a document a patch deletes is traced by no object
	{"list", false},                 // a List's items are no document of the file
	{"json-rename", false},          // a JSON patch renames "old" to a name another document holds
	{"symlink", false},              // kustomize reads a linked directory at its resolved path
}

// TestPlacedMatchesOrigin builds each directory of testdata/place twice:
// with kustomize's origin annotations, and without them, traced by
// placeBuild. Where placeBuild traces a build, every object must be placed
// in the file and at the line that kustomize's annotation gives; where it
// must not (an object that two documents could have made, a rename it cannot
// follow, a document kustomize dropped), it must give up, so that the build
// is made again with the annotations.
func TestPlacedMatchesOrigin(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("testdata", "place"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	v := checkoutView{b}
	for _, tt := range placeCases {
		t.Run(tt.dir, func(t *testing.T) {
			dir := filepath.Join(root, tt.dir)
			kfile := filepath.Join(dir, "kustomization.yaml")
			plain, err := os.ReadFile(kfile)
			if err != nil {
				t.Fatal(err)
			}
			want := originPlaces(t, b, dir, kfile, plain)

			fs, rs := buildPlain(t, b, dir, kfile, plain)
			placed, ok := b.placeBuild(v, fs, dir, rs)
			if ok != tt.traced {
				t.Fatalf("placeBuild traced the build: %v, want %v", ok, tt.traced)
			}
			if !ok {
				return
			}
			if len(rs) != len(want) {
				t.Fatalf("%d objects without origin annotations, %d with", len(rs), len(want))
			}
			for _, r := range rs {
				file, line := b.placeOf(v, dir, placed[r], r)
				if got := [2]any{file, line}; got != want[r.CurId().String()] {
					t.Errorf("%s: placed at %v, kustomize's origin says %v", r.CurId(), got, want[r.CurId().String()])
				}
			}
		})
	}
}

// buildPlain runs kustomize on dir with data as its kustomization file,
// and returns the file system it read and the objects.
func buildPlain(t *testing.T, b *Builder, dir, kfile string, data []byte) (*recordingFS, []*resource.Resource) {
	t.Helper()
	fs := &recordingFS{FileSystem: newOverlayFS(b.disk), name: b.Rel, kfiles: &b.kfiles}
	if err := fs.WriteFile(kfile, data); err != nil {
		t.Fatal(err)
	}
	m, _, err := runKustomize(fs, dir, sharedBuild, false)
	if err != nil {
		t.Fatal(err)
	}
	return fs, m.Resources()
}

func TestReplacesName(t *testing.T) {
	tests := []struct {
		fieldPath string
		want      bool
	}{
		{"metadata.name", true},
		{"kind", true},
		{"metadata", true},
		{"metadata.*", true},
		{"*.name", true},
		{"[metadata].name", true},
		{"metadata.namespace", false},
		{"metadata.labels.app", false},
		{"spec.targetNamespace", false},
		{"data.name", false},
	}
	for _, tt := range tests {
		r := kustypes.Replacement{Targets: []*kustypes.TargetSelector{nil, {FieldPaths: []string{"spec.x", tt.fieldPath}}}}
		if got := replacesName(r); got != tt.want {
			t.Errorf("replacesName(fieldPaths [spec.x %s]) = %v, want %v", tt.fieldPath, got, tt.want)
		}
	}
}

// originPlaces builds dir with kustomize's origin annotations added to its
// kustomization file plain, and returns where they place each object (file
// and line, by object ID).
func originPlaces(t *testing.T, b *Builder, dir, kfile string, plain []byte) map[string][2]any {
	t.Helper()
	v := checkoutView{b}
	var kus kustypes.Kustomization
	if err := sigsyaml.Unmarshal(plain, &kus); err != nil {
		t.Fatal(err)
	}
	kus.BuildMetadata = append(kus.BuildMetadata, kustypes.OriginAnnotations)
	withOrigin, err := sigsyaml.Marshal(kus)
	if err != nil {
		t.Fatal(err)
	}
	_, origin := buildPlain(t, b, dir, kfile, withOrigin)
	want := map[string][2]any{}
	for _, r := range origin {
		o, err := r.GetOrigin()
		if err != nil || o == nil {
			t.Fatalf("%s: no origin annotation (%v)", r.CurId(), err)
		}
		file, line := b.placeOf(v, dir, o, r)
		if file == "" {
			t.Fatalf("%s: kustomize's origin names no file", r.CurId())
		}
		want[r.CurId().String()] = [2]any{file, line}
	}
	return want
}
