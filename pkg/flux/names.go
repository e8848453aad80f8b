package flux

import (
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Flux's API groups, kinds and resources, written once.
const (
	// KustomizeGroup is the API group of Kustomizations.
	KustomizeGroup = "kustomize.toolkit.fluxcd.io"
	// SourceGroup is the API group of Flux's sources.
	SourceGroup = "source.toolkit.fluxcd.io"
	// HelmGroup is the API group of HelmReleases.
	HelmGroup = "helm.toolkit.fluxcd.io"

	// KindKustomization is the kind of a Flux Kustomization.
	KindKustomization = kustomizev1.KustomizationKind
	// KindHelmRelease is the kind of a Flux HelmRelease.
	KindHelmRelease = "HelmRelease"
	// HelmChartKind is the kind of the chart source helm-controller makes
	// of a HelmRelease's spec.chart.
	HelmChartKind = sourcev1.HelmChartKind

	kustomizationsPlural = "kustomizations"
	// KustomizationResource is the plural.group of Flux Kustomizations, as
	// RBAC and API errors name it.
	KustomizationResource = kustomizationsPlural + "." + KustomizeGroup
	// KustomizationCRD is the name of the CRD that serves Kustomizations
	// (a CRD is named plural.group): its presence is Flux's.
	KustomizationCRD   = KustomizationResource
	helmReleasesPlural = "helmreleases"
	// HelmReleaseResource is the plural.group of HelmReleases, also its CRD's name.
	HelmReleaseResource = helmReleasesPlural + "." + HelmGroup

	// ReconcileRequestAnnotation asks a Flux controller to reconcile now;
	// the controller copies its value to status.lastHandledReconcileAt once
	// it has handled the request.
	ReconcileRequestAnnotation = meta.ReconcileRequestAnnotation

	// kustomize-controller's owner labels on the objects a Kustomization applies.
	kustomizationNameLabel      = KustomizeGroup + "/name"
	kustomizationNamespaceLabel = KustomizeGroup + "/namespace"
)

// The names of a Flux install, as `flux install` lays it out and `flux
// check` finds it.
const (
	// InstallNamespace is the namespace of Flux's controllers.
	InstallNamespace = "flux-system"
	// PartOfLabel is the label every Flux controller carries, with PartOfValue.
	PartOfLabel = "app.kubernetes.io/part-of"
	// PartOfValue is PartOfLabel's value on Flux's controllers.
	PartOfValue = "flux"
	// ToolkitGroupSuffix ends the API group of every Flux CRD
	// (kustomize.toolkit.fluxcd.io, source.toolkit.fluxcd.io, ...).
	ToolkitGroupSuffix = ".toolkit.fluxcd.io"
)

var (
	// KustomizationGVR is the Kustomization API standup watches and patches.
	KustomizationGVR = schema.GroupVersionResource{Group: KustomizeGroup, Version: kustomizev1.GroupVersion.Version, Resource: kustomizationsPlural}
	// HelmReleaseGVK is the HelmRelease API standup reads (helm.toolkit.fluxcd.io/v2).
	HelmReleaseGVK = schema.GroupVersionKind{Group: HelmGroup, Version: "v2", Kind: KindHelmRelease}
	// HelmReleaseGVR is the HelmRelease API standup watches and patches.
	HelmReleaseGVR = HelmReleaseGVK.GroupVersion().WithResource(helmReleasesPlural)
)

// SourceGVR returns the API of a source kind whose artifact revision a walk
// reads (a Kustomization's GitRepository, OCIRepository or Bucket; a
// HelmRelease's HelmChart), and false for any other kind.
func SourceGVR(kind string) (schema.GroupVersionResource, bool) {
	var plural string
	switch kind {
	case sourcev1.GitRepositoryKind:
		plural = "gitrepositories"
	case sourcev1.OCIRepositoryKind:
		plural = "ocirepositories"
	case sourcev1.BucketKind:
		plural = "buckets"
	case sourcev1.HelmChartKind:
		plural = "helmcharts"
	default:
		return schema.GroupVersionResource{}, false
	}
	return schema.GroupVersionResource{Group: SourceGroup, Version: sourcev1.GroupVersion.Version, Resource: plural}, true
}
