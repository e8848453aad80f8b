package render

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/pkg/tiers"
)

// field reads a string field of the rendered object kind/namespace/name of
// the Kustomization id.
func field(t *testing.T, res *Result, id tiers.ID, kind, namespace, name string, path ...string) string {
	t.Helper()
	for _, m := range res.Rendered[id] {
		u := m.Object
		if u.GetKind() == kind && u.GetNamespace() == namespace && u.GetName() == name {
			v, found, err := unstructured.NestedString(u.Object, path...)
			if err != nil || !found {
				t.Fatalf("%s/%s/%s has no string at %v (%v)", kind, namespace, name, path, err)
			}
			return v
		}
	}
	t.Fatalf("%s does not render %s/%s/%s; it renders %q", id, kind, namespace, name, rendered(res, id))
	return ""
}

// TestSemanticsClusterApps holds the render of testdata/cluster-apps (a
// home-ops layout: overlays, substituteFrom, SOPS, HelmReleases) to what
// Flux would apply.
func TestSemanticsClusterApps(t *testing.T) {
	apps, err := fixture(t, "cluster-apps", "kubernetes/flux/cluster", KindKustomization, KindHelmRelease)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"namespace from the parent overlay", func(t *testing.T) {
			echo := objectByID(t, apps, ksID("default", "echo"))
			if echo.AppliedBy == nil || *echo.AppliedBy != ksID("flux-system", "cluster-apps") {
				t.Errorf("echo applied by %v, want cluster-apps", echo.AppliedBy)
			}
			if echo.File != "kubernetes/apps/default/echo/ks.yaml" {
				t.Errorf("echo file %q", echo.File)
			}
		}},
		{"a dependency without namespace defaults to the dependent's", func(t *testing.T) {
			got := objectByID(t, apps, ksID("database", "cloudnative-pg-cluster")).DependsOn
			if len(got) != 1 || got[0].ID != ksID("database", "cloudnative-pg") {
				t.Errorf("dependsOn %v", got)
			}
		}},
		{"substituteFrom a ConfigMap rendered by another Kustomization", func(t *testing.T) {
			cluster := ksID("database", "cloudnative-pg-cluster")
			if got := field(t, apps, cluster, "Cluster", "database", "postgres", "spec", "postgresql", "parameters", "timezone"); got != "Europe/Paris" {
				t.Errorf("timezone %q, want Europe/Paris", got)
			}
		}},
		{"spec.patches of the parent reach child Kustomizations", func(t *testing.T) {
			def := apps.Definitions[ksID("default", "echo")].Object
			refs, _, _ := unstructured.NestedSlice(def.Object, "spec", "postBuild", "substituteFrom")
			if len(refs) != 1 {
				t.Errorf("substituteFrom %v, want the one the parent patched in", refs)
			}
		}},
		{"SOPS documents are skipped with a note", func(t *testing.T) {
			if !hasWarning(apps, "kubernetes/flux/vars/cluster-secrets.sops.yaml", "Secret/flux-system/cluster-secrets is SOPS-encrypted") {
				t.Errorf("no SOPS note in %q", apps.Warnings)
			}
			for _, m := range apps.Rendered[ksID("flux-system", "cluster-vars")] {
				if m.Object.GetKind() == "Secret" {
					t.Errorf("the encrypted Secret was rendered: %s", m.File)
				}
			}
			if !hasWarning(apps, "cluster-apps: substituteFrom Secret/flux-system/cluster-secrets is SOPS-encrypted") {
				t.Errorf("no note on the encrypted substituteFrom in %q", apps.Warnings)
			}
		}},
		{"an unresolved variable is left as-is with a warning", func(t *testing.T) {
			hr := findRendered(t, apps, ksID("default", "echo"), "HelmRelease", "default", "echo")
			hosts, _, _ := unstructured.NestedSlice(hr.Object, "spec", "values", "ingress", "app", "hosts")
			if len(hosts) != 1 || hosts[0].(map[string]any)["host"] != "{{ .Release.Name }}.${SECRET_DOMAIN}" {
				t.Errorf("hosts %v, want the token left as-is", hosts)
			}
			if !hasWarning(apps, "Kustomization/default/echo: variable ${SECRET_DOMAIN} is not defined: Flux would substitute an empty string; shown as ${SECRET_DOMAIN} here") {
				t.Errorf("no warning in %q", apps.Warnings)
			}
		}},
		{"HelmRelease nodes", func(t *testing.T) {
			hr := objectByID(t, apps, hrID("default", "echo"))
			if hr.AppliedBy == nil || *hr.AppliedBy != ksID("default", "echo") {
				t.Errorf("applied by %v", hr.AppliedBy)
			}
			if hr.SourceRef != (tiers.ID{Kind: "OCIRepository", Namespace: "default", Name: "app-template"}) {
				t.Errorf("source %v", hr.SourceRef)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.check)
	}
}

