package crds

import (
	"reflect"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// sprocketsCRD is the templates/ chart's CRD, as a bundle holds it: with
// Helm's ownership metadata of release ns/name when ns is set.
func sprocketsCRD(ns, name string) *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "sprockets.templates.standup.test"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "templates.standup.test", Scope: apiextensionsv1.NamespaceScoped,
			Names:    apiextensionsv1.CustomResourceDefinitionNames{Plural: "sprockets", Singular: "sprocket", Kind: "Sprocket", ListKind: "SprocketList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}},
		},
	}
	if ns != "" {
		crd.Labels = map[string]string{HelmManagedByLabel: HelmManagedByValue}
		crd.Annotations = map[string]string{HelmReleaseNameAnnotation: name, HelmReleaseNamespaceAnnotation: ns}
	}
	return crd
}

func TestHelmReleaseOf(t *testing.T) {
	half := sprocketsCRD("apps", "web")
	delete(half.Annotations, HelmReleaseNamespaceAnnotation)
	unlabelled := sprocketsCRD("apps", "web")
	unlabelled.Labels = nil
	tests := []struct {
		name string
		crd  *apiextensionsv1.CustomResourceDefinition
		want string
	}{
		{name: "Helm's metadata", crd: sprocketsCRD("apps", "web"), want: "apps/web"},
		{name: "none", crd: sprocketsCRD("", "")},
		{name: "no release namespace", crd: half},
		{name: "not managed by Helm", crd: unlabelled},
		{name: "no CRD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HelmReleaseOf(tt.crd); got != tt.want {
				t.Errorf("HelmReleaseOf = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestDiagnoseNamesTheBundleCRDsRelease: a bundle CRD with Helm's
// ownership metadata (as crds capture keeps it) tells the diagnosis that a
// chart installs the kind, and which release.
func TestDiagnoseNamesTheBundleCRDsRelease(t *testing.T) {
	message := `Sprocket/apps/first dry-run failed: no matches for kind "Sprocket" in version "templates.standup.test/v1"`
	for _, owned := range []bool{true, false} {
		crd := sprocketsCRD("", "")
		if owned {
			crd = sprocketsCRD("apps", "web")
		}
		bundle, err := NewBundle([]BundleEntry{{CRD: crd, File: "bootstrap/crds/sprockets.yaml"}})
		if err != nil {
			t.Fatal(err)
		}
		d, ok := Diagnose(kustomization("app", failed(message)), nil, bundle)
		if !ok || len(d.Missing) != 1 {
			t.Fatalf("owned=%v: diagnosis %+v, want one missing kind", owned, d)
		}
		want := ""
		if owned {
			want = "apps/web"
		}
		if got := d.Missing[0].HelmRelease; got != want {
			t.Errorf("owned=%v: helmRelease %q, want %q", owned, got, want)
		}
		if says := strings.Contains(d.String(), "Helm's ownership metadata of release apps/web: a chart installs it"); says != owned {
			t.Errorf("owned=%v: the diagnosis names the release = %v:\n%s", owned, says, d)
		}
	}
}

func TestHelmOwnershipCommandsAndExplain(t *testing.T) {
	f, _ := ParseHelmOwnershipFailure(helmRefusal)
	release := tiers.ID{Kind: flux.KindHelmRelease, Namespace: "unowned-3", Name: "release"}
	want := []string{
		"kubectl label CustomResourceDefinition sprockets.templates.standup.test app.kubernetes.io/managed-by=Helm",
		"kubectl annotate CustomResourceDefinition sprockets.templates.standup.test meta.helm.sh/release-name=release meta.helm.sh/release-namespace=unowned-3",
		"flux reconcile hr release -n unowned-3 --reset",
	}
	if got := f.Commands(release); !reflect.DeepEqual(got, want) {
		t.Errorf("Commands =\n%q\nwant\n%q", got, want)
	}
	anon := HelmOwnershipFailure{Object: f.Object}
	if got := anon.Commands(release); len(got) != 2 || got[0] != anon.Remedy() || got[1] != want[2] {
		t.Errorf("Commands without the release's name = %q: want Remedy's sentence, then the reset", got)
	}
	ks := tiers.ID{Kind: flux.KindKustomization, Namespace: "unowned-3", Name: "app"}
	ours := f.Explain(release, helmRefusal, &ks)
	for _, s := range []string{"standup pre-applied it for Kustomization/unowned-3/app", f.Remedy(), want[2], "Helm said: " + helmRefusal} {
		if !strings.Contains(ours, s) {
			t.Errorf("Explain (pre-applied) lacks %q:\n%s", s, ours)
		}
	}
	if theirs := f.Explain(release, helmRefusal, nil); strings.Contains(theirs, "pre-applied") || !strings.HasPrefix(theirs, helmRefusal) || !strings.Contains(theirs, want[2]) {
		t.Errorf("Explain (not ours) = %s", theirs)
	}
}

// TestChartReleases: the chart form is a HelmRelease the repaired
// Kustomization applied whose chart installs a CRD created for it: its
// inventory lists the CRD (Ready), or Helm refused it (with the commands
// that finish the repair). Releases of other Kustomizations, and those
// whose charts install none of the CRDs, are not the chart form.
func TestChartReleases(t *testing.T) {
	ks := tiers.ID{Kind: flux.KindKustomization, Namespace: "unowned-3", Name: "app"}
	other := tiers.ID{Kind: flux.KindKustomization, Namespace: "unowned-3", Name: "other"}
	created := []string{"gadgets.crds.standup.test", "sprockets.templates.standup.test"}
	release := func(name string, by *tiers.ID, ready *flux.Condition, inventory ...string) flux.Object {
		return flux.Object{Node: tiers.Node{ID: tiers.ID{Kind: flux.KindHelmRelease, Namespace: "unowned-3", Name: name}},
			AppliedBy: by, Ready: ready, Inventory: inventory, Generation: 2, ObservedGeneration: 2}
	}
	installed := &flux.Condition{Status: "True", Reason: "InstallSucceeded", Message: "Helm install succeeded"}
	gadgetsCRD := "_gadgets.crds.standup.test_apiextensions.k8s.io_CustomResourceDefinition"
	releases := []flux.Object{
		release("release", &ks, &flux.Condition{Status: "False", Reason: "InstallFailed", Message: helmRefusal}),
		release("gadgets", &ks, installed, gadgetsCRD, "unowned-3_web_apps_Deployment"),
		release("plain", &ks, installed, "unowned-3_plain_apps_Deployment"),
		release("elsewhere", &other, installed, gadgetsCRD),
		release("unapplied", nil, installed, gadgetsCRD),
	}
	got := ChartReleases(ks, created, releases)
	if len(got) != 2 {
		t.Fatalf("ChartReleases = %+v, want gadgets and release", got)
	}
	if g := got[0]; g.HelmRelease.Name != "gadgets" || !g.Ready || g.Refused != nil || !reflect.DeepEqual(g.CRDs, []string{"gadgets.crds.standup.test"}) {
		t.Errorf("gadgets = %+v, want Ready over gadgets.crds.standup.test", g)
	}
	r := got[1]
	if r.HelmRelease.Name != "release" || r.Ready || r.Refused == nil || !reflect.DeepEqual(r.CRDs, []string{"sprockets.templates.standup.test"}) {
		t.Fatalf("release = %+v, want refused over sprockets.templates.standup.test", r)
	}
	f, _ := ParseHelmOwnershipFailure(helmRefusal)
	if !reflect.DeepEqual(r.Refused.Commands, f.Commands(r.HelmRelease)) || r.Refused.Advice != f.Explain(r.HelmRelease, helmRefusal, &ks) {
		t.Errorf("refused = %+v, want Commands and Explain of Helm's refusal", r.Refused)
	}
	if got := ChartReleases(ks, nil, releases); len(got) != 0 {
		t.Errorf("nothing created: ChartReleases = %+v, want none", got)
	}
}
