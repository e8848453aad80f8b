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

// TestDemoScriptArguments: demo.sh takes --keep, --stop DIR, or nothing;
// anything else, or both, is refused with its usage (exit 2).
func TestDemoScriptArguments(t *testing.T) {
	for _, tt := range []struct{ args, want string }{
		{"", "demo 0 \n"},
		{"--keep", "demo 1 \n"},
		{"--stop /tmp/standup-demo.x", "stop 0 /tmp/standup-demo.x\n"},
	} {
		if got := sourced(t, "parse_args "+tt.args+"\necho \"$mode $keep $stop_dir\""); got != tt.want {
			t.Errorf("parse_args %s: %q, want %q", tt.args, got, tt.want)
		}
	}
	for _, args := range [][]string{{"--bogus"}, {"--stop"}, {"--keep", "--stop", "x"}, {"--help"}} {
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
