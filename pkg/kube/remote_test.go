package kube

import (
	"strings"
	"testing"
	"time"
)

// remoteKubeconfig is a self-contained kubeconfig, as a kubeConfig Secret
// holds one, with user's lines in place of its user.
func remoteKubeconfig(cluster, user string) string {
	return `apiVersion: v1
kind: Config
clusters:
- name: spoke
  cluster:
    server: https://10.0.0.9:6443
` + cluster + `contexts:
- name: spoke
  context:
    cluster: spoke
    user: admin
current-context: spoke
users:
- name: admin
  user:
` + user
}

// TestRESTConfigFromKubeconfig: a kubeConfig Secret's kubeconfig is taken
// only self-contained, as kustomize-controller takes it; every refusal is
// one line naming the Secret, and an accepted one is tuned as the hub's
// client is.
func TestRESTConfigFromKubeconfig(t *testing.T) {
	const what = "Secret/clusters/spoke-kubeconfig"
	token := "    token: t\n"
	tests := []struct {
		name     string
		data     string
		wantErr  string
		wantHost string
	}{
		{name: "inline token", data: remoteKubeconfig("", token), wantHost: "https://10.0.0.9:6443"},
		{name: "inline certificate data", data: remoteKubeconfig("    certificate-authority-data: "+caData+"\n", "    client-certificate-data: "+caData+"\n    client-key-data: "+caData+"\n"), wantHost: "https://10.0.0.9:6443"},
		{name: "exec plugin", data: remoteKubeconfig("", "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: aws\n      args: [eks, get-token]\n"),
			wantErr: what + `: user "admin" runs an exec or auth-provider plugin; standup runs no command a Secret names`},
		{name: "auth-provider plugin", data: remoteKubeconfig("", "    auth-provider:\n      name: gcp\n"),
			wantErr: what + `: user "admin" runs an exec or auth-provider plugin`},
		{name: "certificate-authority file", data: remoteKubeconfig("    certificate-authority: /etc/ca.crt\n", token),
			wantErr: what + `: cluster "spoke" names a certificate-authority file; only certificate-authority-data is read`},
		{name: "token file", data: remoteKubeconfig("", "    tokenFile: /var/run/token\n"),
			wantErr: what + `: user "admin" names a file (tokenFile, client-certificate or client-key); only inline data is read`},
		{name: "client key file", data: remoteKubeconfig("", "    client-certificate: /c.crt\n    client-key: /c.key\n"),
			wantErr: what + `: user "admin" names a file`},
		{name: "malformed", data: "apiVersion: v1\nkind: Config\nclusters: {not: [a list\n", wantErr: what + ": not a kubeconfig: "},
		{name: "not yaml at all", data: "\x00\x01binary", wantErr: what + ": not a kubeconfig: "},
		{name: "no current context", data: "apiVersion: v1\nkind: Config\n", wantErr: what + ": no current context or cluster"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := RESTConfigFromKubeconfig([]byte(tt.data), what, Options{RequestTimeout: 7 * time.Second})
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("accepted; want %q", tt.wantErr)
				}
				if msg := err.Error(); !strings.HasPrefix(msg, tt.wantErr) || strings.Contains(msg, "\n") {
					t.Fatalf("err %q: want one line starting %q", msg, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != tt.wantHost || cfg.UserAgent != "standup" || cfg.ExecProvider != nil {
				t.Fatalf("config host %q, user agent %q, exec %v; want %q tuned as the hub's", cfg.Host, cfg.UserAgent, cfg.ExecProvider, tt.wantHost)
			}
		})
	}
}

// caData is base64 of a placeholder PEM: the kubeconfig only carries it.
const caData = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K"
