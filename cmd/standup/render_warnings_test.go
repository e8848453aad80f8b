package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRenderWarningsGroupedOnStderr: issue 35. audit and tiers --path print
// a line for each kind of render warning, with its count and its first
// places, not one line each; the audit's summary counts as many; -v lists
// every warning and -q none.
func TestRenderWarningsGroupedOnStderr(t *testing.T) {
	var list string
	files := map[string]string{}
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		list += auditKS(name) + "  postBuild: {substituteFrom: [{kind: Secret, name: vars}]}\n"
		files["apps/"+name+"/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + ", namespace: default}\ndata: {host: \"${DOMAIN}\"}\n"
	}
	path := filepath.Join(auditRepo(t, list, files), "clusters", "c")
	grouped := []string{
		"warning: 5 Kustomizations: substituteFrom Secret/… not found in the repository (Kustomization/flux-system/a, Kustomization/flux-system/b, Kustomization/flux-system/c, and 2 more; -v lists all)",
		"warning: 5 Kustomizations: variable ${…} has no value offline (it may come from Secret/…); shown as ${…} here (Kustomization/flux-system/a, Kustomization/flux-system/b, Kustomization/flux-system/c, and 2 more; -v lists all)",
	}
	warnings := func(stderr string) []string {
		var out []string
		for line := range strings.Lines(stderr) {
			if strings.HasPrefix(line, "warning: ") {
				out = append(out, strings.TrimSuffix(line, "\n"))
			}
		}
		return out
	}
	for _, command := range []string{"audit", "tiers"} {
		t.Run(command, func(t *testing.T) {
			out, errOut, code := runOffline(t, command, "--path", path, "--no-color")
			if code != ExitOK {
				t.Fatalf("exit %d: %s%s", code, out, errOut)
			}
			if got := warnings(errOut); strings.Join(got, "\n") != strings.Join(grouped, "\n") {
				t.Errorf("stderr warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(grouped, "\n"))
			}
			if command == "audit" && !strings.Contains(out, "in 6 Kustomizations, 11 objects (clusters/c); 10 render warnings\n") {
				t.Errorf("the summary does not count the 10 render warnings:\n%s", out)
			}
			_, errOut, _ = runOffline(t, command, "--path", path, "-v")
			if got := warnings(errOut); len(got) != 10 || !strings.Contains(errOut, "warning: Kustomization/flux-system/e: substituteFrom Secret/flux-system/vars not found in the repository") {
				t.Errorf("-v: %d warning lines, want all 10:\n%s", len(got), errOut)
			}
			if _, errOut, _ = runOffline(t, command, "--path", path, "-q"); len(warnings(errOut)) != 0 {
				t.Errorf("-q: %s", errOut)
			}
		})
	}
}
