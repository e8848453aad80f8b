package catalog

import "strings"

// Crossplane's package manager installs a provider package's CRDs only at
// runtime: once a pkg.crossplane.io Provider is applied, Crossplane pulls
// the package, unpacks it and creates the CRDs it holds. Which API groups a
// package's CRDs are in follows the providers' naming conventions, so the
// audit and the live walk can tell from spec.package alone which kinds a
// Provider object brings, without a list of providers.

// CrossplanePackageGroup is the API group of Crossplane's package kinds
// (Provider, Configuration, Function).
const CrossplanePackageGroup = "pkg.crossplane.io"

// CrossplaneProvider is the trigger kind of a provider package's CRDs.
var CrossplaneProvider = GroupKind{Group: CrossplanePackageGroup, Kind: "Provider"}

// CrossplanePackageKinds are the kinds whose objects make Crossplane's
// package manager install a package at runtime. A Configuration installs
// XRDs and Compositions and depends on providers, and a Function may ship
// input CRDs: their kinds cannot be told from the package name.
var CrossplanePackageKinds = []GroupKind{
	CrossplaneProvider,
	{Group: CrossplanePackageGroup, Kind: "Configuration"},
	{Group: CrossplanePackageGroup, Kind: "Function"},
}

// crossplaneCoreGroups are the groups of Crossplane's own CRDs, which its
// init container installs when Crossplane starts (the crossplane chart):
// never a provider's.
var crossplaneCoreGroups = []string{CrossplanePackageGroup, "apiextensions.crossplane.io", "ops.crossplane.io", "protection.crossplane.io", "meta.pkg.crossplane.io"}

// IsCrossplaneCoreGroup reports whether group is one of Crossplane's own.
func IsCrossplaneCoreGroup(group string) bool {
	for _, g := range crossplaneCoreGroups {
		if group == g {
			return true
		}
	}
	return false
}

// PackageName is a Crossplane package reference's last path segment, less
// its tag or digest, lower-cased: xpkg.upbound.io/upbound/provider-aws-s3:v1
// is provider-aws-s3. The registry and organisation do not matter, as for
// charts (ChartName).
func PackageName(ref string) string { return ChartName(ref) }

// PackageGroups reports whether the provider package ref installs CRDs in
// group, by the providers' naming conventions:
//   - the Upbound family provider provider-family-X installs X.upbound.io
//     (its ProviderConfig);
//   - a family's service provider provider-X-Y installs Y.X.upbound.io,
//     and, through its dependency on provider-family-X, which Crossplane's
//     package manager installs with it, X.upbound.io;
//   - a single provider provider-X (the monolithic provider-aws, or the
//     crossplane-contrib providers such as provider-kubernetes and
//     provider-helm) installs X.upbound.io or X.crossplane.io, and any
//     group under them (s3.aws.upbound.io, postgresql.sql.crossplane.io).
//
// An entry of c whose packages name the package answers instead of the
// convention (provider-terraform's CRDs are in tf.upbound.io) and is
// returned; nil when the convention answered.
func (c *Catalog) PackageGroups(ref, group string) (installs bool, entry *Entry) {
	name := PackageName(ref)
	for i := range c.Entries {
		e := &c.Entries[i]
		for _, p := range e.Packages {
			if p != name {
				continue
			}
			for _, r := range e.Runtime {
				if r.Trigger == CrossplaneProvider && hasGroup(r.Kinds, group) {
					return true, e
				}
			}
			return false, e
		}
	}
	return conventionGroups(name, group), nil
}

// hasGroup reports whether the set names group, whole or through one of
// its single kinds.
func hasGroup(k Kinds, group string) bool {
	for _, g := range k.Groups {
		if g == group {
			return true
		}
	}
	for _, gk := range k.Kinds {
		if gk.Group == group {
			return true
		}
	}
	return false
}

// conventionGroups is PackageGroups' naming convention, for a package name.
func conventionGroups(name, group string) bool {
	rest, ok := strings.CutPrefix(name, "provider-")
	if !ok || rest == "" || IsCrossplaneCoreGroup(group) {
		return false
	}
	if family, ok := strings.CutPrefix(rest, "family-"); ok {
		return group == family+".upbound.io"
	}
	parts := strings.Split(rest, "-")
	if len(parts) == 1 {
		for _, base := range []string{rest + ".upbound.io", rest + ".crossplane.io"} {
			if group == base || strings.HasSuffix(group, "."+base) {
				return true
			}
		}
		return false
	}
	family := parts[0] + ".upbound.io"
	return group == family || group == strings.Join(parts[1:], "")+"."+family
}

// IsProviderGroup reports whether group may be a Crossplane provider's, by
// the same conventions, when the package that installs it is not known (a
// live cluster, where the Provider may not have been applied yet): a group
// under upbound.io or crossplane.io that is not Crossplane's own.
func IsProviderGroup(group string) bool {
	if IsCrossplaneCoreGroup(group) {
		return false
	}
	return strings.HasSuffix(group, ".upbound.io") || strings.HasSuffix(group, ".crossplane.io")
}
