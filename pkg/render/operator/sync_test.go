package operator

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestSyncOf(t *testing.T) {
	fi := resourceSet(t, `
apiVersion: fluxcd.controlplane.io/v1
kind: FluxInstance
metadata:
  name: flux
  namespace: flux-system
spec:
  sync:
    kind: OCIRepository
    url: oci://ghcr.io/example/fleet
    ref: latest
    path: clusters/staging
  kustomize:
    patches:
      - target: {kind: OCIRepository, name: flux-system}
        patch: "[]"
`)
	if !IsFluxInstance(fi) || IsResourceSet(fi) {
		t.Fatal("kind not recognised")
	}
	s, err := SyncOf(fi)
	if err != nil {
		t.Fatal(err)
	}
	ks := s.Kustomization
	path, _, _ := unstructured.NestedString(ks.Object, "spec", "path")
	kind, _, _ := unstructured.NestedString(ks.Object, "spec", "sourceRef", "kind")
	name, _, _ := unstructured.NestedString(ks.Object, "spec", "sourceRef", "name")
	if ks.GetName() != "flux-system" || ks.GetNamespace() != "flux-system" || path != "clusters/staging" || kind != "OCIRepository" || name != "flux-system" {
		t.Errorf("Kustomization %v", ks.Object)
	}
	tag, _, _ := unstructured.NestedString(s.Source.Object, "spec", "ref", "tag")
	if s.Source.GetKind() != "OCIRepository" || s.Source.GetName() != "flux-system" || tag != "latest" || len(s.Notes) != 0 {
		t.Errorf("source %v, notes %q", s.Source.Object, s.Notes)
	}

	unstructured.SetNestedField(fi.Object, "fleet", "spec", "sync", "name")
	unstructured.SetNestedSlice(fi.Object, []any{map[string]any{"patch": "[]"}}, "spec", "kustomize", "patches")
	if s, err = SyncOf(fi); err != nil || s.Kustomization.GetName() != "fleet" || len(s.Notes) != 1 {
		t.Errorf("named sync: %+v, %v", s, err)
	}
	unstructured.RemoveNestedField(fi.Object, "spec", "sync", "path")
	if _, err := SyncOf(fi); err == nil || !strings.Contains(err.Error(), "spec.sync.path is required") {
		t.Errorf("no path: %v", err)
	}
	unstructured.RemoveNestedField(fi.Object, "spec", "sync")
	if s, err := SyncOf(fi); s != nil || err != nil {
		t.Errorf("no sync: %+v, %v", s, err)
	}
}
