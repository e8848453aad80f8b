package audit

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/pkg/catalog"
)

// Crossplane, read from the repository itself: a provider package's CRDs
// and an XRD's composite and claim kinds exist only once Crossplane has
// acted on an object the repository applies, so they are runtime kinds
// whose trigger is that object, found without a catalog entry per provider
// or per XRD.

// xrdKind is Crossplane's CompositeResourceDefinition.
var xrdKind = GroupKind{Group: "apiextensions.crossplane.io", Kind: "CompositeResourceDefinition"}

// providerKind is Crossplane's Provider package.
var providerKind = GroupKind(catalog.CrossplaneProvider)

// xrdKinds are the kinds Crossplane serves for an XRD once it has
// established it: the composite resource (spec.group, spec.names.kind), and
// the claim (spec.claimNames.kind) when the XRD offers one (v1; v2's
// namespaced XRs have none).
func xrdKinds(u *unstructured.Unstructured) []GroupKind {
	group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
	if group == "" {
		return nil
	}
	var out []GroupKind
	for _, path := range [][]string{{"spec", "names", "kind"}, {"spec", "claimNames", "kind"}} {
		if kind, _, _ := unstructured.NestedString(u.Object, path...); kind != "" {
			out = append(out, GroupKind{Group: group, Kind: kind})
		}
	}
	return out
}

// crossplaneOrigins adds what the repository's Crossplane objects make
// exist at runtime: gk's XRDs always (the repository states the kind),
// and, unless standup.yaml declares gk, the Providers whose package
// installs gk's group (catalog.PackageGroups).
func (ix *index) crossplaneOrigins(gk GroupKind, declared bool, add func(origin)) {
	for _, p := range ix.xrds[gk] {
		add(origin{src: srcRuntime, at: p, trigger: xrdKind, via: fmt.Sprintf("once Crossplane has established the XRD %s", p.obj.Name), derived: "its XRD"})
	}
	if declared {
		return
	}
	for _, p := range ix.byKind[providerKind] {
		if ok, e := ix.cat.PackageGroups(p.pkg, gk.Group); ok {
			add(origin{src: srcRuntime, at: p, trigger: providerKind, entry: e,
				via: fmt.Sprintf("once Crossplane's package manager has installed the provider package %s (Provider/%s)", catalog.PackageName(p.pkg), p.obj.Name), derived: "Crossplane's provider naming"})
		}
	}
}
