package render

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubestandup/standup/internal/ciskip"
	"github.com/kubestandup/standup/internal/input"
	"github.com/kubestandup/standup/pkg/render/internal/rendertest"
)

// maxHeap is the heap a load of a small repository with one hostile file
// may reach. Expanding the alias bomb would take 24 GB.
const maxHeap = 300 << 20

// hostileRepo lays out a repository whose cluster applies two
// Kustomizations, good and bad, each building its own directory, and
// returns its root. files add to or replace the defaults; a value made by
// mkfifo or oversize is a special file.
func hostileRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	ks := func(name string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: " + name + ", namespace: flux-system}\n" +
			"spec: {interval: 10m, path: ./apps/" + name + ", prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n"
	}
	tree := map[string]string{
		"standup.yaml":          "",
		"clusters/c/good.yaml":  ks("good"),
		"clusters/c/bad.yaml":   ks("bad"),
		"apps/good/config.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good, namespace: apps}\ndata: {k: v}\n",
		"apps/bad/config.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad, namespace: apps}\ndata: {k: v}\n",
	}
	special := map[string]string{}
	for name, content := range files {
		if content == mkfifo || content == oversize {
			special[name] = content
			continue
		}
		tree[name] = content
	}
	rendertest.WriteFiles(t, root, tree)
	for name, kind := range special {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if kind == oversize {
			pad := bytes.Repeat([]byte("# padding\n"), input.MaxFileSize/10+1)
			if err := os.WriteFile(path, pad, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			ciskip.Skipf(t, "mkfifo: %v", err)
		}
	}
	return root
}

// Markers for hostileRepo's special files.
const (
	mkfifo   = "\x00fifo"
	oversize = "\x00oversize"
)

