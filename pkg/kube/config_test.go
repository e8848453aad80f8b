package kube

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:6443
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
`

func TestRESTConfigErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "config")
	if err := os.WriteFile(good, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{name: "missing file", opts: Options{Kubeconfig: filepath.Join(dir, "nope")}, wantErr: "kubeconfig " + filepath.Join(dir, "nope") + " not found"},
		{name: "unknown context", opts: Options{Kubeconfig: good, Context: "prod"}, wantErr: `context "prod" not found in kubeconfig`},
		{name: "good", opts: Options{Kubeconfig: good}},
		{name: "good context", opts: Options{Kubeconfig: good, Context: "ctx"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := RESTConfig(tt.opts)
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
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "absent"))
	t.Setenv("HOME", t.TempDir())
	_, err := RESTConfig(Options{})
	if err == nil || !strings.Contains(err.Error(), "no kubeconfig found") {
		t.Fatalf("error %v, want no kubeconfig found", err)
	}
}
