package crds

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

func readLiveCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile("testdata/capture/live-storageprofiles.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		t.Fatal(err)
	}
	return crd
}

func TestStripForCaptureAndMarshal(t *testing.T) {
	live := readLiveCRD(t)
	before := live.DeepCopy()
	stripped := StripForCapture(live)
	if !reflect.DeepEqual(live, before) {
		t.Error("StripForCapture modified its input")
	}
	out, err := MarshalCRD(stripped)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join("testdata", "capture", "storageprofiles.golden.yaml"), string(out))

	// What capture writes must load back as a bundle.
	entries, err := DecodeBundleFile("storageprofiles.yaml", out)
	if err != nil || len(entries) != 1 {
		t.Fatalf("captured CRD does not decode as a bundle file: %d entries, %v", len(entries), err)
	}
	if got := entries[0].CRD; got.Name != live.Name || !reflect.DeepEqual(got.Spec.Versions, live.Spec.Versions) {
		t.Errorf("captured CRD lost its identity or versions: %+v", got.ObjectMeta)
	}
	if a := entries[0].CRD.Annotations; len(a) != 1 || a["operator.cdi.kubevirt.io/lastAppliedConfiguration"] == "" {
		t.Errorf("annotations = %v, want only the operator's own", a)
	}
}

func TestStripForCaptureNil(t *testing.T) {
	if StripForCapture(nil) != nil {
		t.Error("StripForCapture(nil) != nil")
	}
	if _, err := MarshalCRD(nil); err == nil {
		t.Error("MarshalCRD(nil) returned no error")
	}
}

func TestStripForCaptureDropsOnlyAnnotation(t *testing.T) {
	crd := readLiveCRD(t)
	delete(crd.Annotations, "operator.cdi.kubevirt.io/lastAppliedConfiguration")
	if got := StripForCapture(crd).Annotations; got != nil {
		t.Errorf("annotations = %v, want nil once the last-applied one is gone", got)
	}
}

func TestRuntimeCRDs(t *testing.T) {
	all := []string{
		"storageprofiles.cdi.kubevirt.io",
		"cdis.cdi.kubevirt.io",
		"kustomizations.kustomize.toolkit.fluxcd.io",
		"datavolumes.cdi.kubevirt.io",
		"datavolumes.cdi.kubevirt.io",
	}
	inventories := [][]string{
		{
			"_kustomizations.kustomize.toolkit.fluxcd.io_apiextensions.k8s.io_CustomResourceDefinition",
			"flux-system_flux-system_kustomize.toolkit.fluxcd.io_Kustomization",
		},
		{
			"_cdis.cdi.kubevirt.io_apiextensions.k8s.io_CustomResourceDefinition",
			"cdi_cdi-operator_apps_Deployment",
			// a CR of the runtime kind is not its CRD
			"_longhorn_cdi.kubevirt.io_StorageProfile",
		},
	}
	want := []string{"datavolumes.cdi.kubevirt.io", "storageprofiles.cdi.kubevirt.io"}
	if got := RuntimeCRDs(all, inventories); !reflect.DeepEqual(got, want) {
		t.Errorf("RuntimeCRDs() = %q, want %q", got, want)
	}
	if got := RuntimeCRDs(nil, inventories); got != nil {
		t.Errorf("RuntimeCRDs(nil) = %q, want nil", got)
	}
}