// bomb is the nine-level alias bomb.
func bomb(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "hostile", "alias-bomb.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// loadGuarded loads path of root and fails the test, rather than hang or
// exhaust the machine, when the load takes over a minute or its heap passes
// maxHeap. It returns the peak heap seen.
func loadGuarded(t *testing.T, root, path string) (*Result, error, uint64) {
	t.Helper()
	type result struct {
		res *Result
		err error
	}
	runtime.GC()
	done := make(chan result, 1)
	go func() {
		res, err := Load(context.Background(), Options{Path: filepath.Join(root, path), RepoRoot: root})
		done <- result{res, err}
	}()
	var peak uint64
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(time.Minute)
	for {
		select {
		case r := <-done:
			return r.res, r.err, peak
		case <-tick.C:
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			if ms.HeapAlloc > maxHeap {
				// The load cannot be stopped: end the process before it
				// takes the machine with it.
				panic(fmt.Sprintf("%s: heap at %d MiB, over %d MiB: the input was not bounded", t.Name(), ms.HeapAlloc>>20, maxHeap>>20))
			}
		case <-deadline:
			t.Fatalf("Load still running after a minute: a read blocked or the input was not bounded")
		}
	}
}

// kustomizationOf returns a kustomization file listing resources.
func kustomizationOf(resources ...string) string {
	return "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [" + strings.Join(resources, ", ") + "]\n"
}

// hostileCase is a case of TestLoadBoundsHostileInput.
type hostileCase struct {
	name  string
	files func(t *testing.T) map[string]string
	// file is the file refused; want a part of the reason.
	file, want string
}

// hostileCases are repositories of hostile files, each with the file a
// render must refuse and why.
var hostileCases = []hostileCase{{
	name:  "alias bomb scanned by Flux's generator",
	files: func(t *testing.T) map[string]string { return map[string]string{"apps/bad/bomb.yaml": bomb(t)} },
	file:  "apps/bad/bomb.yaml", want: "YAML aliases expand the file by more than 100000 nodes",
}, {
	name: "alias bomb listed in kustomization.yaml",
	files: func(t *testing.T) map[string]string {
		return map[string]string{"apps/bad/kustomization.yaml": kustomizationOf("config.yaml", "bomb.json"), "apps/bad/bomb.json": bomb(t)}
	},
	file: "apps/bad/bomb.json", want: "YAML aliases expand",
}, {
	name: "alias bomb in a base",
	files: func(t *testing.T) map[string]string {
		return map[string]string{
			"apps/bad/kustomization.yaml":  kustomizationOf("../base"),
			"apps/base/kustomization.yaml": kustomizationOf("bomb.yaml"),
			"apps/base/bomb.yaml":          bomb(t),
		}
	},
	file: "apps/base/bomb.yaml", want: "YAML aliases expand",
}, {
	name: "alias bomb as a patch",
	files: func(t *testing.T) map[string]string {
		return map[string]string{
			"apps/bad/kustomization.yaml": kustomizationOf("config.yaml") + "patches: [{path: patch.yaml}]\n",
			"apps/bad/patch.yaml":         bomb(t),
		}
	},
	file: "apps/bad/patch.yaml", want: "YAML aliases expand",
}, {
	name: "alias bomb as the kustomization file",
	files: func(t *testing.T) map[string]string {
		return map[string]string{"apps/bad/kustomization.yaml": kustomizationOf("config.yaml") + "bomb:\n" + strings.SplitN(bomb(t), "data:\n", 2)[1]}
	},
	file: "apps/bad/kustomization.yaml", want: "YAML aliases expand",
}, {
	name:  "named pipe scanned by Flux's generator",
	files: func(*testing.T) map[string]string { return map[string]string{"apps/bad/x.yaml": mkfifo} },
	file:  "apps/bad/x.yaml", want: "not a regular file (a named pipe",
}, {
	name: "named pipe listed in kustomization.yaml",
	files: func(*testing.T) map[string]string {
		return map[string]string{"apps/bad/kustomization.yaml": kustomizationOf("config.yaml", "x.yaml"), "apps/bad/x.yaml": mkfifo}
	},
	file: "apps/bad/x.yaml", want: "not a regular file (a named pipe",
}, {
	name: "named pipe as a generator's file",
	files: func(*testing.T) map[string]string {
		return map[string]string{
			"apps/bad/kustomization.yaml": kustomizationOf("config.yaml") + "configMapGenerator: [{name: gen, files: [data.txt]}]\n",
			"apps/bad/data.txt":           mkfifo,
		}
	},
	file: "apps/bad/data.txt", want: "not a regular file (a named pipe",
}, {
	name:  "named pipe as the kustomization file",
	files: func(*testing.T) map[string]string { return map[string]string{"apps/bad/kustomization.yaml": mkfifo} },
	file:  "apps/bad/kustomization.yaml", want: "not a regular file (a named pipe",
}, {
	name:  "file over the size limit",
	files: func(*testing.T) map[string]string { return map[string]string{"apps/bad/big.yaml": oversize} },
	file:  "apps/bad/big.yaml", want: "larger than the 16 MiB limit",
}, {
	name: "deep nesting",
	files: func(*testing.T) map[string]string {
		return map[string]string{"apps/bad/deep.yaml": "a: " + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + "\n"}
	},
	file: "apps/bad/deep.yaml", want: "nested deeper than 1000 levels",
}}

func TestLoadBoundsHostileInput(t *testing.T) {
	for _, tt := range hostileCases {
		t.Run(tt.name, func(t *testing.T) { assertBadFailsAlone(t, tt.files(t), tt.file, tt.want) })
	}
	// The node-dense file is TestLoadBoundsNodeDenseInput's.
}

// assertBadFailsAlone loads a hostileRepo of files and checks that its bad
// Kustomization fails alone, naming file and a reason that holds want,
// while the good one renders.
func assertBadFailsAlone(t *testing.T, files map[string]string, file, want string) {
	t.Helper()
	root := hostileRepo(t, files)
	res, err, peak := loadGuarded(t, root, "clusters/c")
	if err != nil {
		t.Fatalf("Load = %v, want the good Kustomization rendered and the bad one failed", err)
	}
	if got := rendered(res, ksID("flux-system", "good")); len(got) != 1 {
		t.Errorf("good Kustomization rendered %q, want its ConfigMap", got)
	}
	if _, ok := res.Rendered[ksID("flux-system", "bad")]; ok {
		t.Error("the bad Kustomization has a Rendered entry")
	}
	if len(res.Failed) != 1 {
		t.Fatalf("Failed = %v, want one failure", res.Failed)
	}
	f := res.Failed[0]
	msg := f.Error()
	if f.ID != ksID("flux-system", "bad") || f.File != file || !strings.Contains(msg, want) ||
		!strings.HasPrefix(msg, "Kustomization/flux-system/bad not rendered: "+file+": ") || strings.Contains(msg, root) {
		t.Errorf("failure %q (file %s), want Kustomization/flux-system/bad not rendered: %s: ...%s...", msg, f.File, file, want)
	}
	objectByID(t, res, ksID("flux-system", "bad")) // still a node of the graph
	t.Logf("peak heap %d MiB", peak>>20)
}

// The build of Path itself reading a refused file fails the load, with an
// error naming the file; so does a .sourceignore that is a named pipe.
func TestLoadRefusesHostileRootFiles(t *testing.T) {
	tests := []struct {
		name  string
		files func(t *testing.T) map[string]string
		want  string
	}{{
		name:  "alias bomb at Path",
		files: func(t *testing.T) map[string]string { return map[string]string{"clusters/c/bomb.yaml": bomb(t)} },
		want:  "path clusters/c: clusters/c/bomb.yaml: document 1: YAML aliases expand",
	}, {
		name:  "named pipe at Path",
		files: func(*testing.T) map[string]string { return map[string]string{"clusters/c/x.yml": mkfifo} },
		want:  "path clusters/c: clusters/c/x.yml: not a regular file (a named pipe",
	}, {
		name:  "named pipe as .sourceignore",
		files: func(*testing.T) map[string]string { return map[string]string{"apps/good/.sourceignore": mkfifo} },
		want:  "apps/good/.sourceignore: not a regular file (a named pipe",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := hostileRepo(t, tt.files(t))
			_, err, _ := loadGuarded(t, root, "clusters/c")
			if _, ok := input.IsLimit(err); !ok || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("Load = %v, want a *input.LimitError: %s...", err, tt.want)
			}
		})
	}
}

// A hostile file that the repository's .sourceignore leaves out is never
// read, as source-controller never puts it in the artifact.
func TestLoadIgnoresIgnoredHostileFiles(t *testing.T) {
	root := hostileRepo(t, map[string]string{
		".sourceignore":          "apps/bad/x.yaml\napps/bad/bomb.yaml\n",
		"apps/bad/x.yaml":        mkfifo,
		"apps/bad/bomb.yaml":     bomb(t),
		"apps/good/anchors.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: anchored, namespace: apps, labels: &l {a: b}, annotations: *l}\n",
	})
	res, err, _ := loadGuarded(t, root, "clusters/c")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) != 0 || len(res.Rendered[ksID("flux-system", "bad")]) != 1 || len(res.Rendered[ksID("flux-system", "good")]) != 2 {
		t.Fatalf("Failed %v, rendered bad %q, good %q; want nothing failed, 1 and 2 objects",
			res.Failed, rendered(res, ksID("flux-system", "bad")), rendered(res, ksID("flux-system", "good")))
	}
}
