package flux

import (
	"fmt"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/kube"
)

// ErrNotInstalled is returned when the cluster has no Kustomization API.
var ErrNotInstalled = fmt.Errorf("Flux is not installed on this cluster (no %s API): install Flux, or check --context", KustomizationResource)

// NewScheme returns kube.NewScheme's types with Flux's Kustomizations and
// sources added: the types standup reads and writes.
func NewScheme() (*runtime.Scheme, error) {
	return kube.NewScheme(addToScheme)
}

// NewClient returns kube.NewClient over NewScheme's types.
func NewClient(cfg *rest.Config) (client.WithWatch, error) {
	scheme, err := NewScheme()
	if err != nil {
		return nil, err
	}
	return kube.NewClient(cfg, scheme)
}

func addToScheme(s *runtime.Scheme) error {
	builder := runtime.NewSchemeBuilder(kustomizev1.AddToScheme, sourcev1.AddToScheme)
	return builder.AddToScheme(s)
}

// ExplainKustomizations is kube.Explain for a request of verb on
// Kustomizations, where a cluster that does not know the kind means Flux is
// not installed (ErrNotInstalled).
func ExplainKustomizations(err error, verb string) error {
	if apimeta.IsNoMatchError(err) {
		return fmt.Errorf("%w: %w", ErrNotInstalled, err)
	}
	return kube.Explain(err, verb, KustomizationResource)
}
