package testenv

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SpokeKubeconfigKey is the key of the kubeConfig Secret NewSpoke writes:
// Flux's default.
const SpokeKubeconfigKey = "value"

// NewSpoke starts a spoke for the hub w and stops it when tb ends: a
// control plane of its own (an etcd and a kube-apiserver on 127.0.0.1,
// with Flux's CRDs, no controller), and in the hub, in namespace, the
// kubeConfig Secret secret holding the spoke's admin kubeconfig under
// "value", self-contained as Flux requires. A Kustomization of the hub
// naming it in spec.kubeConfig.secretRef is applied by the hub's
// kustomize-controller to the spoke. When the spoke cannot start, tb fails
// if CI is set and is skipped otherwise.
func (w *World) NewSpoke(tb testing.TB, namespace, secret string) *World {
	tb.Helper()
	skipShort(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	spoke, err := Start(ctx, Options{NoController: true})
	if err != nil {
		unavailable(tb, fmt.Errorf("spoke: %w", err))
		return nil
	}
	tb.Cleanup(spoke.Stop)
	if err := w.writeKubeconfigSecret(ctx, namespace, secret, spoke); err != nil {
		tb.Fatal(err)
	}
	return spoke
}

// writeKubeconfigSecret creates, in w, the Secret namespace/name holding
// spoke's admin kubeconfig.
func (w *World) writeKubeconfigSecret(ctx context.Context, namespace, name string, spoke *World) error {
	data, err := os.ReadFile(spoke.Kubeconfig)
	if err != nil {
		return fmt.Errorf("spoke kubeconfig: %w", err)
	}
	if err := w.CreateNamespace(ctx, namespace); err != nil {
		return err
	}
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Data:       map[string][]byte{SpokeKubeconfigKey: data},
	}
	if err := w.Client.Create(ctx, s); err != nil {
		return fmt.Errorf("Secret/%s/%s create failed: %w", namespace, name, err)
	}
	return nil
}
