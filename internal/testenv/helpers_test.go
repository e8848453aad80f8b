package testenv

import (
	"context"
	"testing"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var listAll = metav1.ListOptions{}

func (w *World) requestReconcile(t *testing.T, name string) {
	t.Helper()
	ks := &kustomizev1.Kustomization{}
	ks.Namespace, ks.Name = "flux-system", name
	patch := []byte(`{"metadata":{"annotations":{"` + meta.ReconcileRequestAnnotation + `":"` + time.Now().Format(time.RFC3339Nano) + `"}}}`)
	if err := w.Client.Patch(context.Background(), ks, client.RawPatch("application/merge-patch+json", patch)); err != nil {
		t.Fatalf("Kustomization/flux-system/%s reconcile request failed: %v", name, err)
	}
}
