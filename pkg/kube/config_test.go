package kube

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:6443
- name: other
  cluster:
    server: https://10.0.0.2:6443
contexts:
- name: ctx
  context:
    cluster: c
    user: u
current-context: ctx
users:
- name: u
  user:
    token: t
- name: v
  user:
    token: tv
`

func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRESTConfigErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "config", kubeconfig)
	tests := []struct {
		name    string
		flags   ClusterFlags
		wantErr string
	}{
		{name: "missing file", flags: ClusterFlags{Kubeconfig: filepath.Join(dir, "nope")}, wantErr: "kubeconfig " + filepath.Join(dir, "nope") + " not found"},
		{name: "unknown context", flags: ClusterFlags{Kubeconfig: good, Context: "prod"}, wantErr: `context "prod" not found in kubeconfig ` + good},
		{name: "unknown cluster", flags: ClusterFlags{Kubeconfig: good, Cluster: "prod"}, wantErr: `cluster "prod" not found in kubeconfig ` + good},
		{name: "unknown user", flags: ClusterFlags{Kubeconfig: good, User: "bob"}, wantErr: `user "bob" not found in kubeconfig ` + good},
		{name: "good", flags: ClusterFlags{Kubeconfig: good}},
		{name: "good context", flags: ClusterFlags{Kubeconfig: good, Context: "ctx"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := RESTConfig(Options{Flags: tt.flags})
			if tt.wantErr == "" {
				if err != nil || cfg.Host != "https://127.0.0.1:6443" {
					t.Fatalf("RESTConfig = %v, %v", cfg, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestRESTConfigNoKubeconfigAnywhere(t *testing.T) {
	absent := filepath.Join(t.TempDir(), "absent")
	t.Setenv("KUBECONFIG", absent)
	t.Setenv("HOME", t.TempDir())
	_, err := RESTConfig(Options{})
	if err == nil || !strings.Contains(err.Error(), "no kubeconfig found") || !strings.Contains(err.Error(), absent) {
		t.Fatalf("error %v, want no kubeconfig found, naming %s", err, absent)
	}
}

// TestClusterFlagsMapping: each of kubectl's cluster flags lands where
// kubectl puts it in the REST config, over the kubeconfig's own values.
func TestClusterFlagsMapping(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "config", kubeconfig)
	ca := writeFile(t, dir, "ca.crt", "not checked until a request is made")
	t.Setenv("HOME", t.TempDir())
	tests := []struct {
		name  string
		flags ClusterFlags
		check func(*rest.Config) bool
	}{
		{"kubeconfig alone", ClusterFlags{Kubeconfig: good},
			func(c *rest.Config) bool { return c.Host == "https://127.0.0.1:6443" && c.BearerToken == "t" }},
		{"--cluster", ClusterFlags{Kubeconfig: good, Cluster: "other"},
			func(c *rest.Config) bool { return c.Host == "https://10.0.0.2:6443" && c.BearerToken == "t" }},
		{"--user", ClusterFlags{Kubeconfig: good, User: "v"},
			func(c *rest.Config) bool { return c.BearerToken == "tv" }},
		{"--server and --token over the kubeconfig", ClusterFlags{Kubeconfig: good, Server: "https://api.example:443", Token: "secret"},
			func(c *rest.Config) bool { return c.Host == "https://api.example:443" && c.BearerToken == "secret" }},
		{"--server and --token without any kubeconfig", ClusterFlags{Server: "https://api.example:443", Token: "secret"},
			func(c *rest.Config) bool { return c.Host == "https://api.example:443" && c.BearerToken == "secret" }},
		{"--as and --as-group", ClusterFlags{Kubeconfig: good, As: "alice", AsGroups: []string{"ops", "dev"}},
			func(c *rest.Config) bool {
				return c.Impersonate.UserName == "alice" && slices.Equal(c.Impersonate.Groups, []string{"ops", "dev"})
			}},
		{"--certificate-authority", ClusterFlags{Kubeconfig: good, CertificateAuthority: ca},
			func(c *rest.Config) bool { return c.TLSClientConfig.CAFile == ca && !c.Insecure }},
		{"--insecure-skip-tls-verify", ClusterFlags{Kubeconfig: good, InsecureSkipTLSVerify: true},
			func(c *rest.Config) bool { return c.Insecure }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", filepath.Join(dir, "absent"))
			cfg, err := RESTConfig(Options{Flags: tt.flags})
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(cfg) {
				t.Errorf("RESTConfig(%+v): host %s, token %q, impersonate %+v, CA %q, insecure %v", tt.flags,
					cfg.Host, cfg.BearerToken, cfg.Impersonate, cfg.TLSClientConfig.CAFile, cfg.Insecure)
			}
		})
	}
}

// TestKubeconfigList: KUBECONFIG lists files that kubectl merges, the
// first to set a value winning; a missing file in the list is skipped.
func TestKubeconfigList(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	clusters := writeFile(t, dir, "clusters", `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:6443
users:
- name: u
  user:
    token: t
`)
	contexts := writeFile(t, dir, "contexts", `apiVersion: v1
kind: Config
contexts:
- name: ctx
  context:
    cluster: c
    user: u
current-context: ctx
`)
	list := strings.Join([]string{filepath.Join(dir, "absent"), clusters, contexts}, string(os.PathListSeparator))
	t.Setenv("KUBECONFIG", list)
	cfg, err := RESTConfig(Options{})
	if err != nil {
		t.Fatalf("KUBECONFIG=%s: %v", list, err)
	}
	if cfg.Host != "https://127.0.0.1:6443" || cfg.BearerToken != "t" {
		t.Errorf("KUBECONFIG=%s: host %s, token %q", list, cfg.Host, cfg.BearerToken)
	}
	_, err = RESTConfig(Options{Flags: ClusterFlags{Context: "nope"}})
	if err == nil || !strings.Contains(err.Error(), `context "nope" not found in kubeconfig `+clusters+":"+contexts) {
		t.Errorf("unknown context in a list: %v, want both files named", err)
	}
}
