package render

import (
	"io"
	"log"
	"os"
	"slices"
	"testing"

	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
)

// Kustomize's own warnings (deprecated fields, printed straight to
// os.Stderr) become render warnings naming the kustomization file, and
// nothing reaches the process's stderr, which -q must be able to silence.
func TestLoadTurnsKustomizeWarningsIntoWarnings(t *testing.T) {
	ks := "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: app, namespace: flux-system}\n" +
		"spec: {interval: 10m, path: ./app, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n"
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: default}\n"
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{
			name: "patchesStrategicMerge",
			files: map[string]string{
				"app/kustomization.yaml": "resources: [cm.yaml]\npatchesStrategicMerge: [patch.yaml]\n",
				"app/patch.yaml":         "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: default}\ndata: {a: b}\n",
			},
			want: []string{"app/kustomization.yaml: patchesStrategicMerge is deprecated (kustomize): use patches"},
		},
		{
			name: "bases and commonLabels in a base, listed once",
			files: map[string]string{
				"app/kustomization.yaml":      "bases: [base]\ncommonLabels: {a: b}\n",
				"app/base/kustomization.yaml": "resources: [../cm.yaml]\ncommonLabels: {c: d}\n",
			},
			want: []string{
				"app/base/kustomization.yaml: commonLabels is deprecated (kustomize): use labels",
				"app/kustomization.yaml: bases is deprecated (kustomize): use resources",
				"app/kustomization.yaml: commonLabels is deprecated (kustomize): use labels",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{"standup.yaml": "", "clusters/c/ks.yaml": ks, "app/cm.yaml": cm}
			for k, v := range tt.files {
				files[k] = v
			}
			rendertest.WriteFiles(t, root, files)
			var res *Result
			printed := stderrOf(t, func() { res = loadTree(t, root, "clusters/c") })
			if printed != "" {
				t.Errorf("stderr got %q, want nothing", printed)
			}
			if !slices.Equal(res.Warnings, tt.want) {
				t.Errorf("warnings %q\nwant %q", res.Warnings, tt.want)
			}
		})
	}
}

// stderrOf returns what fn writes to os.Stderr and the std logger. No render
// runs while it swaps them (the package's tests do not run in parallel),
// and a render's builds, started and waited for within fn, see the swap.
func stderrOf(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, logOut := os.Stderr, log.Writer()
	os.Stderr = w
	log.SetOutput(w)
	out := make(chan string)
	go func() {
		data, _ := io.ReadAll(r)
		out <- string(data)
	}()
	fn()
	os.Stderr = stderr
	log.SetOutput(logOut)
	_ = w.Close()
	return <-out
}
