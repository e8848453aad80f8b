package catalog

import "testing"

func TestPackageGroups(t *testing.T) {
	cat, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ref, group string
		want       bool
		entry      string
	}{
		// The Upbound family: the family provider, its service providers.
		{"xpkg.upbound.io/upbound/provider-family-aws:v1.14.0", "aws.upbound.io", true, ""},
		{"xpkg.upbound.io/upbound/provider-family-aws:v1.14.0", "s3.aws.upbound.io", false, ""},
		{"xpkg.upbound.io/upbound/provider-aws-s3:v1.14.0", "s3.aws.upbound.io", true, ""},
		{"xpkg.upbound.io/upbound/provider-aws-s3:v1.14.0", "aws.upbound.io", true, ""}, // through provider-family-aws
		{"xpkg.upbound.io/upbound/provider-aws-s3:v1.14.0", "ec2.aws.upbound.io", false, ""},
		{"xpkg.upbound.io/upbound/provider-gcp-cloudplatform@sha256:abc", "cloudplatform.gcp.upbound.io", true, ""},
		{"xpkg.upbound.io/upbound/provider-azure-network:v1", "network.azure.upbound.io", true, ""},
		// Monolithic and crossplane-contrib providers, whatever the registry.
		{"xpkg.upbound.io/upbound/provider-aws:v0.47.0", "aws.upbound.io", true, ""},
		{"xpkg.upbound.io/upbound/provider-aws:v0.47.0", "rds.aws.upbound.io", true, ""},
		{"xpkg.upbound.io/crossplane-contrib/provider-kubernetes:v0.15.0", "kubernetes.crossplane.io", true, ""},
		{"ghcr.io/mirror/provider-helm:v0.19.0", "helm.crossplane.io", true, ""},
		{"xpkg.upbound.io/crossplane-contrib/provider-sql:v0.9.0", "postgresql.sql.crossplane.io", true, ""},
		{"xpkg.upbound.io/crossplane-contrib/provider-kubernetes:v0.15.0", "helm.crossplane.io", false, ""},
		{"xpkg.upbound.io/crossplane-contrib/provider-kubernetes:v0.15.0", "kubernetes.io", false, ""},
		// Crossplane's own groups are never a provider's.
		{"xpkg.upbound.io/crossplane/provider-pkg:v1", "pkg.crossplane.io", false, ""},
		// Not a provider package.
		{"xpkg.upbound.io/upbound/configuration-aws-network:v0.5.0", "aws.upbound.io", false, ""},
		{"xpkg.upbound.io/crossplane-contrib/function-patch-and-transform:v0.7.0", "pt.fn.crossplane.io", false, ""},
		// A catalog exception answers instead of the convention.
		{"xpkg.upbound.io/upbound/provider-terraform:v0.16.0", "tf.upbound.io", true, "provider-terraform"},
		{"xpkg.upbound.io/upbound/provider-terraform:v0.16.0", "terraform.upbound.io", false, "provider-terraform"},
	}
	for _, tt := range tests {
		got, e := cat.PackageGroups(tt.ref, tt.group)
		name := ""
		if e != nil {
			name = e.Name
		}
		if got != tt.want || name != tt.entry {
			t.Errorf("PackageGroups(%q, %q) = %v, entry %q; want %v, entry %q", tt.ref, tt.group, got, name, tt.want, tt.entry)
		}
	}
}
