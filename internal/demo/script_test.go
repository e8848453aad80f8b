package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubestandup/standup/internal/ciskip"
)

const script = "../../scripts/demo.sh"

// sourced runs shell lines after sourcing scripts/demo.sh, which then
// only defines its functions, and returns their stdout.
func sourced(t *testing.T, lines string) string {
	t.Helper()
	out, err := exec.Command("bash", "-c", "source "+script+"\n"+lines).Output()
	if err != nil {
		t.Fatalf("%s: %v", lines, err)
	}
	return string(out)
}

// TestDemoScriptArguments: demo.sh takes --keep and --write-readme, --stop
// DIR, or nothing; anything else, or --stop with another, is refused with
// its usage (exit 2).
func TestDemoScriptArguments(t *testing.T) {
	for _, tt := range []struct{ args, want string }{
		{"", "demo 0 0 \n"},
		{"--keep", "demo 1 0 \n"},
		{"--write-readme", "demo 0 1 \n"},
		{"--keep --write-readme", "demo 1 1 \n"},
		{"--stop /tmp/standup-demo.x", "stop 0 0 /tmp/standup-demo.x\n"},
	} {
		if got := sourced(t, "parse_args "+tt.args+"\necho \"$mode $keep $readme $stop_dir\""); got != tt.want {
			t.Errorf("parse_args %s: %q, want %q", tt.args, got, tt.want)
		}
	}
	for _, args := range [][]string{{"--bogus"}, {"--stop"}, {"--keep", "--stop", "x"}, {"--write-readme", "--stop", "x"}, {"--help"}} {
		cmd := exec.Command("bash", append([]string{script}, args...)...)
		out, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(out), "usage: ") {
			t.Errorf("demo.sh %v: exit %d (%v), %q; want exit 2 and its usage", args, code, err, out)
		}
	}
}

// TestDemoScriptKeepInstructions: a --keep run ends with the lines that
// use the world (export KUBECONFIG=...) and stop it (its pid, --stop DIR).
func TestDemoScriptKeepInstructions(t *testing.T) {
	out := sourced(t, "print_kept /home/me/.cache/w/kubeconfig /tmp/standup-demo.abc 4242")
	for _, want := range []string{
		"\n  export KUBECONFIG=/home/me/.cache/w/kubeconfig\n",
		"\n  export PATH=\"/tmp/standup-demo.abc/bin:$PATH\"",
		"\n  bash scripts/demo.sh --stop /tmp/standup-demo.abc\n",
		"kill 4242",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("print_kept lacks %q:\n%s", want, out)
		}
	}
}

// TestDemoScriptStop: --stop DIR ends the process DIR/world.pid names
// and removes DIR; a directory without world.pid is refused.
func TestDemoScriptStop(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "standup-demo.test")
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	world := exec.Command("sleep", "60")
	if err := world.Start(); err != nil {
		ciskip.Skipf(t, "no sleep to stand for the world: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- world.Wait() }() // reaped, so that kill -0 sees it gone
	if err := os.WriteFile(filepath.Join(dir, "world.pid"), []byte(strconv.Itoa(world.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("bash", script, "--stop", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("demo.sh --stop: %v\n%s", err, out)
	}
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("the world is still running")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s is still there (%v)", dir, err)
	}
	if out, err := exec.Command("bash", script, "--stop", t.TempDir()).CombinedOutput(); err == nil || !strings.Contains(string(out), "no world.pid") {
		t.Errorf("--stop of a directory without world.pid: %v, %s", err, out)
	}
}

// TestMakeDemoKeep: make demo KEEP=1 runs demo.sh --keep; make demo does
// not keep.
func TestMakeDemoKeep(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		ciskip.Skipf(t, "make is not installed")
	}
	for _, tt := range []struct{ args, want string }{
		{"KEEP=1", "bash scripts/demo.sh --keep\n"},
		{"", "bash scripts/demo.sh \n"},
		{"KEEP=0", "bash scripts/demo.sh \n"},
	} {
		args := []string{"-s", "-n", "-C", "../..", "demo"}
		if tt.args != "" {
			args = append(args, tt.args)
		}
		out, err := exec.Command("make", args...).Output()
		if err != nil || string(out) != tt.want {
			t.Errorf("make -n demo %s: %q (%v), want %q", tt.args, out, err, tt.want)
		}
	}
}

// TestDemoScriptNormalizes: the output --write-readme splices into the
// README has what differs from run to run replaced, and keeps the rest
// (a setting such as "at most 3s", the counts), so that reruns diff
// cleanly.
func TestDemoScriptNormalizes(t *testing.T) {
	in := "$ kubectl get kustomizations -A\n" +
		"NAMESPACE     NAME                 AGE   READY   STATUS\n" +
		"flux-system   apps-vms             13s   False   dependency 'flux-system/platform-config' is not ready\n" +
		"flux-system   platform             2m5s  True    Applied revision: main@sha1:1a4c784b\n" +
		"$ standup resume --crds examples/homelab-deadlock/bootstrap/crds\n" +
		"23:03:45.444 ! Kustomization/flux-system/platform-config suspected cold-start deadlock; proving it, giving an operator at most 3s to create the CRD\n" +
		"23:03:45.483 ► Kustomization/flux-system/platform-config reconcile: reconcile.fluxcd.io/requestedAt=2026-12-01T23:03:45.444711814Z\n" +
		"23:03:46.101 … Kustomization/flux-system/apps reconciling, 1m04s: Running health checks for revision main@sha1:1a4c784b with a timeout of 5m0s (Progressing)\n" +
		"23:03:47.096 ✔ Kustomization/flux-system/platform-config ready in 1.7s\n" +
		"23:03:47.100 ✔ Kustomization/flux-system/apps ready in 2s\n" +
		"✔ 7/7 ready, 0 failed, 0 blocked in 4.3s (5 mutations)\n"
	want := "$ kubectl get kustomizations -A\n" +
		"NAMESPACE     NAME                 AGE   READY   STATUS\n" +
		"flux-system   apps-vms             Ns    False   dependency 'flux-system/platform-config' is not ready\n" +
		"flux-system   platform             Ns    True    Applied revision: main@sha1:1a4c784b\n" +
		"$ standup resume --crds examples/homelab-deadlock/bootstrap/crds\n" +
		"hh:mm:ss.mmm ! Kustomization/flux-system/platform-config suspected cold-start deadlock; proving it, giving an operator at most 3s to create the CRD\n" +
		"hh:mm:ss.mmm ► Kustomization/flux-system/platform-config reconcile: reconcile.fluxcd.io/requestedAt=YYYY-MM-DDThh:mm:ss.nnnnnnnnnZ\n" +
		"hh:mm:ss.mmm … Kustomization/flux-system/apps reconciling, NmNNs: Running health checks for revision main@sha1:1a4c784b with a timeout of 5m0s (Progressing)\n" +
		"hh:mm:ss.mmm ✔ Kustomization/flux-system/platform-config ready in N.Ns\n" +
		"hh:mm:ss.mmm ✔ Kustomization/flux-system/apps ready in N.Ns\n" +
		"✔ 7/7 ready, 0 failed, 0 blocked in N.Ns (5 mutations)\n"
	cmd := exec.Command("bash", "-c", "source "+script+"\nnormalize_demo")
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != want {
		t.Errorf("normalize_demo:\n%s\nwant:\n%s", out, want)
	}
}
