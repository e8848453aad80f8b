package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// countingServer is an API server that answers nothing useful and counts
// what it is asked; its kubeconfig is returned.
func countingServer(t *testing.T, handler http.HandlerFunc) (kubeconfig string, requests *atomic.Int64) {
	t.Helper()
	requests = &atomic.Int64{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	return kubeconfigFor(t, srv.URL), requests
}

// TestUnusedArgumentsAreRefusedBeforeAnyRequest: every command either uses
// its positional words or refuses them (exit 2) having sent nothing.
func TestUnusedArgumentsAreRefusedBeforeAnyRequest(t *testing.T) {
	kubeconfig, requests := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusServiceUnavailable)
	})
	bundle := t.TempDir()
	cases := [][]string{
		{"tiers", "extra"},
		{"tiers", "extra", "--kinds", "Kustomization"},
		{"check", "platform-config"},
		{"crds", "platform-config", "--crds", bundle},
		{"crds", "--dry-run", "x", "--crds", bundle},
		{"crds", "capture", "extra", "--out", t.TempDir()},
		{"audit", "--from-cluster", "extra", "--path", "../../examples/homelab/clusters/prod"},
		{"version", "extra"},
		{"resume", "a", "--", "--dry-run"},
		{"resume", "hr", "--dry-run"},
		{"resume", "--dry-run", "--no-such-flag", "a"},
		{"tiers", "--dry-run"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			before := requests.Load()
			var out, errOut bytes.Buffer
			err := Run(context.Background(), append([]string{"standup", "--kubeconfig", kubeconfig}, args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
			code := ExitCode(err, &errOut)
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d (usage)\nstderr: %s", code, ExitUsage, errOut.String())
			}
			if n := requests.Load() - before; n != 0 {
				t.Fatalf("%d API requests before refusing the line", n)
			}
			if lines := strings.Count(strings.TrimSpace(errOut.String()), "\n"); lines != 0 {
				t.Errorf("the refusal is not one line:\n%s", errOut.String())
			}
		})
	}
}

// silentTLSServer completes the TLS handshake and then never answers: the wedged
// API server. It returns the kubeconfig pointing at it.
func silentTLSServer(t *testing.T) string {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return kubeconfigFor(t, srv.URL)
}

// clusterCommands are every command that talks to the API server.
func clusterCommands(t *testing.T) [][]string {
	bundle := t.TempDir()
	crd, err := os.ReadFile("../../examples/homelab-deadlock/bootstrap/crds/storageprofiles.cdi.kubevirt.io.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bundle, "crd.yaml"), crd, 0o644); err != nil {
		t.Fatal(err)
	}
	return [][]string{
		{"tiers"},
		{"tiers", "--kinds", "Kustomization,HelmRelease"},
		{"check"},
		{"crds", "--crds", bundle},
		{"crds", "--dry-run", "--crds", bundle},
		{"crds", "--all", "--crds", bundle},
		{"crds", "capture", "--out", t.TempDir()},
		{"resume"},
		{"resume", "--dry-run"},
		{"resume", "apps", "--crds", bundle},
		{"audit", "--from-cluster", "--path", "../../examples/homelab/clusters/prod"},
	}
}

