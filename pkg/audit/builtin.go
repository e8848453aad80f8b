package audit

import (
	"slices"
	"strings"
	"sync"

	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	"k8s.io/client-go/kubernetes/scheme"
)

// fluxGroupSuffix ends the API group of every kind Flux's controllers serve
// (kustomize, source, helm, notification, image automation), installed with
// Flux itself.
const fluxGroupSuffix = ".toolkit.fluxcd.io"

// fluxExtensionGroups are Flux's groups outside toolkit.fluxcd.io: the
// optional source-watcher component's ArtifactGenerator, installed with Flux
// when it is enabled (its ExternalArtifact is in source.toolkit.fluxcd.io).
var fluxExtensionGroups = []string{"source.extensions.fluxcd.io"}

// builtinKinds is every group/kind a Kubernetes API server serves without a
// CRD: client-go's scheme, apiextensions' (CustomResourceDefinition), and the
// aggregator's APIService, whose Go types standup does not link.
var builtinKinds = sync.OnceValue(func() map[GroupKind]bool {
	set := map[GroupKind]bool{{Group: "apiregistration.k8s.io", Kind: "APIService"}: true}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		set[GroupKind{Group: gvk.Group, Kind: gvk.Kind}] = true
	}
	for gvk := range apiextensionsscheme.Scheme.AllKnownTypes() {
		set[GroupKind{Group: gvk.Group, Kind: gvk.Kind}] = true
	}
	return set
})

// isBuiltin reports whether gk is served by every Kubernetes API server.
func isBuiltin(gk GroupKind) bool { return builtinKinds()[gk] }

// isFlux reports whether gk is one of Flux's own kinds.
func isFlux(gk GroupKind) bool {
	return strings.HasSuffix(gk.Group, fluxGroupSuffix) || slices.Contains(fluxExtensionGroups, gk.Group)
}
