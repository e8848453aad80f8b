package render

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/input"
	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
)

// FuzzRenderPrescan renders a tiny repository whose one Kustomization builds
// the fuzzed file, listed in a kustomization.yaml or, for inputs of odd
// length, found by Flux's generator. The load must not panic, hang or blow
// up, and the pre-scan decides alone whether the file is refused: a file
// input.CheckYAML refuses fails its Kustomization, naming the file, and no
// other file is ever refused. Whatever else the file breaks fails the
// Kustomization alone too: the load itself never fails.
func FuzzRenderPrescan(f *testing.F) {
	for _, name := range []string{"alias-bomb.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "hostile", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: apps, labels: &l {x: y}, annotations: *l}\ndata: {k: v}\n"))
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: apps}\ndata: &d {k: v, <<: {m: n}}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: apps}\nstringData: *d\n"))
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: apps}\ndata: {k: " + strings.Repeat("[", 1100) + strings.Repeat("]", 1100) + "}\n"))
	f.Add([]byte("a: &a [1, *a]\n"))
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d, namespace: apps}\ndata: {url: \"https://${DOMAIN}/${UNDEF}\", esc: $${KEEP}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		// Not t.TempDir: its name holds the "#" of "seed#0", which
		// kustomize's in-memory file system refuses in a directory name.
		root, err := os.MkdirTemp("", "render-fuzz")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(root) })
		files := map[string]string{
			"standup.yaml": "",
			"clusters/c/app.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: app, namespace: flux-system}\n" +
				"spec: {interval: 10m, path: ./app, prune: true, sourceRef: {kind: GitRepository, name: flux-system}, postBuild: {substitute: {DOMAIN: example.org}}}\n",
			"app/fuzzed.yaml": string(data),
		}
		if len(data)%2 == 0 {
			files["app/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [fuzzed.yaml]\n"
		}
		rendertest.WriteFiles(t, root, files)
		res, err := Load(context.Background(), Options{Path: filepath.Join(root, "clusters", "c"), RepoRoot: root})
		refused := input.CheckYAML("app/fuzzed.yaml", data) != nil
		if _, ok := input.IsLimit(err); ok {
			t.Fatalf("Load failed with a limit error for the whole repository: %v", err)
		}
		if err != nil {
			t.Fatalf("Load = %v; want what the file breaks to fail its Kustomization alone", err)
		}
		limits := 0
		for _, f := range res.Failed {
			if _, ok := input.IsLimit(f.Err); ok {
				limits++
			}
		}
		if refused != (limits == 1) || len(res.Failed) > 1 {
			t.Fatalf("pre-scan refuses the file: %v; Failed = %v", refused, res.Failed)
		}
		if refused && (res.Failed[0].File != "app/fuzzed.yaml" || strings.Contains(res.Failed[0].Error(), "\n")) {
			t.Fatalf("failure %q names %s, want one line naming app/fuzzed.yaml", res.Failed[0], res.Failed[0].File)
		}
	})
}
