package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestFleetTargets(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "config")
	if err := os.WriteFile(kubeconfig, []byte(strings.ReplaceAll(deadKubeconfig, "current-context: nowhere", `  - name: eu-1
    context: {cluster: nowhere, user: nobody}
  - name: us-1
    context: {cluster: nowhere, user: nobody}
current-context: nowhere`)), 0o600); err != nil {
		t.Fatal(err)
	}
	kdir := filepath.Join(dir, "fleet")
	if err := os.MkdirAll(kdir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"prod-eu.yaml", "prod-us.kubeconfig", ".hidden"} {
		if err := os.WriteFile(filepath.Join(kdir, f), []byte(deadKubeconfig), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	g := globalOptions{}
	g.Cluster.Kubeconfig = kubeconfig
	tests := []struct {
		name     string
		contexts []string
		o        fleetOptions
		want     string // target names, or the error
	}{
		{"one cluster", nil, fleetOptions{MaxClusters: 8}, ""},
		{"one --context", []string{"eu-1"}, fleetOptions{MaxClusters: 8}, ""},
		{"--context twice", []string{"eu-1", "us-1"}, fleetOptions{MaxClusters: 8}, "eu-1 us-1"},
		{"--all-contexts", nil, fleetOptions{AllContexts: true, MaxClusters: 8}, "eu-1 nowhere us-1"},
		{"--kubeconfig-dir", nil, fleetOptions{KubeconfigDir: kdir, MaxClusters: 8}, "prod-eu prod-us"},
		{"two ways", []string{"eu-1"}, fleetOptions{AllContexts: true, MaxClusters: 8}, "name the clusters one way"},
		{"no workers", nil, fleetOptions{MaxClusters: 0}, "--max-clusters 0: want 1 or more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := g
			g.Contexts = tt.contexts
			got, err := fleetTargets(g, tt.o)
			var names []string
			for _, t := range got {
				names = append(names, t.Name)
			}
			s := strings.Join(names, " ")
			if err != nil {
				s = err.Error()
			}
			if !strings.Contains(s, tt.want) || (tt.want == "" && s != "") {
				t.Errorf("got %q, want %q", s, tt.want)
			}
		})
	}
}

func TestRecordFor(t *testing.T) {
	for _, tt := range []struct{ file, cluster, want string }{
		{"prod.ndjson", "", "prod.ndjson"},
		{"prod.ndjson", "eu-1", "prod-eu-1.ndjson"},
		{"/tmp/r", "arn:aws:eks:eu/prod", "/tmp/r-arn_aws_eks_eu_prod"},
		{"", "eu-1", ""},
	} {
		if got := recordFor(tt.file, tt.cluster); got != tt.want {
			t.Errorf("recordFor(%q, %q) = %q, want %q", tt.file, tt.cluster, got, tt.want)
		}
	}
}

// Every JSON value a cluster writes, an NDJSON event or an indented
// document, comes out on one line with its cluster first.
func TestJSONTagger(t *testing.T) {
	var mu sync.Mutex
	var out bytes.Buffer
	tg := newJSONTagger(&mu, &out, "eu-1")
	_, _ = tg.Write([]byte("{\"type\":\"node\"}\n{\"ty"))
	_, _ = tg.Write([]byte("pe\":\"summary\"}\n{\n  \"schemaVersion\": 1,\n  \"checks\": []\n}\n{}\n"))
	tg.Close()
	want := `{"cluster":"eu-1","type":"node"}
{"cluster":"eu-1","type":"summary"}
{"cluster":"eu-1","schemaVersion":1,"checks":[]}
{"cluster":"eu-1"}
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// Commands that read one cluster refuse a second --context, before any
// request.
func TestSecondContextRefusedOutsideTheFleet(t *testing.T) {
	for _, args := range [][]string{
		{"tiers", "--context", "a", "--context", "b"},
		{"audit", "--from-cluster", "--path", ".", "--context", "a", "--context", "b"},
	} {
		out, errOut, code := run(t, "standup", args...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, "reads one cluster: --context is given 2 times") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}
