package crds

import (
	"testing"
)

// helmRefusal is helm-controller v1.5.5's Ready message for Helm v4
// refusing a CRD standup pre-applied (InstallFailed), as the chart
// deadlock test saw it.
const helmRefusal = `Helm install failed for release unowned-3/release with chart sprockets@1.0.0: unable to continue with install: CustomResourceDefinition "sprockets.templates.standup.test" in namespace "" exists and cannot be imported into the current release: invalid ownership metadata; label validation error: missing key "app.kubernetes.io/managed-by": must be set to "Helm"; annotation validation error: missing key "meta.helm.sh/release-name": must be set to "release"; annotation validation error: missing key "meta.helm.sh/release-namespace": must be set to "unowned-3"`

func TestParseHelmOwnershipFailure(t *testing.T) {
	tests := []struct {
		name    string
		message string
		want    HelmOwnershipFailure
		ok      bool
	}{
		{name: "missing metadata", message: helmRefusal, ok: true, want: HelmOwnershipFailure{
			Object: ObjectRef{Kind: "CustomResourceDefinition", Name: "sprockets.templates.standup.test"}, ReleaseName: "release", ReleaseNamespace: "unowned-3",
		}},
		{name: "another release's object", ok: true,
			message: `Helm upgrade failed: Unable to continue with update: ConfigMap "web" in namespace "apps" exists and cannot be imported into the current release: invalid ownership metadata; annotation validation error: key "meta.helm.sh/release-name" must equal "web": current value is "old"; annotation validation error: key "meta.helm.sh/release-namespace" must equal "apps": current value is "legacy"`,
			want:    HelmOwnershipFailure{Object: ObjectRef{Kind: "ConfigMap", Namespace: "apps", Name: "web"}, ReleaseName: "web", ReleaseNamespace: "apps"}},
		{name: "another install failure", message: "Helm install failed for release apps/web with chart web@1.0.0: context deadline exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseHelmOwnershipFailure(tt.message)
			if ok != tt.ok || got != tt.want {
				t.Errorf("ParseHelmOwnershipFailure = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestHelmOwnershipRemedy(t *testing.T) {
	f, _ := ParseHelmOwnershipFailure(helmRefusal)
	want := "kubectl label CustomResourceDefinition sprockets.templates.standup.test app.kubernetes.io/managed-by=Helm; " +
		"kubectl annotate CustomResourceDefinition sprockets.templates.standup.test meta.helm.sh/release-name=release meta.helm.sh/release-namespace=unowned-3"
	if got := f.Remedy(); got != want {
		t.Errorf("Remedy =\n%s\nwant\n%s", got, want)
	}
}
