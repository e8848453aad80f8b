package render

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// TestLoadKeepsEachObjectsLine: every rendered object carries the line of
// its file where its document starts, as code-scanning annotations need:
// in files of several documents (two objects of one kind and name told
// apart by namespace, a name written with a variable, separators with
// comments), past leading comments, in JSON documents, through namePrefix,
// and for generated objects at their generator's entry.
func TestLoadKeepsEachObjectsLine(t *testing.T) {
	res, err := Load(context.Background(), Options{Path: "testdata/lines/clusters/prod"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range res.Rendered[ksID("flux-system", "apps")] {
		name := m.Object.GetName()
		if i := strings.LastIndex(name, "-"); m.Object.GetKind() != "ServiceAccount" && strings.Contains(m.File, "kustomization.yaml") && i > 0 {
			name = name[:i] // the generator's hash
		}
		got[m.Object.GetKind()+"/"+m.Object.GetNamespace()+"/"+name] = m.File + ":" + strconv.Itoa(m.Line)
	}
	want := map[string]string{
		"ServiceAccount/team-a/prod-web": "apps/base/app.yaml:2",
		"ServiceAccount/team-b/prod-web": "apps/base/app.yaml:10",
		"ConfigMap/team-a/prod-web-prod": "apps/base/app.yaml:18",
		"ConfigMap/team-a/prod-web":      "apps/base/app.yaml:26",
		"Namespace//team-a":              "apps/base/single.yaml:3",
		"Namespace//team-b":              "apps/base/flow.yaml:1",
		"Namespace//team-c":              "apps/base/flow.yaml:3",
		"ConfigMap//prod-settings":       "apps/prod/kustomization.yaml:7",
		"ConfigMap//prod-settings-extra": "apps/prod/kustomization.yaml:10",
		"Secret//prod-token":             "apps/prod/kustomization.yaml:14",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s at %q, want %q", k, got[k], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("rendered %v, want %d objects", got, len(want))
	}
	if def := res.Definitions[ksID("flux-system", "apps")]; def.File != "clusters/prod/apps.yaml" || def.Line != 3 {
		t.Errorf("the Kustomization's definition at %s:%d, want clusters/prod/apps.yaml:3", def.File, def.Line)
	}
}

func TestObjectLine(t *testing.T) {
	tests := []struct {
		name, file               string
		kind, namespace, objName string
		want                     int
	}{
		{name: "only document, whatever it says", file: "a: b\n", kind: "ConfigMap", objName: "x", want: 1},
		{name: "byte order mark and CRLF", file: "\xef\xbb\xbfkind: A\r\nmetadata:\r\n  name: x\r\n---\r\nkind: A\r\nmetadata:\r\n  name: y\r\n", kind: "A", objName: "y", want: 5},
		{name: "quoted values and comments", file: "kind: 'A' # the kind\nmetadata:\n  name: \"x\" # a name\n---\nkind: A\nmetadata:\n  name: xx\n", kind: "A", objName: "pre-x", want: 1},
		{name: "an anchor on the name", file: "kind: A\nmetadata:\n  name: &n x\n---\nkind: A\nmetadata:\n  name: &n y\n", kind: "A", objName: "y", want: 5},
		{name: "an alias for the name", file: "kind: A\nmetadata:\n  name: x\n---\nx: &n web\nkind: A\nmetadata:\n  name: *n\n", kind: "A", objName: "web", want: 5},
		{name: "the longest name wins", file: "kind: A\nmetadata:\n  name: x\n---\nkind: A\nmetadata:\n  name: xx\n", kind: "A", objName: "pre-xx", want: 5},
		{name: "nested name is not metadata.name", file: "kind: A\nmetadata:\n  labels:\n    name: y\n  name: x\n---\nkind: A\nmetadata:\n  name: z\n", kind: "A", objName: "y", want: 0},
		{name: "no document of the kind matches", file: "kind: A\nmetadata:\n  name: x\n---\nkind: A\nmetadata:\n  name: y\n", kind: "A", objName: "z", want: 0},
		{name: "document end marker is not a separator", file: "kind: A\nmetadata:\n  name: x\n---x\n---\nkind: B\nmetadata:\n  name: y\n", kind: "B", objName: "y", want: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := indexLines([]byte(tt.file)).objectLine(tt.kind, tt.namespace, tt.objName); got != tt.want {
				t.Errorf("line %d, want %d", got, tt.want)
			}
		})
	}
}
