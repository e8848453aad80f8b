package render

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/konfig"

	"github.com/kubestandup/standup/pkg/render/kbuild"
)

// loadExample loads examples/<name>/clusters/<env> as `standup tiers --path`
// does: no repository root given, so standup.yaml marks it.
func loadExample(t *testing.T, name, env string) *Result {
	t.Helper()
	res, err := Load(context.Background(), Options{Path: filepath.Join("..", "..", "examples", name, "clusters", env)})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("examples", name); !strings.HasSuffix(res.RepoRoot, want) {
		t.Fatalf("repository root %s, want the example's own directory (standup.yaml)", res.RepoRoot)
	}
	return res
}

// exampleCase is a case of TestExamples.
type exampleCase struct {
	name    string
	objects []string
	edges   []string
	// rendered lists, per Kustomization name, exactly what it applies.
	rendered map[string][]string
}

// exampleCases are the examples of the repository (examples/), each with
// what its prod and dev clusters must render.
var exampleCases = []exampleCase{{
	name: "homelab",
	objects: []string{
		"Kustomization/flux-system/apps",
		"Kustomization/flux-system/apps-vms",
		"Kustomization/flux-system/flux-system",
		"Kustomization/flux-system/platform",
		"Kustomization/flux-system/platform-config",
		"Kustomization/flux-system/platform-config-cdi",
		"Kustomization/flux-system/platform-operators",
		"Kustomization/monitoring/monitoring",
	},
	edges: []string{
		"Kustomization/flux-system/apps -> Kustomization/flux-system/platform",
		"Kustomization/flux-system/apps-vms -> Kustomization/flux-system/platform-config",
		"Kustomization/flux-system/apps-vms -> Kustomization/flux-system/platform-config-cdi",
		"Kustomization/flux-system/platform-config -> Kustomization/flux-system/platform-operators",
		"Kustomization/flux-system/platform-config-cdi -> Kustomization/flux-system/platform-config",
		"Kustomization/flux-system/platform-operators -> Kustomization/flux-system/platform",
		"Kustomization/monitoring/monitoring -> Kustomization/flux-system/platform",
	},
	rendered: map[string][]string{
		"platform-config": {
			"CDI/cdi infrastructure/kubevirt/cdi-cr.yaml",
			"KubeVirt/kubevirt/kubevirt infrastructure/kubevirt/kubevirt-cr.yaml",
		},
		"platform-config-cdi": {
			"StorageProfile/longhorn infrastructure/kubevirt/cdi-storageprofiles.yaml",
			"StorageProfile/longhorn-vm infrastructure/kubevirt/cdi-storageprofiles.yaml",
		},
		"apps-vms": {
			"DataVolume/vms/unifi-rootdisk apps/vms/unifi/20-datavolume.yaml",
			"Namespace/vms apps/vms/namespace.yaml",
		},
	},
}, {
	name: "homelab-deadlock",
	objects: []string{
		"Kustomization/flux-system/apps",
		"Kustomization/flux-system/apps-vms",
		"Kustomization/flux-system/flux-system",
		"Kustomization/flux-system/platform",
		"Kustomization/flux-system/platform-config",
		"Kustomization/flux-system/platform-operators",
		"Kustomization/monitoring/monitoring",
	},
	edges: []string{
		"Kustomization/flux-system/apps -> Kustomization/flux-system/platform",
		"Kustomization/flux-system/apps-vms -> Kustomization/flux-system/platform-config",
		"Kustomization/flux-system/platform-config -> Kustomization/flux-system/platform-operators",
		"Kustomization/flux-system/platform-operators -> Kustomization/flux-system/platform",
		"Kustomization/monitoring/monitoring -> Kustomization/flux-system/platform",
	},
	rendered: map[string][]string{
		"platform-config": {
			"CDI/cdi infrastructure/kubevirt/cdi-cr.yaml",
			"KubeVirt/kubevirt/kubevirt infrastructure/kubevirt/kubevirt-cr.yaml",
			"StorageProfile/longhorn infrastructure/kubevirt/cdi-storageprofiles.yaml",
			"StorageProfile/longhorn-vm infrastructure/kubevirt/cdi-storageprofiles.yaml",
		},
	},
}}

