package crds

import (
	"fmt"
	"regexp"
)

// Helm's ownership metadata: what Helm requires of an object that exists
// before it takes it into a release, unless the release takes ownership
// (helm-controller v1.5 does by default; a HelmRelease opts out with
// install.disableTakeOwnership).
const (
	HelmManagedByLabel             = "app.kubernetes.io/managed-by"
	HelmManagedByValue             = "Helm"
	HelmReleaseNameAnnotation      = "meta.helm.sh/release-name"
	HelmReleaseNamespaceAnnotation = "meta.helm.sh/release-namespace"
)

// HelmOwnershipFailure is Helm refusing to install a release over an object
// that exists without the release's ownership metadata, as helm-controller
// reports it in a HelmRelease's Ready message.
type HelmOwnershipFailure struct {
	// Object is the object Helm would not import.
	Object ObjectRef
	// ReleaseName and ReleaseNamespace are the values Helm asks for (empty
	// when the message does not say).
	ReleaseName, ReleaseNamespace string
}

// helmImportRE is Helm v4's refusal (pkg/action/validate.go):
// `CustomResourceDefinition "x" in namespace "" exists and cannot be imported into the current release: invalid ownership metadata; ...`.
var (
	helmImportRE = regexp.MustCompile(`(\w+) "([^"]+)" in namespace "([^"]*)" exists and cannot be imported into the current release: invalid ownership metadata`)
	helmNameRE   = regexp.MustCompile(`"` + regexp.QuoteMeta(HelmReleaseNameAnnotation) + `"(?:: must be set to| must equal) "([^"]*)"`)
	helmNSRE     = regexp.MustCompile(`"` + regexp.QuoteMeta(HelmReleaseNamespaceAnnotation) + `"(?:: must be set to| must equal) "([^"]*)"`)
)

// ParseHelmOwnershipFailure reads a HelmRelease's Ready message for Helm's
// refusal to import an existing object. Helm refuses again on every retry
// until the object carries the metadata, so no retry fixes it.
func ParseHelmOwnershipFailure(message string) (HelmOwnershipFailure, bool) {
	m := helmImportRE.FindStringSubmatch(message)
	if m == nil {
		return HelmOwnershipFailure{}, false
	}
	f := HelmOwnershipFailure{Object: ObjectRef{Kind: m[1], Name: m[2], Namespace: m[3]}}
	if n := helmNameRE.FindStringSubmatch(message); n != nil {
		f.ReleaseName = n[1]
	}
	if n := helmNSRE.FindStringSubmatch(message); n != nil {
		f.ReleaseNamespace = n[1]
	}
	return f, true
}

// Remedy says how to let the release adopt the object: the kubectl
// commands that give it Helm's ownership metadata, when the message named
// the release.
func (f HelmOwnershipFailure) Remedy() string {
	if f.ReleaseName == "" || f.ReleaseNamespace == "" {
		return fmt.Sprintf("give %s the label %s=%s and the annotations %s and %s of the release", f.Object, HelmManagedByLabel, HelmManagedByValue, HelmReleaseNameAnnotation, HelmReleaseNamespaceAnnotation)
	}
	target := f.Object.Kind + " " + f.Object.Name
	if f.Object.Namespace != "" {
		target += " -n " + f.Object.Namespace
	}
	return fmt.Sprintf("kubectl label %s %s=%s; kubectl annotate %s %s=%s %s=%s",
		target, HelmManagedByLabel, HelmManagedByValue, target, HelmReleaseNameAnnotation, f.ReleaseName, HelmReleaseNamespaceAnnotation, f.ReleaseNamespace)
}
