package kube

import (
	"fmt"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NewScheme returns a scheme with the types standup reads and writes.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	builder := runtime.NewSchemeBuilder(corev1.AddToScheme, appsv1.AddToScheme, apiextensionsv1.AddToScheme,
		kustomizev1.AddToScheme, sourcev1.AddToScheme)
	if err := builder.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("scheme: %w", err)
	}
	return s, nil
}

// NewClient returns a controller-runtime client that can also watch.
func NewClient(cfg *rest.Config) (client.WithWatch, error) {
	scheme, err := NewScheme()
	if err != nil {
		return nil, err
	}
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", cfg.Host, err)
	}
	return c, nil
}