// TestTimeoutEndsEveryClusterCommandOnAHungServer: with --timeout 3s every
// cluster command exits 124 within a few seconds of the limit, discovery
// included. The bound is a liveness bound with slack: a hang takes minutes.
func TestTimeoutEndsEveryClusterCommandOnAHungServer(t *testing.T) {
	var names []string
	for _, args := range clusterCommands(t) {
		names = append(names, strings.Join(args, " "))
	}
	// Each command line in a process of its own, all at once: each waits
	// out its 3 s.
	inChildren(t, names, func(t *testing.T, i int) {
		kubeconfig := silentTLSServer(t)
		args := clusterCommands(t)[i]
		var out, errOut bytes.Buffer
		start := time.Now()
		full := append([]string{"standup", "--kubeconfig", kubeconfig, "--timeout", "3s"}, args...)
		done := make(chan int, 1)
		go func() {
			err := Run(context.Background(), full, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
			done <- ExitCode(err, &errOut)
		}()
		select {
		case code := <-done:
			if code != ExitTimeout {
				t.Fatalf("exit %d, want %d\nstderr: %s", code, ExitTimeout, errOut.String())
			}
			if took := time.Since(start); took > 15*time.Second {
				t.Fatalf("took %s to honour --timeout 3s", took)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("still running 60 s after --timeout 3s: hung")
		}
	})
}

func TestRequestTimeoutEndsARequestTheServerNeverAnswers(t *testing.T) {
	kubeconfig := silentTLSServer(t)
	var out, errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		err := Run(context.Background(), []string{"standup", "--kubeconfig", kubeconfig, "--request-timeout", "1s", "tiers"}, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
		done <- ExitCode(err, &errOut)
	}()
	select {
	case code := <-done:
		if code != ExitFailure || !strings.Contains(errOut.String(), "request timeout") {
			t.Fatalf("exit %d, want %d naming the request timeout\nstderr: %s", code, ExitFailure, errOut.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("still running 60 s after --request-timeout 1s: hung")
	}
}

// TestEveryCommandHasRegisteredFormats: guard checks -o against the printer
// registry for every command, so every command must be in it (but the
// hidden tooling, which guard leaves alone).
func TestEveryCommandHasRegisteredFormats(t *testing.T) {
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, cmd := range cmds {
			if cmd.Hidden {
				continue
			}
			path := prefix + cmd.Name
			if _, ok := formats().Of(path); !ok && cmd.Action != nil {
				t.Errorf("%s: no output formats registered", path)
			}
			walk(path+" ", cmd.Subcommands)
		}
	}
	walk("", newApp(Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "standup", "standup").Commands)
	if _, ok := formats().Of("audit --from-cluster"); !ok {
		t.Error("audit --from-cluster: no output formats registered")
	}
}

// TestBadOutputFormatIsRefusedBeforeAnyRequest: -o is checked once, before
// a command runs, with each command's own refusal.
func TestBadOutputFormatIsRefusedBeforeAnyRequest(t *testing.T) {
	kubeconfig, requests := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusServiceUnavailable)
	})
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"version", "-o", "yaml"}, `version: unknown output format "yaml" (want text or json)`},
		{[]string{"tiers", "-o", "sarif"}, `tiers: unknown output format "sarif" (want one of: text, json, yaml, dot, mermaid, shell)`},
		{[]string{"-o", "yaml", "resume", "apps", "--dry-run"}, `resume: unknown output format "yaml" (want text or json)`},
		{[]string{"crds", "-o", "yaml", "--crds", "."}, `crds: unknown output format "yaml" (want text or json)`},
		{[]string{"crds", "capture", "-o", "sarif", "--out", "."}, `crds capture: unknown output format "sarif" (want text or json)`},
		{[]string{"audit", "-o", "yaml", "--path", "../../examples/homelab/clusters/prod"}, `audit: unknown output format "yaml" (want one of: text, json, sarif)`},
		{[]string{"audit", "--from-cluster", "-o", "sarif", "--path", "../../examples/homelab/clusters/prod"}, `audit --from-cluster: unknown output format "sarif" (want one of: yaml, text, json)`},
		{[]string{"check", "-o", "yaml"}, `check: unknown output format "yaml" (want text or json)`},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			before := requests.Load()
			var out, errOut bytes.Buffer
			err := Run(context.Background(), append([]string{"standup", "--kubeconfig", kubeconfig}, tc.args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
			if code := ExitCode(err, &errOut); code != ExitUsage {
				t.Fatalf("exit %d, want %d (usage)\nstderr: %s", code, ExitUsage, errOut.String())
			}
			if got := errOut.String(); got != "standup: "+tc.want+"\n" {
				t.Errorf("stderr = %q, want %q", got, "standup: "+tc.want+"\n")
			}
			if n := requests.Load() - before; n != 0 || out.Len() > 0 {
				t.Errorf("%d API requests and %d bytes of output before refusing -o", n, out.Len())
			}
		})
	}
}

// TestCaptureWithoutOutIsAUsageError: crds capture without --out exits 2
// with one line naming the flag, prints no help, and sends nothing.
func TestCaptureWithoutOutIsAUsageError(t *testing.T) {
	kubeconfig, requests := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusServiceUnavailable)
	})
	for _, args := range [][]string{{"crds", "capture"}, {"crds", "capture", "--group", "cdi.kubevirt.io"}, {"crds", "capture", "-o", "json"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := Run(context.Background(), append([]string{"standup", "--kubeconfig", kubeconfig}, args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
			code := ExitCode(err, &errOut)
			want := "standup: crds capture: --out DIR is required: the directory to write one file per CRD into\n"
			if code != ExitUsage || errOut.String() != want || out.Len() > 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and only %q", code, out.String(), errOut.String(), ExitUsage, want)
			}
			if n := requests.Load(); n != 0 {
				t.Errorf("%d API requests", n)
			}
		})
	}
}
