package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// operatorAuditFixture is pkg/audit's Flux Operator fixture: a
// FluxInstance syncing clusters/c, where cert-manager's HelmRelease and a
// ClusterIssuer sit side by side.
const operatorAuditFixture = "../../pkg/audit/testdata/flux-operator"

// operatorAuditRepo copies the fixture without the files of drop, and
// with the flux-system Kustomization file (sets/gotk-sync.yaml) in
// clusters/c when gotk is set.
func operatorAuditRepo(t *testing.T, gotk bool, drop ...string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(operatorAuditFixture)); err != nil {
		t.Fatal(err)
	}
	for _, f := range drop {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	if gotk {
		data, err := os.ReadFile(filepath.Join(dir, "sets", "gotk-sync.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "clusters", "c", "gotk-sync.yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestAuditFluxInstanceEntryPath: standup audit says a ClusterIssuer
// beside the cert-manager HelmRelease at a FluxInstance entry path is an
// error (exit 1), from the entry path or the FluxInstance's folder, as it
// says with a flux-system Kustomization file instead; without the
// ClusterIssuer, no finding and exit 0 in both layouts. The issue's
// reproduction: 0 errors without a flux-system Kustomization file, 1 with.
func TestAuditFluxInstanceEntryPath(t *testing.T) {
	const instance, issuer = "clusters/c/flux-system/flux-instance.yaml", "clusters/c/cluster-issuer.yaml"
	deadlock := []string{"SECOND_ORDER_SAME_PASS error flux-system ClusterIssuer/selfsigned"}
	tests := []struct {
		name, root, path string
		code             int
		want             []string
	}{
		{"FluxInstance, its entry path", operatorAuditRepo(t, false), "clusters/c", ExitFailure, deadlock},
		{"FluxInstance, its folder", operatorAuditRepo(t, false), "clusters/c/flux-system", ExitFailure, deadlock},
		{"flux-system Kustomization", operatorAuditRepo(t, true, instance), "clusters/c", ExitFailure, deadlock},
		{"FluxInstance, no ClusterIssuer", operatorAuditRepo(t, false, issuer), "clusters/c", ExitOK, nil},
		{"flux-system Kustomization, no ClusterIssuer", operatorAuditRepo(t, true, instance, issuer), "clusters/c", ExitOK, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, code := auditJSON(t, "--path", filepath.Join(tt.root, tt.path), "--repo-root", tt.root)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			if got := hazardLines(doc.places()); !slices.Equal(got, tt.want) {
				t.Errorf("hazards:\n got %q\nwant %q", got, tt.want)
			}
			if doc.Summary.Kustomizations != 1 || doc.Summary.Objects == 0 {
				t.Errorf("summary %+v: want the entry path's objects audited", doc.Summary)
			}
		})
	}
}

// TestAuditFluxOperatorFleet: on d2-fleet's staging cluster the audit
// covers the entry path's own objects (the FluxInstance, the flux-operator
// ResourceSet, the runtime-info ConfigMap, applied by the Kustomization
// the FluxInstance syncs with) and the ResourceSets' generated objects,
// and finds nothing: its layout converges on a cold start.
func TestAuditFluxOperatorFleet(t *testing.T) {
	doc, code := auditJSON(t, "--path", d2Fleet+"/clusters/staging", "--repo-root", d2Fleet)
	if code != ExitOK || len(doc.Findings) != 0 {
		t.Errorf("exit %d, findings %+v; want none", code, doc.Findings)
	}
	appliers := map[string][]string{}
	for _, k := range doc.Kinds {
		appliers[k.Kustomization.String()] = append(appliers[k.Kustomization.String()], k.Kind)
	}
	for applier, kinds := range map[string][]string{
		"Kustomization/flux-system/flux-system": {"ConfigMap", "FluxInstance", "ResourceSet"},
		"Kustomization/flux-system/tenants":     {"ResourceSet"},
		"ResourceSet/flux-system/flux-operator": {"HelmRelease", "OCIRepository"},
		"ResourceSet/flux-system/infra":         {"Kustomization", "Namespace", "OCIRepository"},
		"ResourceSet/flux-system/apps":          {"Kustomization", "Namespace", "OCIRepository"},
		"ResourceSet/flux-system/policies":      {"ConfigMap", "ValidatingAdmissionPolicy"},
	} {
		for _, kind := range kinds {
			if !slices.Contains(appliers[applier], kind) {
				t.Errorf("%s: kinds audited %q lack %s", applier, appliers[applier], kind)
			}
		}
	}
	if doc.Summary.Kustomizations != len(appliers) {
		t.Errorf("summary: %d appliers audited, the kinds name %d: %v", doc.Summary.Kustomizations, len(appliers), appliers)
	}
	out, _, _ := runOffline(t, "audit", "--path", d2Fleet+"/clusters/staging", "--repo-root", d2Fleet, "--no-color")
	if !strings.Contains(out, "FluxInstance") && !strings.Contains(out, "flux-instance.yaml") {
		t.Errorf("text output does not name the FluxInstance's bootstrap:\n%s", out)
	}
}
