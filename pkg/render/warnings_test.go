package render

import (
	"slices"
	"testing"
)

// TestShapeOfTheRendersWarnings: every kind of warning the render writes,
// as it writes them (the corpus's and the fixtures'), split into its
// subject, what the subject is, and its shape, each particular left out.
func TestShapeOfTheRendersWarnings(t *testing.T) {
	tests := []struct {
		warning, subject, noun, shape string
	}{
		{
			"Kustomization/dbms/pgadmin: substituteFrom Secret/dbms/cluster-secrets is SOPS-encrypted; its variables are not available offline",
			"Kustomization/dbms/pgadmin", "Kustomization", "substituteFrom Secret/… is SOPS-encrypted; its variables are not available offline",
		},
		{
			"Kustomization/blog/hugo: substituteFrom Secret/blog/cluster-secrets not found in the repository",
			"Kustomization/blog/hugo", "Kustomization", "substituteFrom Secret/… not found in the repository",
		},
		{
			"Kustomization/argo/argocd: variable ${CLUSTER_DOMAIN} has no value offline (it may come from Secret/argo/cluster-secrets); shown as ${CLUSTER_DOMAIN} here",
			"Kustomization/argo/argocd", "Kustomization", "variable ${…} has no value offline (it may come from Secret/…); shown as ${…} here",
		},
		// Two forms of one variable, two sources alike: one particular each.
		{
			"Kustomization/flux-system/apps: variable ${SECRET_DOMAIN} has no value offline (it may come from Secret/flux-system/a, Secret/flux-system/b); shown as ${SECRET_DOMAIN/./-}, ${SECRET_DOMAIN} here",
			"Kustomization/flux-system/apps", "Kustomization", "variable ${…} has no value offline (it may come from Secret/…); shown as ${…} here",
		},
		{
			"Kustomization/flux-system/cluster-apps: variable ${TZ} has no value offline (it may come from ConfigMap/flux-system/cluster-settings, Secret/flux-system/cluster-secrets); shown as ${TZ} here",
			"Kustomization/flux-system/cluster-apps", "Kustomization", "variable ${…} has no value offline (it may come from ConfigMap/…, Secret/…); shown as ${…} here",
		},
		{
			"Kustomization/default/echo: variable ${SECRET_DOMAIN} is not defined: Flux would substitute an empty string; shown as ${SECRET_DOMAIN} here",
			"Kustomization/default/echo", "Kustomization", "variable ${…} is not defined: Flux would substitute an empty string; shown as ${…} here",
		},
		{
			"Kustomization/apps/dev-team: builds from GitRepository/apps/dev-team, not from the source of the path; not rendered",
			"Kustomization/apps/dev-team", "Kustomization", "builds from GitRepository/…, not from the source of the path; not rendered",
		},
		{
			"Kustomization/flux-system/issuer (clusters/c/ks.yaml): spec.sourceRef is missing; the API server rejects the object (the field is required), so the apply of the Kustomization that applies it fails; not rendered",
			"Kustomization/flux-system/issuer (clusters/c/ks.yaml)", "Kustomization", "spec.sourceRef is missing; the API server rejects the object (the field is required), so the apply of the Kustomization that applies it fails; not rendered",
		},
		{
			"kubernetes/apps/base/dbms/dragonfly/kustomization.yaml: remote resource https://raw.githubusercontent.com/dragonflydb/dragonfly-operator/v1.1.11/manifests/crd.yaml is not fetched offline; skipped",
			"kubernetes/apps/base/dbms/dragonfly/kustomization.yaml", "file", "remote resource … is not fetched offline; skipped",
		},
		{
			"cluster/crds/kyverno/kustomization.yaml: remote resource github.com/kyverno/kyverno//config/crds?ref=kyverno-chart-v2.5.2 is not fetched offline; skipped",
			"cluster/crds/kyverno/kustomization.yaml", "file", "remote resource … is not fetched offline; skipped",
		},
		{
			"cluster/apps/flux-system/dashboard/kustomization.yaml: remote file https://raw.githubusercontent.com/fluxcd/flux2/v0.31.4/manifests/monitoring/monitoring-config/dashboards/logs.json (configMapGenerator flux-logs-dashboard) is not fetched offline; skipped",
			"cluster/apps/flux-system/dashboard/kustomization.yaml", "file", "remote file … (configMapGenerator …) is not fetched offline; skipped",
		},
		{
			"kubernetes/main/apps/vpn/downloads-gateway/app/secret.sops.yaml: Secret/vpn/downloads-gateway-vpnconfig is SOPS-encrypted; skipped (not decrypted offline)",
			"kubernetes/main/apps/vpn/downloads-gateway/app/secret.sops.yaml", "file", "Secret/… is SOPS-encrypted; skipped (not decrypted offline)",
		},
		{
			"kubernetes/main/components/common/vars/cluster-secrets.sops.yaml: Secret/cluster-secrets (in 23 namespaces) is SOPS-encrypted; skipped (not decrypted offline)",
			"kubernetes/main/components/common/vars/cluster-secrets.sops.yaml", "file", "Secret/… (in … namespaces) is SOPS-encrypted; skipped (not decrypted offline)",
		},
		{
			"cluster/apps/downloads/radarr/kustomization.yaml: patchesStrategicMerge is deprecated (kustomize): use patches",
			"cluster/apps/downloads/radarr/kustomization.yaml", "file", "patchesStrategicMerge is deprecated (kustomize): use patches",
		},
		{
			"clusters/test/tiers.yaml: Kustomization/orphan has no namespace; kustomize-controller would fail to apply it (namespace not specified); skipped",
			"clusters/test/tiers.yaml", "file", "Kustomization/… has no namespace; kustomize-controller would fail to apply it (namespace not specified); skipped",
		},
		{
			"Kustomization/flux-system/app-${APP}: apps/ks.yaml (applied by Kustomization/flux-system/a) and apps-b/ks.yaml (applied by Kustomization/flux-system/b) are one node here only because ${APP} has no value offline",
			"Kustomization/flux-system/app-${APP}", "Kustomization", "… (applied by Kustomization/…) and … (applied by Kustomization/…) are one node here only because ${…} has no value offline",
		},
		// No subject: the warning alone.
		{"a line kustomize printed (kustomize)", "", "", "a line kustomize printed (kustomize)"},
	}
	for _, tt := range tests {
		subject, noun, shape := shapeOf(tt.warning)
		if subject != tt.subject || noun != tt.noun || shape != tt.shape {
			t.Errorf("shapeOf(%q)\n = %q, %q, %q\nwant %q, %q, %q", tt.warning, subject, noun, shape, tt.subject, tt.noun, tt.shape)
		}
	}
}

