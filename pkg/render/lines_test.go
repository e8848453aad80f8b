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
