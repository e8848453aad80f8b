package crds

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubestandup/standup/pkg/flux"
)

func TestSelectRuntime(t *testing.T) {
	sp := crdNamed("storageprofiles", "cdi.kubevirt.io", "StorageProfile", "storageprofile")
	cdi := crdNamed("cdis", "cdi.kubevirt.io", "CDI", "cdi")
	sm := crdNamed("servicemonitors", "monitoring.coreos.com", "ServiceMonitor", "servicemonitor")
	ks := crdNamed("kustomizations", "kustomize.toolkit.fluxcd.io", "Kustomization", "kustomization")
	// After flux install, Flux's own CRDs are in no inventory.
	hr := crdNamed("helmreleases", "helm.toolkit.fluxcd.io", "HelmRelease", "helmrelease")
	git := crdNamed("gitrepositories", "source.toolkit.fluxcd.io", "GitRepository", "gitrepository")
	labelled := crdNamed("resourcesets", "fluxcd.controlplane.io", "ResourceSet", "resourceset")
	labelled.Labels = map[string]string{"app.kubernetes.io/part-of": "flux"}
	live := []*apiextensionsv1.CustomResourceDefinition{sp, ks, sm, cdi, hr, git, labelled}
	objs := []flux.Object{
		{Inventory: []string{"_kustomizations.kustomize.toolkit.fluxcd.io_apiextensions.k8s.io_CustomResourceDefinition"}},
		{Inventory: []string{"_cdis.cdi.kubevirt.io_apiextensions.k8s.io_CustomResourceDefinition", "_longhorn_cdi.kubevirt.io_StorageProfile"}},
	}
	tests := []struct {
		name     string
		groups   []string
		want     []string
		wantFlux []string
	}{
		{name: "every group, sorted, Flux's own left out", want: []string{sm.Name, sp.Name}, wantFlux: []string{git.Name, hr.Name, labelled.Name}},
		{name: "one group", groups: []string{"cdi.kubevirt.io"}, want: []string{sp.Name}},
		{name: "a group with nothing at runtime", groups: []string{"kustomize.toolkit.fluxcd.io"}},
		{name: "a Flux group asked for", groups: []string{"helm.toolkit.fluxcd.io"}, wantFlux: []string{hr.Name}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			runtime, fluxOwn := SelectRuntime(live, tt.groups, objs)
			for _, c := range runtime {
				got = append(got, c.Name)
			}
			if !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(fluxOwn, tt.wantFlux) {
				t.Errorf("SelectRuntime(%v) = %v, %v; want %v, %v", tt.groups, got, fluxOwn, tt.want, tt.wantFlux)
			}
		})
	}
}

func TestWriteCaptured(t *testing.T) {
	live := readLiveCRD(t)
	dir := filepath.Join(t.TempDir(), "new", "bundle")
	paths, err := WriteCaptured(dir, []*apiextensionsv1.CustomResourceDefinition{live})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, live.Name+".yaml")
	if !reflect.DeepEqual(paths, []string{want}) {
		t.Fatalf("paths = %v, want %v", paths, []string{want})
	}
	got, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join("testdata", "capture", "storageprofiles.golden.yaml"), string(got))
	if b, err := LoadBundle(dir); err != nil || b.Len() != 1 {
		t.Errorf("the captured directory does not load as a bundle: %v", err)
	}
}

func TestWriteCapturedNamesTheRefusedDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	paths, err := WriteCaptured(file, []*apiextensionsv1.CustomResourceDefinition{readLiveCRD(t)})
	if err == nil || len(paths) != 0 {
		t.Fatalf("WriteCaptured into a file = %v, %v; want an error and nothing written", paths, err)
	}
}
