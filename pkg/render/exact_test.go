package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
)

// exactCase is a repository rendered both with the render's shortcuts and
// without them (load's exact).
type exactCase struct{ name, root, path string }

// exactCases are the fixtures and the examples; the corpus repositories
// are TestShortcutsMatchExactRenderOnTheCorpus's.
func exactCases(t *testing.T) []exactCase {
	t.Helper()
	cases := []exactCase{
		{"flux2-example", filepath.Join("testdata", "flux2-example"), "clusters/production"},
		{"cluster-apps", filepath.Join("testdata", "cluster-apps"), "kubernetes/flux/cluster"},
		{"features", filepath.Join("testdata", "features"), "clusters/test"},
		{"cycle", filepath.Join("testdata", "cycle"), "clusters/c"},
		{"lines", filepath.Join("testdata", "lines"), "clusters/prod"},
		{"artifact-generator", filepath.Join("testdata", "artifact-generator"), "clusters/prod"},
		{"split", filepath.Join("kbuild", "testdata", "split"), "clusters/s"},
	}
	failing, err := os.ReadDir(filepath.Join("testdata", "fails-alone"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range failing {
		cases = append(cases, exactCase{"fails-alone/" + f.Name(), filepath.Join("testdata", "fails-alone", f.Name()), "clusters/c"})
	}
	for _, ex := range []string{"helm", "homelab", "homelab-deadlock"} {
		root := filepath.Join("..", "..", "examples", ex)
		envs, err := os.ReadDir(filepath.Join(root, "clusters"))
		if err != nil {
			t.Fatal(err)
		}
		for _, env := range envs {
			cases = append(cases, exactCase{"examples/" + ex + "/" + env.Name(), root, "clusters/" + env.Name()})
		}
	}
	return cases
}

// TestShortcutsMatchExactRender renders each repository twice, with the
// render's shortcuts (postBuild substitution skipped for an object it
// would give back unchanged, directories built without kustomize) and
// with Flux's and kustomize's own code throughout, and requires the same
// result: every object (compared value for value, types included), file,
// line, warning and failure.
func TestShortcutsMatchExactRender(t *testing.T) {
	cases := exactCases(t)
	floats := t.TempDir()
	rendertest.WriteFiles(t, floats, map[string]string{
		"standup.yaml": "",
		"clusters/c/app.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: app, namespace: flux-system}
spec:
  interval: 10m
  path: ./app
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild: {substitute: {DOMAIN: example.org}}
`,
		// Objects without a variable, whose substitution is skipped: numbers
		// of every form (1.0, 1e3, a number over int64), strings that look
		// like other types; and one with a variable.
		"app/objects.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: plain, namespace: app, labels: {on: "yes", "null": "~"}}
data: {a: "1.0", b: "true", c: "", d: "0x1F", e: "2026-12-02", f: " padded ", g: "line\nbreak", h: "<<"}
---
apiVersion: example.org/v1
kind: Gauge
metadata: {name: floats, namespace: app}
spec: {ratio: 1.0, big: 1e3, huge: 123456789012345678901234567890, half: 0.5, n: null, list: [1, 2.5, "3"]}
---
apiVersion: example.org/v1
kind: Gauge
metadata: {name: whole, namespace: app}
spec: {count: 3, neg: -7, max: 9223372036854775807, empty: {}, none: [], n: null}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: variable, namespace: app}
data: {url: "https://${DOMAIN}", cost: "$$5"}
---
apiVersion: example.org/v1
kind: Gauge
metadata: {name: numbers-and-a-variable, namespace: app, annotations: {host: "${DOMAIN}"}}
spec: {ratio: 1.0, big: 1e3, u64: 12345678901234567890, huge: 123456789012345678901234567890, half: 0.5, tiny: 1e-7,
  neg: -7, max: 9223372036854775807, min: -9223372036854775808, n: null, t: true, s: "007", e: "", nul: "a\u0000b",
  uni: "caf\u00e9 \u2028 <&>", list: [1, 2.5, "3", null, [], {}]}
---
apiVersion: v1
kind: Service
metadata: {name: port, namespace: app}
spec:
  ports:
    - port: ${PORT:=8080}
`,
	})
	cases = append(cases, exactCase{"numbers", floats, "clusters/c"})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fast := compareShortcuts(t, c)
			if c.name == "numbers" {
				// The case must render, and substitute: else it compares nothing.
				if objs := fast.Rendered[ksID("flux-system", "app")]; len(fast.Failed) != 0 || len(objs) != 6 {
					t.Fatalf("failed %v, %d objects rendered; want the 6 objects of app/objects.yaml", fast.Failed, len(objs))
				}
			}
		})
	}
}

// compareShortcuts renders c with the shortcuts and without them, reports
// every difference, and returns the render with the shortcuts.
func compareShortcuts(t *testing.T, c exactCase) *Result {
	t.Helper()
	opts := Options{Path: filepath.Join(c.root, c.path), RepoRoot: c.root, Kinds: []string{KindKustomization, KindHelmRelease}}
	fast, fastErr := load(context.Background(), opts, false)
	exact, exactErr := load(context.Background(), opts, true)
	if fastErr != nil || exactErr != nil {
		t.Fatalf("error %v, exact render's %v", fastErr, exactErr)
	}
	compareResults(t, fast, exact)
	return fast
}

// compareResults reports every difference between two renders of one
// repository.
func compareResults(t *testing.T, got, want *Result) {
	t.Helper()
	if len(got.Rendered) != len(want.Rendered) {
		t.Errorf("%d Kustomizations rendered, exact render %d", len(got.Rendered), len(want.Rendered))
	}
	for id, w := range want.Rendered {
		g := got.Rendered[id]
		if len(g) != len(w) {
			t.Errorf("%s: %d objects, exact render %d", id, len(g), len(w))
			continue
		}
		for i := range w {
			if g[i].File != w[i].File || g[i].Line != w[i].Line || !reflect.DeepEqual(g[i].Object.Object, w[i].Object.Object) {
				t.Errorf("%s: object %d differs:\n%s:%d %#v\nexact render:\n%s:%d %#v", id, i,
					g[i].File, g[i].Line, g[i].Object.Object, w[i].File, w[i].Line, w[i].Object.Object)
			}
		}
	}
	if !reflect.DeepEqual(got.Objects, want.Objects) {
		t.Errorf("objects differ:\n%s\nexact render:\n%s", ids(got.Objects), ids(want.Objects))
	}
	if !reflect.DeepEqual(got.Warnings, want.Warnings) {
		t.Errorf("warnings differ:\n%q\nexact render:\n%q", got.Warnings, want.Warnings)
	}
	if fmt.Sprint(got.Failed) != fmt.Sprint(want.Failed) {
		t.Errorf("failures differ:\n%v\nexact render:\n%v", got.Failed, want.Failed)
	}
}
