package main

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/audit"
)

const homelabRepo = "../../examples/homelab"

// liveCRD is a minimal CRD for group/kind (plural = lower(kind)+"s").
func liveCRD(group, kind string, labels, annotations map[string]string) *apiextensionsv1.CustomResourceDefinition {
	plural := strings.ToLower(kind) + "s"
	preserve := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group, Labels: labels, Annotations: annotations},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextensionsv1.ClusterScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, Plural: plural, ListKind: kind + "List"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &preserve}}}},
		},
	}
}

// TestAuditFromCluster brings examples/homelab up on the real controller
// with the simulated cdi-operator, adds CRDs a chart, an unknown operator and
// a foreign Kustomization would leave, and checks that the skeleton
// `audit --from-cluster` prints is what the checkout needs: without
// standup.yaml the checkout's audit fails; with the skeleton (its one
// placeholder filled in) as standup.yaml it audits clean.
func TestAuditFromCluster(t *testing.T) {
	w := seedCluster(t, homelabRepo)
	if res := runCLI(t, w, "resume", "-o", "json"); res.Code != ExitOK {
		t.Fatalf("resume: exit %d: %v", res.Code, res.Err)
	}
	ctx := context.Background()
	for _, crd := range []*apiextensionsv1.CustomResourceDefinition{
		liveCRD("cert-manager.io", "ClusterIssuer", map[string]string{"helm.toolkit.fluxcd.io/name": "cert-manager", "helm.toolkit.fluxcd.io/namespace": "cert-manager"}, nil),
		liveCRD("ops.example.org", "Backup", nil, nil),
		liveCRD("tenants.example.org", "Tenant", map[string]string{"kustomize.toolkit.fluxcd.io/name": "tenants", "kustomize.toolkit.fluxcd.io/namespace": "flux-system"}, nil),
	} {
		if err := w.Client.Create(ctx, crd, client.FieldOwner("some-operator")); err != nil {
			t.Fatal(err)
		}
	}
	before := crdNames(t, w)

	// The example declares its CDI kinds already: they are reported, not
	// declared again.
	res := runCLI(t, w, "audit", "--from-cluster", "--path", homelabRepo+"/clusters/prod", "-o", "json")
	if res.Code != ExitOK {
		t.Fatalf("audit --from-cluster: exit %d: %v", res.Code, res.Err)
	}
	var sk audit.Skeleton
	if err := json.Unmarshal([]byte(res.Stdout), &sk); err != nil {
		t.Fatalf("json output: %v\n%s", err, res.Stdout)
	}
	got := map[string]audit.CRDSource{}
	for _, f := range sk.Findings {
		got[f.CRD] = f.Source
	}
	want := map[string]audit.CRDSource{
		"storageprofiles.cdi.kubevirt.io": audit.SourceDeclared, "datavolumes.cdi.kubevirt.io": audit.SourceDeclared,
		"clusterissuers.cert-manager.io": audit.SourceChart, "backups.ops.example.org": audit.SourceRuntime,
		"tenants.tenants.example.org": audit.SourceKustomization,
	}
	if !maps.Equal(got, want) {
		t.Errorf("findings = %v, want %v", got, want)
	}
	if sk.Produced == 0 || sk.Placeholders != 1 {
		t.Errorf("produced %d (want > 0: the CDI CRD), placeholders %d (want 1: Backup)", sk.Produced, sk.Placeholders)
	}

	// The same checkout without standup.yaml: the catalog knows CDI, so the
	// audit is clean and says where the runtime kinds come from; the
	// skeleton declares them all the same.
	repo := t.TempDir()
	if err := os.CopyFS(repo, os.DirFS(homelabRepo)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(repo, "standup.yaml")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(repo, "clusters", "prod")
	if res := runCLI(t, w, "audit", "--path", path, "--repo-root", repo, "-o", "json"); res.Code != ExitOK ||
		!strings.Contains(res.Stdout, `"evidence": "catalog: containerized-data-importer"`) {
		t.Fatalf("audit without standup.yaml: exit %d, want %d with the CDI kinds from the catalog\n%s", res.Code, ExitOK, res.Stdout)
	}
	res = runCLI(t, w, "audit", "--from-cluster", "--path", path, "--repo-root", repo)
	if res.Code != ExitOK {
		t.Fatalf("audit --from-cluster: exit %d: %v", res.Code, res.Err)
	}
	t.Logf("skeleton:\n%s", res.Stdout)
	for _, s := range []string{"kind: CDI", "kind: StorageProfile", "kind: DataVolume", "name: cert-manager", "kind: Backup", "kind: TODO", "tenants.tenants.example.org: applied by Kustomization/flux-system/tenants",
		"the trigger is a guess: CDI.cdi.kubevirt.io is the only kind of group cdi.kubevirt.io whose CRD this checkout ships; written by field manager simulated-operator\n"} {
		if !strings.Contains(res.Stdout, s) {
			t.Errorf("skeleton lacks %q:\n%s", s, res.Stdout)
		}
	}
	if strings.Contains(res.Stdout, "kube-apiserver") {
		t.Errorf("the API server's status writes are named as a field manager:\n%s", res.Stdout)
	}
	if !strings.Contains(res.Stderr, "1 with a TODO trigger to fill in") {
		t.Errorf("stderr does not count the placeholder: %s", res.Stderr)
	}
	config := filepath.Join(repo, "standup.yaml")
	if err := os.WriteFile(config, []byte(res.Stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := runCLI(t, w, "audit", "--path", path, "--repo-root", repo); res.Code == ExitOK || !strings.Contains(res.Stderr, "still the skeleton's TODO") {
		t.Fatalf("audit with an unedited skeleton: exit %d, stderr %q; want the placeholder refused", res.Code, res.Stderr)
	}
	filled := strings.Replace(res.Stdout, "kind: TODO", "kind: BackupSchedule", 1)
	if err := os.WriteFile(config, []byte(filled), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := runCLI(t, w, "audit", "--path", path, "--repo-root", repo); res.Code != ExitOK {
		t.Fatalf("audit with the filled skeleton: exit %d\n%s", res.Code, res.Stdout)
	}
	after := crdNames(t, w)
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Errorf("CustomResourceDefinition/%s appeared during the audits, which only read", name)
		}
	}
}
