package kube

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NewScheme returns a scheme with the Kubernetes types standup reads and
// writes (core, apps, CRDs), and the types each of add registers (pkg/flux
// adds Flux's).
func NewScheme(add ...func(*runtime.Scheme) error) (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	builder := runtime.NewSchemeBuilder(corev1.AddToScheme, appsv1.AddToScheme, apiextensionsv1.AddToScheme)
	builder.Register(add...)
	if err := builder.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("scheme: %w", err)
	}
	return s, nil
}

// NewClient returns a controller-runtime client over scheme that can also
// watch. pkg/flux's NewClient is the one standup's commands use.
func NewClient(cfg *rest.Config, scheme *runtime.Scheme) (client.WithWatch, error) {
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", cfg.Host, err)
	}
	return c, nil
}
