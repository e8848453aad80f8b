package crds

import (
	"fmt"
	"regexp"

	"github.com/kubestandup/standup/pkg/tiers"
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

// Commands are the commands that finish a repair Helm refused, for a
// person to run, in order: the kubectl label and annotate that give the
// object the release's ownership metadata, and the flux reconcile hr
// --reset of release (the HelmRelease) that installs over it, clearing the
// failed installs' count in case its remediation has given up. Without
// the release's name in Helm's message, the first is Remedy's sentence.
func (f HelmOwnershipFailure) Commands(release tiers.ID) []string {
	var out []string
	if f.ReleaseName == "" || f.ReleaseNamespace == "" {
		out = append(out, f.Remedy())
	} else {
		target := f.Object.Kind + " " + f.Object.Name
		if f.Object.Namespace != "" {
			target += " -n " + f.Object.Namespace
		}
		out = append(out,
			fmt.Sprintf("kubectl label %s %s=%s", target, HelmManagedByLabel, HelmManagedByValue),
			fmt.Sprintf("kubectl annotate %s %s=%s %s=%s", target, HelmReleaseNameAnnotation, f.ReleaseName, HelmReleaseNamespaceAnnotation, f.ReleaseNamespace))
	}
	return append(out, ResetCommand(release))
}

// ResetCommand is the flux command that asks a HelmRelease to reconcile
// again with its failure counts reset.
func ResetCommand(release tiers.ID) string {
	return fmt.Sprintf("flux reconcile hr %s -n %s --reset", release.Name, release.Namespace)
}

// Explain is what standup says of a HelmRelease (release) whose Ready
// message (helmSaid) is Helm's refusal f, and what finishes the repair:
// resume's message when it fails the release, and crds' report. preApplied
// names the node standup pre-applied the refused object for, when it did
// (the chart form of the deadlock: the chart ships the CRD in templates/,
// and the release does not take ownership); nil otherwise.
func (f HelmOwnershipFailure) Explain(release tiers.ID, helmSaid string, preApplied *tiers.ID) string {
	reset := ResetCommand(release)
	if preApplied == nil {
		return fmt.Sprintf("%s. Helm refuses this on every retry, and the release does not take ownership (install.disableTakeOwnership): %s, then %s", helmSaid, f.Remedy(), reset)
	}
	return fmt.Sprintf("Helm will not take %s into the release: standup pre-applied it for %s from the bundle, without Helm's ownership metadata, and the chart installs it from templates/ while the release does not take ownership (install.disableTakeOwnership). To finish the repair: %s, then %s. For the next cold start, give the bundle's CRD that metadata (standup crds capture keeps it). Helm said: %s",
		f.Object, *preApplied, f.Remedy(), reset, helmSaid)
}
