package audit

import "github.com/kubestandup/standup/pkg/config"

// The audit reads the repository's standup.yaml as package config holds it;
// these names let the cold-start model speak of kinds and declarations
// without repeating the package name at every use.
type (
	// GroupKind names a Kubernetes kind by API group and kind.
	GroupKind = config.GroupKind
	// NamespacedName names a namespaced object.
	NamespacedName = config.NamespacedName
	// Config is a repository's standup.yaml.
	Config = config.Config
	// RuntimeCRD declares kinds whose CRD an operator creates at runtime.
	RuntimeCRD = config.RuntimeCRD
	// ChartCRD declares kinds whose CRD a HelmRelease's chart installs.
	ChartCRD = config.ChartCRD
	// KustomizationCRD declares kinds whose CRD a Kustomization applies.
	KustomizationCRD = config.KustomizationCRD
	// BootstrapCRDs declares kinds installed before Flux.
	BootstrapCRDs = config.BootstrapCRDs
)
