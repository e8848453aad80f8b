package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const operatorFixture = "testdata/flux-operator"

// operatorRepo copies the flux-operator fixture, without the files of
// drop, with each sets/ file of add copied to clusters/c.
func operatorRepo(t *testing.T, drop []string, add ...string) string {
	t.Helper()
	dir := t.TempDir()
	copyTree(t, operatorFixture, dir)
	for _, f := range drop {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range add {
		data, err := os.ReadFile(filepath.Join(operatorFixture, "sets", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "clusters/c", f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestFluxInstanceEntryPath: a ClusterIssuer beside the cert-manager
// HelmRelease at a FluxInstance entry path is an error. The FluxInstance's
// sync is a root, its entry path audited as a flux-system Kustomization's
// would be, from the path or from the FluxInstance's folder: the
// ClusterIssuer in the chart's pass deadlocks the cold start. The
// Operator's own kinds are there before the sync, so the FluxInstance is
// no finding. With a flux-system Kustomization file instead of the
// FluxInstance, the same deadlock; without the ClusterIssuer, no finding
// in either layout. Before #36 the entry path under a FluxInstance was not
// audited: 0 errors.
func TestFluxInstanceEntryPath(t *testing.T) {
	instance, issuer := "clusters/c/flux-system/flux-instance.yaml", "clusters/c/cluster-issuer.yaml"
	gotk := operatorRepo(t, []string{instance}, "gotk-sync.yaml")
	tests := []struct {
		name, root, path string
		deadlock         bool
	}{
		{"FluxInstance, its entry path", operatorFixture, "clusters/c", true},
		{"FluxInstance, its folder", operatorFixture, "clusters/c/flux-system", true},
		{"flux-system Kustomization", gotk, "clusters/c", true},
		{"FluxInstance, no ClusterIssuer", operatorRepo(t, []string{issuer}), "clusters/c", false},
		{"flux-system Kustomization, no ClusterIssuer", operatorRepo(t, []string{instance, issuer}, "gotk-sync.yaml"), "clusters/c", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := auditDir(t, tt.root, tt.path)
			if r.Kustomizations != 1 {
				t.Errorf("%d Kustomizations audited, want the entry path's", r.Kustomizations)
			}
			audited := false
			for _, u := range r.Kinds {
				if u.Kind == "HelmRelease" && u.Kustomization.String() == "Kustomization/flux-system/flux-system" {
					audited = true
				}
			}
			if !audited {
				t.Errorf("the entry path's HelmRelease is not among the kinds audited: %+v", r.Kinds)
			}
			if !tt.deadlock {
				if len(r.Findings) != 0 || r.Errors() != 0 {
					t.Errorf("findings %+v, want none", r.Findings)
				}
				return
			}
			if len(r.Findings) != 1 || r.Errors() != 1 {
				t.Fatalf("findings %+v, want the one deadlock", r.Findings)
			}
			f, h := r.Findings[0], r.Findings[0].Places[0]
			if f.Code != CodeSecondOrderSamePass || f.Kind != (GroupKind{Group: "cert-manager.io", Kind: "ClusterIssuer"}) ||
				h.Kustomization.String() != "Kustomization/flux-system/flux-system" || h.File != issuer {
				t.Errorf("finding %+v at %+v", f, h)
			}
			operator := false
			for _, u := range r.Kinds {
				if u.Group == "fluxcd.controlplane.io" {
					operator = true
					if u.Origin != OriginBootstrap || !strings.Contains(u.Evidence, "FluxInstance flux-system/flux") {
						t.Errorf("%s: %+v, want the FluxInstance's bootstrap", u.Kind, u)
					}
				}
			}
			if operator == (tt.root == gotk) {
				t.Errorf("the Operator's kinds are applied: %v", operator)
			}
		})
	}
}

// TestResourceSetApplies: a ResourceSet is an applier of its own: the
// chart's HelmRelease and a ClusterIssuer it generates together deadlock
// it, as in a Kustomization. A dependsOn on the ClusterIssuer CRD with
// ready: true guards the ResourceSet's ClusterIssuers from the chart a
// Kustomization applies beside it; without ready, the Operator only waits
// for the CRD to exist, and the ClusterIssuers are a MISSING_EDGE.
func TestResourceSetApplies(t *testing.T) {
	issuer := []string{"clusters/c/cluster-issuer.yaml"}
	r := auditDir(t, operatorRepo(t, append(issuer, "clusters/c/cert-manager.yaml"), "cert-manager.yaml"), "clusters/c")
	if len(r.Findings) != 1 || r.Findings[0].Code != CodeSecondOrderSamePass || r.Findings[0].Places[0].Kustomization.String() != "ResourceSet/flux-system/cert-manager" {
		t.Errorf("same pass in a ResourceSet: findings %+v", r.Findings)
	}

	r = auditDir(t, operatorRepo(t, issuer, "issuers.yaml"), "clusters/c")
	if len(r.Findings) != 0 {
		t.Errorf("gated: findings %+v, want none", r.Findings)
	}
	for _, u := range r.Kinds {
		if u.Kind == "ClusterIssuer" && (u.Objects != 2 || !strings.Contains(u.Evidence, "the dependsOn of ResourceSet/flux-system/issuers on CustomResourceDefinition/clusterissuers.cert-manager.io")) {
			t.Errorf("gated ClusterIssuer: %+v", u)
		}
	}

	dir := operatorRepo(t, issuer, "issuers.yaml")
	set := filepath.Join(dir, "clusters/c/issuers.yaml")
	data, _ := os.ReadFile(set)
	if err := os.WriteFile(set, []byte(strings.Replace(string(data), "      ready: true\n", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r = auditDir(t, dir, "clusters/c")
	if len(r.Findings) != 1 || r.Findings[0].Code != CodeMissingEdge || r.Findings[0].Severity != SeverityWarning {
		t.Errorf("exists only: findings %+v, want a MISSING_EDGE warning", r.Findings)
	}
}

// TestResourceSetCRDDependsOn: a ResourceSet's dependsOn on a CRD is a
// guard for the origins model when the Operator waits for the CRD to be
// ready: ready: true (kstatus: Established), or ready: true with a
// readyExpr, which replaces that check. A readyExpr without ready: true
// is never evaluated (api/v1 Dependency): the Operator waits for the CRD
// to exist only, so the ResourceSet's ClusterIssuers are a MISSING_EDGE,
// as with no condition at all (the render notes the readyExpr: pkg/render's
// TestResourceSetNodes).
func TestResourceSetCRDDependsOn(t *testing.T) {
	const cond = "      ready: true\n"
	tests := []struct {
		name, replace string
		guard         bool
	}{
		{"ready: true", cond, true},
		{"ready: true and a readyExpr", cond + "      readyExpr: \"status.conditions.exists(c, c.type == 'Established' && c.status == 'True')\"\n", true},
		{"a readyExpr alone", "      readyExpr: \"status.conditions.exists(c, c.type == 'Established' && c.status == 'True')\"\n", false},
		{"neither", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := operatorRepo(t, []string{"clusters/c/cluster-issuer.yaml"}, "issuers.yaml")
			set := filepath.Join(dir, "clusters/c/issuers.yaml")
			data, err := os.ReadFile(set)
			if err != nil || !strings.Contains(string(data), cond) {
				t.Fatalf("issuers.yaml (%v) has no %q", err, cond)
			}
			if err := os.WriteFile(set, []byte(strings.Replace(string(data), cond, tt.replace, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			r := auditDir(t, dir, "clusters/c")
			if tt.guard {
				if len(r.Findings) != 0 {
					t.Errorf("findings %+v, want none", r.Findings)
				}
				for _, u := range r.Kinds {
					if u.Kind == "ClusterIssuer" && !strings.Contains(u.Evidence, "the dependsOn of ResourceSet/flux-system/issuers on CustomResourceDefinition/clusterissuers.cert-manager.io") {
						t.Errorf("guarded ClusterIssuer: %+v", u)
					}
				}
				return
			}
			if len(r.Findings) != 1 || r.Findings[0].Code != CodeMissingEdge || r.Findings[0].Severity != SeverityWarning ||
				r.Findings[0].Places[0].Kustomization.String() != "ResourceSet/flux-system/issuers" {
				t.Errorf("findings %+v, want a MISSING_EDGE warning in the ResourceSet", r.Findings)
			}
		})
	}
}
