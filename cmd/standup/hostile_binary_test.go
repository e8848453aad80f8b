package main

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostileInputToTheRealBinary: the YAML alias bomb and a FIFO named
// *.yaml, under --path and under --crds, each end the real binary with one
// clear line naming the file, a peak RSS under 300 MB, and within 5 s (a
// liveness bound: without internal/input's bounds the bomb takes 24 GB in
// 10 s and the FIFO hangs for good). The bundle commands refuse before any request: the
// kubeconfig points at a server that would fail the test if asked.
//
// Each case runs in a child process of the test binary, all at once: the
// peak RSS the kernel reports for a process started with vfork, as Go
// starts them, is at least its parent's, and the test binary's grows with
// every test it has run; a child that ran nothing else is small.
func TestHostileInputToTheRealBinary(t *testing.T) {
	bin := standupBinary(t)
	bomb, err := os.ReadFile(filepath.Join("..", "..", "internal", "input", "testdata", "alias-bomb.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		plant   func(t *testing.T, path string) // writes the hostile file at path
		file    string                          // where, relative to the checkout
		args    func(root string) []string
		wantErr string
	}{
		{name: "alias bomb under --path (tiers)", plant: writeFile(bomb), file: "apps/bad/bomb.yaml",
			args: func(root string) []string { return []string{"tiers", "--path", filepath.Join(root, "clusters/c")} }, wantErr: "apps/bad/bomb.yaml"},
		{name: "alias bomb under --path (audit)", plant: writeFile(bomb), file: "apps/bad/bomb.yaml",
			args: func(root string) []string { return []string{"audit", "--path", filepath.Join(root, "clusters/c")} }, wantErr: "apps/bad/bomb.yaml"},
		{name: "FIFO under --path (tiers)", plant: mkfifo, file: "apps/bad/pipe.yaml",
			args: func(root string) []string { return []string{"tiers", "--path", filepath.Join(root, "clusters/c")} }, wantErr: "apps/bad/pipe.yaml"},
		{name: "FIFO as the --path manifest", plant: mkfifo, file: "clusters/c/pipe.yaml",
			args: func(root string) []string { return []string{"audit", "--path", filepath.Join(root, "clusters/c")} }, wantErr: "pipe.yaml"},
		{name: "alias bomb under --crds (crds)", plant: writeFile(bomb), file: "crds/bomb.yaml",
			args: func(root string) []string {
				return []string{"crds", "--dry-run", "--crds", filepath.Join(root, "crds")}
			}, wantErr: "bomb.yaml"},
		{name: "FIFO under --crds (resume)", plant: mkfifo, file: "crds/pipe.yaml",
			args: func(root string) []string {
				return []string{"resume", "--dry-run", "--crds", filepath.Join(root, "crds")}
			}, wantErr: "pipe.yaml"},
		{name: "FIFO under --crds (crds)", plant: mkfifo, file: "crds/pipe.yaml",
			args: func(root string) []string { return []string{"crds", "--crds", filepath.Join(root, "crds")} }, wantErr: "pipe.yaml"},
	}
	var names []string
	for _, tc := range cases {
		names = append(names, tc.name)
	}
	inChildren(t, names, func(t *testing.T, i int) {
		tc := cases[i]
		kubeconfig, requests := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
		})
		root := hostileCheckout(t)
		tc.plant(t, filepath.Join(root, filepath.FromSlash(tc.file)))
		before := requests.Load()
		cmd := exec.Command(bin, append([]string{"--kubeconfig", kubeconfig, "--no-color"}, tc.args(root)...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		timer := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
		err := cmd.Wait()
		timer.Stop()
		took := time.Since(start)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != ExitFailure {
			t.Fatalf("exit %v after %s, want %d\nstderr: %s", err, took, ExitFailure, stderr.String())
		}
		if took > 5*time.Second {
			t.Errorf("took %s, want at most 5 s", took)
		}
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024 // KiB on Linux
		if rss > 300<<20 {
			t.Errorf("peak RSS %d MiB, want under 300", rss>>20)
		}
		errLines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if len(errLines) != 1 || !strings.Contains(errLines[0], tc.wantErr) {
			t.Errorf("stderr %q: want one line naming %s", stderr.String(), tc.wantErr)
		}
		if n := requests.Load() - before; n != 0 {
			t.Errorf("%d API requests despite an invalid bundle", n)
		}
		t.Logf("%s: exit 1 in %s, peak RSS %d MiB: %s", tc.name, took.Round(time.Millisecond), rss>>20, errLines[0])
	})
}

// hostileCheckout writes a checkout of two Kustomizations, good and bad,
// and an empty bundle directory.
func hostileCheckout(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	ks := func(name string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: " + name + ", namespace: flux-system}\n" +
			"spec: {interval: 10m, path: ./apps/" + name + ", prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n"
	}
	for name, content := range map[string]string{
		"standup.yaml":        "",
		"clusters/c/ks.yaml":  ks("good") + "---\n" + ks("bad"),
		"apps/good/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good, namespace: apps}\n",
		"apps/bad/other.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad, namespace: apps}\n",
	} {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "crds"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

func writeFile(data []byte) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		t.Helper()
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}