// TestGroupWarnings: warnings of one shape and one kind of subject are a
// group, in the order of its first warning, each subject once; another
// kind of subject, or no subject, is another group.
func TestGroupWarnings(t *testing.T) {
	warnings := []string{
		"Kustomization/a/x: substituteFrom Secret/a/vars not found in the repository",
		"Kustomization/a/x: variable ${A} has no value offline (it may come from Secret/a/vars); shown as ${A} here",
		"Kustomization/a/x: variable ${B} has no value offline (it may come from Secret/a/vars); shown as ${B} here",
		"Kustomization/b/y: substituteFrom Secret/b/vars not found in the repository",
		"Kustomization/b/y: variable ${A} has no value offline (it may come from Secret/b/vars); shown as ${A} here",
		"HelmRelease/c/z: substituteFrom Secret/c/vars not found in the repository",
		"a line kustomize printed (kustomize)",
		"another line kustomize printed (kustomize)",
	}
	groups := GroupWarnings(warnings)
	type got struct {
		noun, shape string
		subjects    []string
		warnings    int
	}
	want := []got{
		{"Kustomization", "substituteFrom Secret/… not found in the repository", []string{"Kustomization/a/x", "Kustomization/b/y"}, 2},
		{"Kustomization", "variable ${…} has no value offline (it may come from Secret/…); shown as ${…} here", []string{"Kustomization/a/x", "Kustomization/b/y"}, 3},
		{"HelmRelease", "substituteFrom Secret/… not found in the repository", []string{"HelmRelease/c/z"}, 1},
		{"", "a line kustomize printed (kustomize)", nil, 1},
		{"", "another line kustomize printed (kustomize)", nil, 1},
	}
	if len(groups) != len(want) {
		t.Fatalf("%d groups, want %d: %+v", len(groups), len(want), groups)
	}
	n := 0
	for i, g := range groups {
		w := want[i]
		if g.Noun != w.noun || g.Shape != w.shape || !slices.Equal(g.Subjects, w.subjects) || len(g.Warnings) != w.warnings {
			t.Errorf("group %d = %q %q %q (%d warnings), want %q %q %q (%d)", i, g.Noun, g.Shape, g.Subjects, len(g.Warnings), w.noun, w.shape, w.subjects, w.warnings)
		}
		n += len(g.Warnings)
	}
	if n != len(warnings) {
		t.Errorf("the groups hold %d warnings, want every one of the %d", n, len(warnings))
	}
}
