package config

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/catalog"
	"github.com/kubestandup/standup/pkg/crds"
)

// TestRuntimeTriggers: the triggers a walk proves deadlocks with follow
// audit's rules of origin: standup.yaml first, kind by kind, then the
// catalog, and none where a chart, a Kustomization or the bootstrap may
// bring the CRD.
func TestRuntimeTriggers(t *testing.T) {
	cfg := &Config{
		RuntimeCRDs: []RuntimeCRD{
			{Trigger: GroupKind{"example.com", "Gizmo"}, Kinds: []GroupKind{{"example.com", "Cog"}, {"cdi.kubevirt.io", "DataSource"}}},
			{Trigger: GroupKind{"pkg.crossplane.io", "Provider"}, Kinds: []GroupKind{{"s3.aws.upbound.io", "Bucket"}}, OperatorTimeout: "5m", Operator: &NamespacedName{"crossplane-system", "crossplane"}},
		},
		ChartCRDs:     []ChartCRD{{HelmRelease: NamespacedName{"kv", "kv"}, Kinds: []GroupKind{{"kubevirt.io", "VirtualMachine"}}}},
		BootstrapCRDs: &BootstrapCRDs{Groups: []string{"snapshot.kubevirt.io"}},
	}
	cdi := crds.Trigger{Kind: schema.GroupKind{Group: "cdi.kubevirt.io", Kind: "CDI"}, From: "the catalog's containerized-data-importer entry", Operator: "cdi/cdi-operator"}
	tests := []struct {
		name string
		cfg  *Config
		gk   schema.GroupKind
		want []crds.Trigger
	}{
		{name: "declared in standup.yaml", cfg: cfg, gk: schema.GroupKind{Group: "example.com", Kind: "Cog"},
			want: []crds.Trigger{{Kind: schema.GroupKind{Group: "example.com", Kind: "Gizmo"}, From: "repo/standup.yaml"}}},
		{name: "declared with the operator's timeout and Deployment", cfg: cfg, gk: schema.GroupKind{Group: "s3.aws.upbound.io", Kind: "Bucket"},
			want: []crds.Trigger{{Kind: schema.GroupKind{Group: "pkg.crossplane.io", Kind: "Provider"}, From: "repo/standup.yaml", Timeout: 5 * time.Minute, Operator: "crossplane-system/crossplane"}}},
		{name: "standup.yaml overrides the catalog", cfg: cfg, gk: schema.GroupKind{Group: "cdi.kubevirt.io", Kind: "DataSource"},
			want: []crds.Trigger{{Kind: schema.GroupKind{Group: "example.com", Kind: "Gizmo"}, From: "repo/standup.yaml"}}},
		{name: "a chart in standup.yaml: no trigger", cfg: cfg, gk: schema.GroupKind{Group: "kubevirt.io", Kind: "VirtualMachine"}},
		{name: "a bootstrap group in standup.yaml: no trigger", cfg: cfg, gk: schema.GroupKind{Group: "snapshot.kubevirt.io", Kind: "VirtualMachineSnapshot"}},
		{name: "the catalog", gk: schema.GroupKind{Group: "cdi.kubevirt.io", Kind: "StorageProfile"}, want: []crds.Trigger{cdi}},
		{name: "the catalog, a group", gk: schema.GroupKind{Group: "forklift.cdi.kubevirt.io", Kind: "OvirtVolumePopulator"}, want: []crds.Trigger{cdi}},
		{name: "a trigger is not its own runtime kind", gk: schema.GroupKind{Group: "cdi.kubevirt.io", Kind: "CDI"}},
		{name: "two operators of the catalog", gk: schema.GroupKind{Group: "tekton.dev", Kind: "Task"}, want: []crds.Trigger{
			{Kind: schema.GroupKind{Group: "operator.tekton.dev", Kind: "TektonConfig"}, From: "the catalog's tekton-operator entry"},
			{Kind: schema.GroupKind{Group: "operator.tekton.dev", Kind: "TektonPipeline"}, From: "the catalog's tekton-operator entry"},
		}},
		{name: "a chart of the catalog installs it", gk: schema.GroupKind{Group: "cert-manager.io", Kind: "ClusterIssuer"}},
		{name: "unknown", gk: schema.GroupKind{Group: "example.com", Kind: "Sprocket"}},
		{name: "a Crossplane provider's group", gk: schema.GroupKind{Group: "aws.upbound.io", Kind: "ProviderConfig"},
			want: []crds.Trigger{{Kind: schema.GroupKind{Group: "pkg.crossplane.io", Kind: "Provider"}, From: "Crossplane's provider package naming (aws.upbound.io)"}}},
		{name: "a crossplane-contrib provider's group", gk: schema.GroupKind{Group: "kubernetes.crossplane.io", Kind: "Object"},
			want: []crds.Trigger{{Kind: schema.GroupKind{Group: "pkg.crossplane.io", Kind: "Provider"}, From: "Crossplane's provider package naming (kubernetes.crossplane.io)"}}},
		{name: "Crossplane's own kinds come with Crossplane", gk: schema.GroupKind{Group: "apiextensions.crossplane.io", Kind: "Composition"}},
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RuntimeTriggers(tt.cfg, "repo/standup.yaml", cat)(tt.gk)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("triggers of %s = %+v, want %+v", tt.gk, got, tt.want)
			}
		})
	}
}

// TestFindConfig: resume and crds read --config when given, else the
// standup.yaml at the root of the checkout they run in, else none.
func TestFindConfig(t *testing.T) {
	const valid = "runtimeCRDs:\n  - trigger: {group: example.com, kind: Gizmo}\n    kinds: [{group: example.com, kind: Cog}]\n"
	checkout := t.TempDir()
	if err := os.Mkdir(filepath.Join(checkout, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(checkout, "clusters", "prod")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	bare := t.TempDir() // a checkout without standup.yaml
	if err := os.Mkdir(filepath.Join(bare, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "elsewhere.yaml")
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	for path, text := range map[string]string{filepath.Join(checkout, "standup.yaml"): valid, other: valid, bad: "runtimeCRDs: [{trigger: {kind: ''}}]\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, file, dir string
		wantFile        string
		wantErr         string
	}{
		{name: "the checkout's root, from deep inside", dir: deep, wantFile: filepath.Join(checkout, "standup.yaml")},
		{name: "--config", file: other, dir: bare, wantFile: other},
		{name: "a checkout without one", dir: bare},
		{name: "--config that does not exist", file: filepath.Join(bare, "nope.yaml"), dir: bare, wantErr: "nope.yaml"},
		{name: "--config that does not parse", file: bad, dir: bare, wantErr: "bad.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, file, err := Find(context.Background(), tt.file, tt.dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if canon(t, file) != canon(t, tt.wantFile) {
				t.Fatalf("read %q, want %q", file, tt.wantFile)
			}
			if got := len(cfg.RuntimeCRDs); (tt.wantFile != "") != (got == 1) {
				t.Fatalf("config %+v read from %q", cfg, file)
			}
		})
	}
}

func canon(t *testing.T, path string) string {
	t.Helper()
	if path == "" {
		return ""
	}
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
