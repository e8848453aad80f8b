package main

import (
	"bytes"
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/pkg/kube"
)

// parseGlobals runs args (after the program name) through the global flags
// as every command shares them, and returns what the command would read.
func parseGlobals(t *testing.T, args ...string) globalOptions {
	t.Helper()
	var got globalOptions
	cmd := &cli.Command{Name: "cmd", Action: func(c *cli.Context) error { got = globals(c); return nil }}
	shareGlobalFlags(cmd, "", nil)
	app := &cli.App{Name: "standup", Flags: globalFlags(), Commands: []*cli.Command{cmd}, Writer: &bytes.Buffer{}, ErrWriter: &bytes.Buffer{}}
	if err := app.Run(append([]string{"standup"}, args...)); err != nil {
		t.Fatalf("%s: %v", strings.Join(args, " "), err)
	}
	return got
}

// TestGlobalClusterFlags: kubectl's cluster flags, before or after the
// command name, land in kube.ClusterFlags; KUBECONFIG is left to client-go,
// which reads it as a list.
func TestGlobalClusterFlags(t *testing.T) {
	t.Setenv("KUBECONFIG", "a:b")
	every := kube.ClusterFlags{
		Kubeconfig: "k", Context: "ctx", Cluster: "cl", User: "u", As: "alice", AsGroups: []string{"ops", "dev"},
		Server: "https://x:6443", Token: "t", CertificateAuthority: "ca.crt", InsecureSkipTLSVerify: true,
	}
	tests := []struct {
		name string
		args []string
		want kube.ClusterFlags
	}{
		{"none: KUBECONFIG is not a path", []string{"cmd"}, kube.ClusterFlags{}},
		{"before the command", []string{"--kubeconfig", "k", "--context", "ctx", "--cluster", "cl", "--user", "u", "--as", "alice",
			"--as-group", "ops", "--as-group", "dev", "-s", "https://x:6443", "--token", "t", "--certificate-authority", "ca.crt",
			"--insecure-skip-tls-verify", "cmd"}, every},
		{"after the command", []string{"cmd", "--kubeconfig", "k", "--context", "ctx", "--cluster", "cl", "--user", "u", "--as", "alice",
			"--as-group", "ops", "--as-group", "dev", "--server", "https://x:6443", "--token", "t", "--certificate-authority", "ca.crt",
			"--insecure-skip-tls-verify"}, every},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseGlobals(t, tt.args...).Cluster; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestGlobalNamespaceAndRequestTimeout(t *testing.T) {
	tests := []struct {
		args      []string
		namespace string
		timeout   time.Duration
	}{
		{[]string{"cmd"}, "", kube.DefaultRequestTimeout},
		{[]string{"-n", "monitoring", "cmd"}, "monitoring", kube.DefaultRequestTimeout},
		{[]string{"cmd", "--namespace", "monitoring"}, "monitoring", kube.DefaultRequestTimeout},
		{[]string{"cmd", "-A"}, "", kube.DefaultRequestTimeout},
		{[]string{"-n", "monitoring", "cmd", "--all-namespaces"}, "", kube.DefaultRequestTimeout},
		{[]string{"cmd", "--request-timeout", "5"}, "", 5 * time.Second},
		{[]string{"cmd", "--request-timeout", "2m"}, "", 2 * time.Minute},
		{[]string{"--request-timeout", "0", "cmd"}, "", 0},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			g := parseGlobals(t, tt.args...)
			if g.Namespace != tt.namespace || g.RequestTimeout != tt.timeout {
				t.Errorf("namespace %q, request timeout %s; want %q, %s", g.Namespace, g.RequestTimeout, tt.namespace, tt.timeout)
			}
		})
	}
}

// TestBadRequestTimeoutIsRefusedBeforeAnyRequest: a --request-timeout
// kubectl would refuse is a usage error, and nothing is sent.
func TestBadRequestTimeoutIsRefusedBeforeAnyRequest(t *testing.T) {
	kubeconfig, requests := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusServiceUnavailable)
	})
	for _, bad := range []string{"soon", "-1s", "1x"} {
		var out, errOut bytes.Buffer
		err := Run(context.Background(), []string{"standup", "--kubeconfig", kubeconfig, "tiers", "--request-timeout", bad}, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
		if code := ExitCode(err, &errOut); code != ExitUsage || !strings.Contains(errOut.String(), "--request-timeout "+bad) {
			t.Errorf("--request-timeout %s: exit %d, stderr %q; want %d naming it", bad, code, errOut.String(), ExitUsage)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d API requests before refusing the line", n)
	}
}