// TestSemanticsFeatures holds the render of testdata/features to what Flux
// would apply: the generator's spec fields, components and substitution.
func TestSemanticsFeatures(t *testing.T) {
	features, err := fixture(t, "features", "clusters/test")
	if err != nil {
		t.Fatal(err)
	}
	root, app, base := ksID("flux-system", "root"), ksID("flux-system", "app"), ksID("flux-system", "base-test")
	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"spec fields of the generator", func(t *testing.T) {
			if got := field(t, features, base, "Deployment", "team-a", "p-web-s", "metadata", "labels", "region"); got != "eu-west" {
				t.Errorf("patched label %q, want eu-west (stringData over data)", got)
			}
			dep := findRendered(t, features, base, "Deployment", "team-a", "p-web-s")
			containers, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
			if image := containers[0].(map[string]any)["image"]; image != "nginx:v1.27.0" {
				t.Errorf("image %v, want nginx:v1.27.0 (images + Secret data)", image)
			}
			if got := rendered(features, base); !slices.Contains(got, "ConfigMap/team-a/p-dashboards-s components/extra/dashboards.yaml") {
				t.Errorf("component not rendered: %q", got)
			}
			if got := rendered(features, base); !slices.Contains(got, "ConfigMap/team-a/p-settings-s base/kustomization.yaml") {
				t.Errorf("generated ConfigMap not traced to its kustomization.yaml: %q", got)
			}
		}},
		{"no postBuild means no substitution", func(t *testing.T) {
			if got := field(t, features, base, "ConfigMap", "team-a", "p-dashboards-s", "data", "team"); got != "${TEAM}" {
				t.Errorf("team %q, want the literal token", got)
			}
		}},
		{"substitution rules", func(t *testing.T) {
			cm := func(key string) string {
				return field(t, features, app, "ConfigMap", "app", "api-config", "data", key)
			}
			if got := cm("level"); got != "debug" {
				t.Errorf("default %q, want debug", got)
			}
			if got := cm("script"); got != "echo ${HOME}" {
				t.Errorf("escaped %q, want echo ${HOME}", got)
			}
			if got := cm("missing"); got != "${UNDEFINED_VAR}" {
				t.Errorf("undefined %q, want it left as-is", got)
			}
			if !hasWarning(features, "Kustomization/flux-system/app: variable ${UNDEFINED_VAR} is not defined") {
				t.Errorf("no warning for the undefined variable in %q", features.Warnings)
			}
			if got := field(t, features, app, "Deployment", "app", "api", "metadata", "annotations", "homelab.example/raw"); got != "${NOT_SUBSTITUTED}" {
				t.Errorf("disabled object substituted: %q", got)
			}
		}},
		{"targetNamespace and substitution in names", func(t *testing.T) {
			if got := rendered(features, root); !slices.Contains(got, "Kustomization/flux-system/base-test clusters/test/tiers.yaml") {
				t.Errorf("root renders %q", got)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.check)
	}
}

// TestSemanticsFeaturesSources holds the render of testdata/features to
// what Flux would apply: which Kustomizations are rendered, from which
// source, and what is noted.
func TestSemanticsFeaturesSources(t *testing.T) {
	features, err := fixture(t, "features", "clusters/test")
	if err != nil {
		t.Fatal(err)
	}
	app := ksID("flux-system", "app")
	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"the root Kustomization's versions replace Path's", func(t *testing.T) {
			if _, raw := features.Rendered[ksID("flux-system", "base-${ENV}")]; raw {
				t.Error("the unsubstituted Kustomization from Path was built")
			}
			if got := objectByID(t, features, app).Path; got != "./app/test" {
				t.Errorf("app path %q, want ./app/test", got)
			}
		}},
		{"a foreign source is a node but is not rendered", func(t *testing.T) {
			tenant := ksID("tenants", "tenant")
			objectByID(t, features, tenant)
			if _, ok := features.Rendered[tenant]; ok {
				t.Error("tenant was rendered")
			}
			if !hasWarning(features, "Kustomization/tenants/tenant: builds from GitRepository/tenants/tenant-repo") {
				t.Errorf("no warning in %q", features.Warnings)
			}
		}},
		{"a Flux object without namespace is skipped with a note", func(t *testing.T) {
			if !hasWarning(features, "Kustomization/orphan has no namespace") {
				t.Errorf("no warning in %q", features.Warnings)
			}
		}},
		{"the optional and present references raise no warning", func(t *testing.T) {
			if hasWarning(features, "absent-but-optional") || hasWarning(features, "extra-vars") {
				t.Errorf("unexpected warning in %q", features.Warnings)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.check)
	}
}

// TestSemanticsCycle: Kustomizations that apply each other are each built
// once.
func TestSemanticsCycle(t *testing.T) {
	cycle, err := fixture(t, "cycle", "clusters/c")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"each Kustomization of a cycle is built once", func(t *testing.T) {
			if len(cycle.Rendered) != 2 {
				t.Errorf("rendered %d Kustomizations, want 2", len(cycle.Rendered))
			}
			a := objectByID(t, cycle, ksID("flux-system", "a"))
			if a.AppliedBy == nil || *a.AppliedBy != ksID("flux-system", "b") {
				t.Errorf("a applied by %v, want b", a.AppliedBy)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.check)
	}
}

// findRendered returns one rendered object, failing the test when absent.
func findRendered(t *testing.T, res *Result, id tiers.ID, kind, namespace, name string) *unstructured.Unstructured {
	t.Helper()
	for _, m := range res.Rendered[id] {
		if u := m.Object; u.GetKind() == kind && u.GetNamespace() == namespace && u.GetName() == name {
			return u
		}
	}
	t.Fatalf("%s does not render %s/%s/%s", id, kind, namespace, name)
	return nil
}