func TestExamples(t *testing.T) {
	for _, tt := range exampleCases {
		t.Run(tt.name, func(t *testing.T) {
			prod, dev := loadExample(t, tt.name, "prod"), loadExample(t, tt.name, "dev")
			for env, res := range map[string]*Result{"prod": prod, "dev": dev} {
				if got := ids(res.Objects); !slices.Equal(got, tt.objects) {
					t.Errorf("%s objects:\n got %q\nwant %q", env, got, tt.objects)
				}
				if got := edges(res.Objects); !slices.Equal(got, tt.edges) {
					t.Errorf("%s edges:\n got %q\nwant %q", env, got, tt.edges)
				}
				for name, want := range tt.rendered {
					if got := rendered(res, ksID("flux-system", name)); !slices.Equal(got, want) {
						t.Errorf("%s: %s renders\n %q\nwant %q", env, name, got, want)
					}
				}
				if len(res.Warnings) != 0 {
					t.Errorf("%s warnings: %q", env, res.Warnings)
				}
				if len(res.Rendered) != len(tt.objects) {
					t.Errorf("%s: %d Kustomizations rendered, want all %d", env, len(res.Rendered), len(tt.objects))
				}
			}
		})
	}
}

func TestExampleSubstitution(t *testing.T) {
	for env, domain := range map[string]string{"prod": "prod.homelab.example", "dev": "dev.homelab.example"} {
		res := loadExample(t, "homelab", env)
		ingress := findRendered(t, res, ksID("flux-system", "apps"), "Ingress", "apps", "whoami")
		rules, _, _ := unstructured.NestedSlice(ingress.Object, "spec", "rules")
		if len(rules) != 1 || rules[0].(map[string]any)["host"] != "whoami."+domain {
			t.Errorf("%s: ingress rules %v, want host whoami.%s", env, rules, domain)
		}
	}
}

// TestExampleCRDPlacement checks the invariants the integration tests rely
// on: the CDI CRD comes in an earlier tier than the CDI CR, and the
// StorageProfile CRD is nowhere in the graph, only in the deadlock bundle.
func TestExampleCRDPlacement(t *testing.T) {
	for _, name := range []string{"homelab", "homelab-deadlock"} {
		res := loadExample(t, name, "prod")
		crds := map[string]string{}
		for id, ms := range res.Rendered {
			for _, m := range ms {
				if m.Object.GetKind() == "CustomResourceDefinition" {
					crds[m.Object.GetName()] = id.Name
				}
			}
		}
		if got := crds["cdis.cdi.kubevirt.io"]; got != "platform-operators" {
			t.Errorf("%s: cdis.cdi.kubevirt.io applied by %q, want platform-operators", name, got)
		}
		if got, ok := crds["storageprofiles.cdi.kubevirt.io"]; ok {
			t.Errorf("%s: storageprofiles.cdi.kubevirt.io applied by %s; it must be runtime-created", name, got)
		}
	}
	// Not anywhere in examples/homelab, applied or not.
	err := filepath.WalkDir(filepath.Join("..", "..", "examples", "homelab"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !manifestFile(path) {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		docs, err := kbuild.ReadManifests(data)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, d := range docs {
			if d.Object != nil && d.Object.GetKind() == "CustomResourceDefinition" && d.Object.GetName() == "storageprofiles.cdi.kubevirt.io" {
				t.Errorf("%s holds the StorageProfile CRD", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	bundle, err := os.ReadFile(filepath.Join("..", "..", "examples", "homelab-deadlock", "bootstrap", "crds", "storageprofiles.cdi.kubevirt.io.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	docs, err := kbuild.ReadManifests(bundle)
	if err != nil || len(docs) != 1 || docs[0].Object.GetName() != "storageprofiles.cdi.kubevirt.io" {
		t.Fatalf("bundle: %v, %d documents", err, len(docs))
	}
}

// manifestFile reports whether path is a file a build parses as YAML.
func manifestFile(path string) bool {
	ext := filepath.Ext(path)
	return ext == ".yaml" || ext == ".yml" ||
		slices.Contains(konfig.RecognizedKustomizationFileNames(), filepath.Base(path))
}
