package main

import (
	"bytes"
	"context"
	"encoding/json"
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
	for _, format := range []string{"text", "json", "yaml", "dot", "mermaid", "shell"} {
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
	for _, format := range []string{"text", "json", "yaml", "dot", "mermaid", "shell"} {
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
	for _, format := range []string{"text", "json", "yaml", "dot", "mermaid", "shell"} {
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

// TestTiersKindsAsFluxWritesThem: --kinds takes ks and hr, the kinds and
// their plurals, in any case, and means the same graph by each spelling.
func TestTiersKindsAsFluxWritesThem(t *testing.T) {
	helm := "../../examples/helm/clusters/prod"
	both, errOut, code := runOffline(t, "tiers", "--path", helm, "--kinds", "Kustomization,HelmRelease", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	onlyKs, _, _ := runOffline(t, "tiers", "--path", helm, "--kinds", "ks", "-o", "json")
	tests := []struct {
		kinds    string
		want     string
		wantCode int
	}{
		{kinds: "ks,hr", want: both},
		{kinds: "HR,KS", want: both},
		{kinds: "kustomization,helmrelease", want: both},
		{kinds: "Kustomizations,HelmReleases", want: both},
		{kinds: "KS", want: onlyKs},
		{kinds: "ks,kustomization", want: onlyKs},
		{kinds: "gitrepository", wantCode: ExitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.kinds, func(t *testing.T) {
			out, errOut, code := runOffline(t, "tiers", "--path", helm, "--kinds", tt.kinds, "-o", "json")
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d: %s", code, tt.wantCode, errOut)
			}
			if out != tt.want {
				t.Errorf("--kinds %s printed another graph:\n%s", tt.kinds, out)
			}
		})
	}
	out, errOut, code := runOffline(t, "tiers", "--path", helm, "--kinds", "hr", "-o", "shell")
	if code != ExitOK || !strings.Contains(out, "podinfo") || strings.Contains(out, "infrastructure") {
		t.Errorf("--kinds hr: exit %d, want the HelmReleases alone:\n%s%s", code, out, errOut)
	}
}

// TestTiersShowsHelmReleasesByDefault: with no --kinds, tiers graphs what
// resume walks, Kustomizations and HelmReleases, in every format; --kinds
// ks narrows it to the Kustomizations, and a checkout without HelmReleases
// prints what it printed when Kustomizations were the default.
func TestTiersShowsHelmReleasesByDefault(t *testing.T) {
	helm := "../../examples/helm/clusters/prod"
	for _, format := range []string{"text", "json", "yaml", "dot", "mermaid", "shell"} {
		both, errOut, code := runOffline(t, "tiers", "--path", helm, "--kinds", "ks,hr", "-o", format, "--no-color")
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", format, code, errOut)
		}
		def, errOut, code := runOffline(t, "tiers", "--path", helm, "-o", format, "--no-color")
		if code != ExitOK || def != both {
			t.Errorf("%s: exit %d (%s); with no --kinds the output differs from --kinds ks,hr:\n%s", format, code, errOut, def)
		}
	}
	out, _, _ := runOffline(t, "tiers", "--path", helm, "-o", "json")
	var doc struct {
		Tiers []struct {
			Nodes []struct{ Kind, Namespace, Name string } `json:"nodes"`
		} `json:"tiers"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var hrs []string
	for _, tier := range doc.Tiers {
		for _, n := range tier.Nodes {
			if n.Kind == "HelmRelease" {
				hrs = append(hrs, n.Namespace+"/"+n.Name)
			}
		}
	}
	if got, want := strings.Join(hrs, " "), "infra/cert-manager infra/ingress-nginx web/podinfo"; got != want {
		t.Errorf("tiers with no flags lists HelmReleases %q, want %q", got, want)
	}
	ks, _, _ := runOffline(t, "tiers", "--path", helm, "--kinds", "ks", "--no-color")
	if strings.Contains(ks, "HelmRelease") || strings.Contains(ks, "podinfo") || !strings.Contains(ks, "flux-system/apps") {
		t.Errorf("--kinds ks: want the Kustomizations alone:\n%s", ks)
	}
	homelab := "../../examples/homelab/clusters/prod"
	plain, _, _ := runOffline(t, "tiers", "--path", homelab, "--no-color")
	if onlyKs, _, _ := runOffline(t, "tiers", "--path", homelab, "--kinds", "ks", "--no-color"); plain != onlyKs || strings.Contains(plain, "KIND") {
		t.Errorf("a checkout without HelmReleases: the default output differs from --kinds ks, or has a KIND column:\n%s", plain)
	}
}

// TestTiersTextForScripts: stdout holds the rows alone, each complete, so
// that awk's fields are the same columns in every row; the footer goes to
// stderr, and -q silences it; --no-headers drops the header; -o table is
// -o text.
func TestTiersTextForScripts(t *testing.T) {
	homelab := "../../examples/homelab/clusters/prod"
	out, errOut, code := runOffline(t, "tiers", "--path", homelab, "--no-color")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "8 nodes in 5 tiers") || strings.Contains(out, "nodes in") {
		t.Errorf("the footer belongs on stderr:\nstdout:\n%s\nstderr:\n%s", out, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 9 || !strings.HasPrefix(lines[0], "TIER") {
		t.Fatalf("want a header and 8 rows:\n%s", out)
	}
	for _, line := range lines[1:] {
		fields := strings.Fields(line)
		if len(fields) != 4 || !strings.Contains(fields[1], "/") {
			t.Errorf("row %q: want TIER NAME PATH DEPENDS-ON, the name second", line)
		}
	}
	quiet, quietErr, _ := runOffline(t, "tiers", "--path", homelab, "--no-color", "-q")
	if quiet != out || quietErr != "" {
		t.Errorf("-q: stdout changed or stderr not empty: %q", quietErr)
	}
	bare, _, _ := runOffline(t, "tiers", "--path", homelab, "--no-color", "--no-headers")
	if want := strings.Join(lines[1:], "\n") + "\n"; bare != want {
		t.Errorf("--no-headers:\n%s\nwant the rows alone:\n%s", bare, want)
	}
	table, _, code := runOffline(t, "tiers", "--path", homelab, "--no-color", "-o", "table")
	if code != ExitOK || table != out {
		t.Errorf("-o table: exit %d, want the text table:\n%s", code, table)
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

// TestTiersCyclePicture: a graph refused for a cycle (exit 4) still gets
// its picture with -o dot and -o mermaid, the cycle's nodes and edges in
// red, on stdout, and the error line on stderr; the data formats print
// nothing.
func TestTiersCyclePicture(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"standup.yaml":  "{}\n",
		"empty/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: default\n",
	}
	ks := func(name string, deps ...string) string {
		s := "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: " + name + "\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./empty\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
		if len(deps) > 0 {
			s += "  dependsOn:\n"
			for _, d := range deps {
				s += "    - name: " + d + "\n"
			}
		}
		return s
	}
	files["base.yaml"] = ks("base")
	files["a.yaml"] = ks("a", "b", "base")
	files["b.yaml"] = ks("b", "a")
	files["top.yaml"] = ks("top", "a")
	for name, content := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const cycle = "flux-system/a -> flux-system/b -> flux-system/a"
	for format, red := range map[string][]string{
		"dot": {
			`"Kustomization/flux-system/a" -> "Kustomization/flux-system/b" [color="#c62828", penwidth=2];`,
			`"Kustomization/flux-system/b" -> "Kustomization/flux-system/a" [color="#c62828", penwidth=2];`,
			`"Kustomization/flux-system/top" -> "Kustomization/flux-system/a";`,
		},
		"mermaid": {
			"ks_flux_system__a --> ks_flux_system__b\n",
			"ks_flux_system__b --> ks_flux_system__a\n",
			"class ks_flux_system__b,ks_flux_system__a cycle\n",
			"linkStyle 2,3 stroke:#c62828",
		},
	} {
		t.Run(format, func(t *testing.T) {
			out, errOut, code := runOffline(t, "tiers", "--path", dir, "-o", format)
			if code != ExitInvalidGraph || !strings.Contains(errOut, cycle) {
				t.Fatalf("exit %d, stderr %q; want 4 and the cycle", code, errOut)
			}
			for _, want := range red {
				if !strings.Contains(out, want) {
					t.Errorf("picture lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(errOut, "digraph") || strings.Contains(errOut, "flowchart") {
				t.Errorf("the picture went to stderr: %q", errOut)
			}
		})
	}
	for _, format := range []string{"text", "json", "shell"} {
		if out, _, code := runOffline(t, "tiers", "--path", dir, "-o", format); code != ExitInvalidGraph || out != "" {
			t.Errorf("-o %s: exit %d, stdout %q; want 4 and nothing", format, code, out)
		}
	}
}
