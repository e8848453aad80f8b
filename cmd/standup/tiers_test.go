package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func runOffline(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := Run(context.Background(), append([]string{"standup"}, args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	code := ExitCode(err, &errOut)
	return out.String(), errOut.String(), code
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestTiersOfflineGolden(t *testing.T) {
	for _, format := range []string{"table", "json", "yaml", "dot", "mermaid", "shell"} {
		t.Run(format, func(t *testing.T) {
			out, errOut, code := runOffline(t, "tiers", "--path", "../../examples/homelab/clusters/prod", "-o", format, "--no-color")
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "homelab-prod."+format, out)
		})
	}
}

// TestTiersNamespaceGolden: -n narrows the view, never the graph. Before,
// tiers -n monitoring cut monitoring/monitoring's dependency on
// flux-system/platform and exited 4 ("which does not exist"); it shows the
// node at its tier in the whole graph, its dependency marked outside.
func TestTiersNamespaceGolden(t *testing.T) {
	for _, format := range []string{"table", "json", "yaml", "dot", "mermaid", "shell"} {
		t.Run(format, func(t *testing.T) {
			out, errOut, code := runOffline(t, "tiers", "-n", "monitoring", "--path", "../../examples/homelab/clusters/prod", "-o", format, "--no-color")
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.Contains(out, "platform") || strings.Contains(out, "platform-config") {
				t.Errorf("%s output does not show flux-system/platform alone as outside:\n%s", format, out)
			}
			golden(t, "homelab-prod-monitoring."+format, out)
		})
	}
}

// TestTiersKindsAnyCase: --kinds takes the flux CLI's short names and the
// kinds' plurals, in any case.
func TestTiersKindsAnyCase(t *testing.T) {
	want, _, code := runOffline(t, "tiers", "--path", "../../examples/helm/clusters/prod", "--kinds", "Kustomization,HelmRelease", "--no-color")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, kinds := range []string{"ks,hr", "KS,HR", "kustomizations,helmreleases", "HelmRelease,ks"} {
		out, errOut, code := runOffline(t, "tiers", "--path", "../../examples/helm/clusters/prod", "--kinds", kinds, "--no-color")
		if code != ExitOK || out != want {
			t.Errorf("--kinds %s: exit %d, stderr %q, output differs from --kinds Kustomization,HelmRelease:\n%s", kinds, code, errOut, out)
		}
	}
	_, errOut, code := runOffline(t, "tiers", "--path", "../../examples/helm/clusters/prod", "--kinds", "ks,gitrepository")
	if code != ExitUsage || !strings.Contains(errOut, `unknown kind "gitrepository"`) {
		t.Errorf("--kinds ks,gitrepository: exit %d, stderr %q; want a usage error naming it", code, errOut)
	}
}

func TestTiersOfflineHelmReleasesGolden(t *testing.T) {
	for _, format := range []string{"table", "json", "yaml", "dot", "mermaid", "shell"} {
		t.Run(format, func(t *testing.T) {
			out, errOut, code := runOffline(t, "tiers", "--path", "../../examples/helm/clusters/prod", "--kinds", "Kustomization,HelmRelease", "-o", format, "--no-color")
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, hr := range []string{"cert-manager", "ingress-nginx", "podinfo"} {
				if !strings.Contains(out, hr) {
					t.Errorf("%s output lacks HelmRelease %s", format, hr)
				}
			}
			golden(t, "helm-prod."+format, out)
		})
	}
}

func TestResumeRefusesHelmReleases(t *testing.T) {
	for _, kinds := range []string{"HelmRelease", "hr", "ks,HR", "helmreleases"} {
		_, errOut, code := runOffline(t, "resume", "--kinds", kinds)
		if code != ExitUsage || !strings.Contains(errOut, "resume walks Kustomizations only: HelmRelease is not walked yet") {
			t.Errorf("--kinds %s: exit %d, stderr %q: want a usage error saying HelmReleases are not walked", kinds, code, errOut)
		}
	}
}

func TestTiersOfflineErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "standup.yaml"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ks := func(name, dep string) string {
		s := "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: " + name + "\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./empty\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
		if dep != "" {
			s += "  dependsOn:\n    - name: " + dep + "\n"
		}
		return s
	}
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("empty/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: default\n")
	tests := []struct {
		name     string
		files    map[string]string
		args     []string
		wantCode int
		wantErr  string
	}{
		{name: "cycle", files: map[string]string{"a.yaml": ks("a", "b"), "b.yaml": ks("b", "a")}, wantCode: ExitInvalidGraph, wantErr: "flux-system/a -> flux-system/b -> flux-system/a"},
		{name: "dangling", files: map[string]string{"a.yaml": ks("a", "ghost")}, wantCode: ExitInvalidGraph, wantErr: "depends on Kustomization/flux-system/ghost, which does not exist (dependsOn in a.yaml): fix the name, or pass --allow-missing"},
		{name: "dangling allowed", files: map[string]string{"a.yaml": ks("a", "ghost")}, args: []string{"--allow-missing"}, wantCode: ExitOK, wantErr: "treated as external"},
		{name: "malformed", files: map[string]string{"a.yaml": ks("a", ""), "bad.yaml": "apiVersion: v1\nkind: [\n"}, wantCode: ExitFailure, wantErr: "bad.yaml"},
		{name: "unknown format", files: map[string]string{"a.yaml": ks("a", "")}, args: []string{"-o", "xml"}, wantCode: ExitUsage, wantErr: `unknown output format "xml"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, f := range []string{"a.yaml", "b.yaml", "bad.yaml"} {
				_ = os.Remove(filepath.Join(dir, f))
			}
			for name, content := range tt.files {
				write(name, content)
			}
			out, errOut, code := runOffline(t, append([]string{"tiers", "--path", dir}, tt.args...)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.wantCode, errOut)
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Fatalf("stderr %q does not contain %q", errOut, tt.wantErr)
			}
			if tt.wantCode != ExitOK && out != "" {
				t.Errorf("stdout must stay empty on error, got %q", out)
			}
		})
	}
}
