package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

func TestInterspersedHoistsFlagsWrittenAfterNames(t *testing.T) {
	cases := []struct {
		in, want string
	}{
		{"standup resume platform-config --dry-run", "standup resume --dry-run -- platform-config"},
		{"standup resume ks apps -n flux-system --dry-run", "standup resume -n flux-system --dry-run -- ks apps"},
		{"standup resume --crds dir apps --max-inflight 2", "standup resume --crds dir --max-inflight 2 -- apps"},
		{"standup tiers extra --path X", "standup tiers --path X -- extra"},
		{"standup tiers --path X", "standup tiers --path X"},
		{"standup -o json tiers --path X", "standup -o json tiers --path X"},
		{"standup --kubeconfig k resume a --timeout=3s", "standup --kubeconfig k resume --timeout=3s -- a"},
		{"standup crds --dry-run capture --out d", "standup crds --dry-run capture --out d"},
		{"standup crds capture extra --out d", "standup crds capture --out d -- extra"},
		{"standup resume a -- --dry-run", "standup resume -- a -- --dry-run"},
		{"standup resume --dry-run=false a", "standup resume --dry-run=false -- a"},
		{"standup help resume", "standup help resume"},
		{"standup nosuch --dry-run", "standup nosuch --dry-run"},
		{"standup", "standup"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			app := testApp()
			got := strings.Join(interspersed(app, strings.Fields(tc.in)), " ")
			if got != tc.want {
				t.Fatalf("interspersed(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

// testApp is the app Run builds, with its commands' flags shared.
func testApp() *cli.App {
	app := newApp(Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	return app
}

func TestResumeNames(t *testing.T) {
	cases := []struct {
		args    []string
		want    []string
		wantErr string
	}{
		{args: nil, want: nil},
		{args: []string{"apps"}, want: []string{"apps"}},
		{args: []string{"ks", "apps", "flux-system/infra"}, want: []string{"apps", "flux-system/infra"}},
		{args: []string{"Kustomization", "apps"}, want: []string{"apps"}},
		{args: []string{"ks"}, wantErr: "name the Kustomizations"},
		{args: []string{"hr", "podinfo"}, wantErr: "Kustomizations only"},
		{args: []string{"a/b/c"}, wantErr: "not NAME or NAMESPACE/NAME"},
	}
	for _, tc := range cases {
		got, err := resumeNames(tc.args)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || codeOf(err) != ExitUsage {
				t.Errorf("resumeNames(%v) = %v, %v; want usage error with %q", tc.args, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("resumeNames(%v) = %v, %v; want %v", tc.args, got, err, tc.want)
		}
	}
}

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
		{"resume", "hr", "podinfo", "--dry-run"},
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
