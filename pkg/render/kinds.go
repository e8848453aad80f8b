package render

import (
	"slices"
	"strings"
	"sync"

	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubestandup/standup/pkg/flux"
)

// fluxExtensionGroups are Flux's groups outside toolkit.fluxcd.io: the
// optional source-watcher component's ArtifactGenerator, installed with Flux
// when it is enabled (its ExternalArtifact is in source.toolkit.fluxcd.io).
var fluxExtensionGroups = []string{"source.extensions.fluxcd.io"}

// builtinKinds is every group/kind a Kubernetes API server serves without a
// CRD: client-go's scheme, apiextensions' (CustomResourceDefinition), and the
// aggregator's APIService, whose Go types standup does not link.
var builtinKinds = sync.OnceValue(func() map[schema.GroupKind]bool {
	set := map[schema.GroupKind]bool{{Group: "apiregistration.k8s.io", Kind: "APIService"}: true}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		set[gvk.GroupKind()] = true
	}
	for gvk := range apiextensionsscheme.Scheme.AllKnownTypes() {
		set[gvk.GroupKind()] = true
	}
	return set
})

// IsBuiltin reports whether gk is served by every Kubernetes API server,
// without a CRD.
func IsBuiltin(gk schema.GroupKind) bool { return builtinKinds()[gk] }

// IsFlux reports whether gk is one of Flux's own kinds, whose CRDs are
// installed with Flux itself.
func IsFlux(gk schema.GroupKind) bool {
	return strings.HasSuffix(gk.Group, flux.ToolkitGroupSuffix) || slices.Contains(fluxExtensionGroups, gk.Group)
}
