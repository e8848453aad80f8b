package check

import (
	"errors"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

func TestEvaluate(t *testing.T) {
	bundle, err := crds.LoadBundle(seedBundle)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		facts  func() Facts
		ready  []string
		want   map[string]Status
		wantIn map[string]string // check name -> text its summary or items must hold
	}{
		{
			name:  "healthy, no controllers in-cluster, no bundle",
			facts: healthy, ready: []string{"platform-config"},
			want: map[string]Status{"flux": Pass, "controllers": Skip, "crds": Pass, "bundle": Skip,
				"dry-run": Pass, "suspended": Pass, "kustomizations": Pass, "helmreleases": Skip, "ready": Pass},
			wantIn: map[string]string{"controllers": "not deployed in-cluster (skipped)", "helmreleases": "serves no HelmRelease API (skipped)", "ready": revNew},
		},
		{
			name: "HelmReleases: one Ready, one suspended, one refused by Helm",
			facts: func() Facts {
				f := healthy()
				f.CRDs[flux.HelmReleaseResource] = crdOf(flux.HelmReleaseResource, "v2", true)
				refused := hrObj("web", "False", "InstallFailed", `Helm install failed for release apps/web with chart web@1.0.0: unable to continue with install: CustomResourceDefinition "widgets.example.com" in namespace "" exists and cannot be imported into the current release: invalid ownership metadata; label validation error: missing key "app.kubernetes.io/managed-by": must be set to "Helm"; annotation validation error: missing key "meta.helm.sh/release-name": must be set to "web"; annotation validation error: missing key "meta.helm.sh/release-namespace": must be set to "apps"`)
				suspended := hrObj("db", "True", "InstallSucceeded", "Helm install succeeded")
				suspended.Suspended = true
				f.HelmReleases = []flux.Object{hrObj("cache", "True", "InstallSucceeded", "Helm install succeeded"), suspended, refused}
				return f
			},
			want: map[string]Status{"kustomizations": Pass, "helmreleases": Fail},
			wantIn: map[string]string{"helmreleases": "1 of 3 Ready HelmRelease/apps/db: spec.suspend is true " +
				"(standup resume resumes it) HelmRelease/apps/web: HardFailure (InstallFailed): Helm install failed for release apps/web " +
				"with chart web@1.0.0: unable to continue with install: CustomResourceDefinition \"widgets.example.com\" in namespace \"\" " +
				"exists and cannot be imported into the current release: invalid ownership metadata; label validation error: missing key " +
				"\"app.kubernetes.io/managed-by\": must be set to \"Helm\"; annotation validation error: missing key \"meta.helm.sh/release-name\": " +
				"must be set to \"web\"; annotation validation error: missing key \"meta.helm.sh/release-namespace\": must be set to \"apps\". " +
				"To let the release adopt it: kubectl label CustomResourceDefinition widgets.example.com app.kubernetes.io/managed-by=Helm; " +
				"kubectl annotate CustomResourceDefinition widgets.example.com meta.helm.sh/release-name=web meta.helm.sh/release-namespace=apps, " +
				"then flux reconcile hr web -n apps --reset",
			},
		},
		{
			name: "HelmReleases refused",
			facts: func() Facts {
				f := healthy()
				f.CRDs[flux.HelmReleaseResource] = crdOf(flux.HelmReleaseResource, "v2", true)
				f.HelmReleasesErr = errors.New(`forbidden: standup needs "list" on helmreleases.helm.toolkit.fluxcd.io`)
				return f
			},
			want:   map[string]Status{"helmreleases": Fail},
			wantIn: map[string]string{"helmreleases": `needs "list" on helmreleases`},
		},
		{
			name: "flux not installed",
			facts: func() Facts {
				return Facts{CRDs: map[string]*apiextensionsv1.CustomResourceDefinition{}}
			},
			want:   map[string]Status{"flux": Fail, "dry-run": Skip, "kustomizations": Skip, "ready": Skip},
			wantIn: map[string]string{"flux": "Flux is not installed on this cluster"},
		},
		{
			name: "flux serving an older API only",
			facts: func() Facts {
				f := healthy()
				f.CRDs[flux.KustomizationCRD] = crdOf(flux.KustomizationCRD, "v1beta2", true)
				return f
			},
			want:   map[string]Status{"flux": Fail, "kustomizations": Skip},
			wantIn: map[string]string{"flux": "does not serve kustomize.toolkit.fluxcd.io/v1"},
		},
		{
			name: "a controller not available",
			facts: func() Facts {
				f := healthy()
				f.Controllers = []unstructured.Unstructured{deployment("kustomize-controller", true), deployment("source-controller", false)}
				return f
			},
			want:   map[string]Status{"controllers": Fail},
			wantIn: map[string]string{"controllers": "Deployment/flux-system/source-controller"},
		},
		{
			name: "controllers available",
			facts: func() Facts {
				f := healthy()
				f.Controllers = []unstructured.Unstructured{deployment("kustomize-controller", true)}
				return f
			},
			want: map[string]Status{"controllers": Pass},
		},
		{
			name: "controllers cannot be listed",
			facts: func() Facts {
				f := healthy()
				f.ControllersErr = errors.New(`forbidden: list deployments.apps`)
				return f
			},
			want: map[string]Status{"controllers": Fail},
		},
		{
			name: "seed deadlock: platform-config stuck, apps-vms waiting",
			facts: func() Facts {
				f := healthy()
				delete(f.CRDs, "storageprofiles.cdi.kubevirt.io")
				f.Kustomizations = []flux.Object{
					ks("apps-vms", false, "DependencyNotReady", "dependency 'flux-system/platform-config' is not ready", ""),
					ks("platform", true, "", "", revNew),
					ks("platform-config", false, "ReconciliationFailed", dryRunMessage, ""),
				}
				return f
			},
			ready: []string{"platform-config"},
			want: map[string]Status{"dry-run": Fail, "suspended": Pass, "kustomizations": Fail,
				"ready": Fail, "crds": Pass},
			wantIn: map[string]string{"dry-run": "StorageProfile", "kustomizations": "apps-vms", "ready": "not Ready"},
		},
		{
			name: "deadlock and suspension are listed once, not again as not Ready, and fail the count",
			facts: func() Facts {
				f := healthy()
				delete(f.CRDs, "storageprofiles.cdi.kubevirt.io")
				suspended := ks("apps", true, "", "", revNew)
				suspended.Suspended = true
				f.Kustomizations = []flux.Object{suspended, ks("platform-config", false, "ReconciliationFailed", dryRunMessage, "")}
				return f
			},
			want:   map[string]Status{"dry-run": Fail, "suspended": Fail, "kustomizations": Fail},
			wantIn: map[string]string{"kustomizations": "0 of 2 Ready (2 more listed above)", "suspended": "flux-system/apps"},
		},
		{
			name: "a partial count is no pass: one suspended of two",
			facts: func() Facts {
				f := healthy()
				f.Kustomizations[0] = ks("platform", false, "", "", revNew)
				f.Kustomizations[0].Suspended = true
				return f
			},
			want:   map[string]Status{"suspended": Fail, "kustomizations": Fail},
			wantIn: map[string]string{"kustomizations": "1 of 2 Ready (1 more listed above)"},
		},
		{
			name: "ready at an old revision",
			facts: func() Facts {
				f := healthy()
				f.Kustomizations[1] = ks("platform-config", true, "", "", revOld)
				return f
			},
			ready:  []string{"flux-system/platform-config"},
			want:   map[string]Status{"ready": Fail, "kustomizations": Pass},
			wantIn: map[string]string{"ready": "is at " + revNew},
		},
		{
			name:   "named Kustomization absent",
			facts:  healthy,
			ready:  []string{"platform-config-cdi"},
			want:   map[string]Status{"ready": Fail},
			wantIn: map[string]string{"ready": `no Kustomization named "platform-config-cdi"`},
		},
		{
			name: "source unreadable",
			facts: func() Facts {
				f := healthy()
				f.Sources[fluxSource] = SourceRevision{Err: errors.New("GitRepository/flux-system/flux-system: not found")}
				return f
			},
			ready:  []string{"platform-config"},
			want:   map[string]Status{"ready": Fail},
			wantIn: map[string]string{"ready": "could not be read"},
		},
		{
			name: "CRD not established",
			facts: func() Facts {
				f := healthy()
				f.CRDs["storageprofiles.cdi.kubevirt.io"] = crdOf("storageprofiles.cdi.kubevirt.io", "v1beta1", false)
				return f
			},
			want:   map[string]Status{"crds": Fail},
			wantIn: map[string]string{"crds": "Established=False (Installing)"},
		},
		{
			name: "invalid bundle",
			facts: func() Facts {
				f := healthy()
				f.BundleDir, f.BundleErr = "bootstrap/crds", errors.New("bootstrap/crds/bad.yaml: document 1: not a CustomResourceDefinition")
				return f
			},
			want:   map[string]Status{"bundle": Fail},
			wantIn: map[string]string{"bundle": "bad.yaml"},
		},
		{
			name: "valid bundle",
			facts: func() Facts {
				f := healthy()
				f.BundleDir, f.Bundle = seedBundle, bundle
				return f
			},
			want:   map[string]Status{"bundle": Pass},
			wantIn: map[string]string{"bundle": "storageprofiles.cdi.kubevirt.io"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Evaluate(tt.facts(), tt.ready)
			byName := map[string]Result{}
			var names []string
			for _, c := range r.Checks {
				byName[c.Name] = c
				names = append(names, c.Name)
			}
			if got := strings.Join(names, ","); got != "flux,controllers,crds,bundle,dry-run,suspended,kustomizations,helmreleases,ready" {
				t.Fatalf("checks %s: the order and set are part of the -o json schema", got)
			}
			wantOK := true
			for name, st := range tt.want {
				if byName[name].Status != st {
					t.Errorf("%s: status %s, want %s (%s %+v)", name, byName[name].Status, st, byName[name].Summary, byName[name].Items)
				}
			}
			for _, c := range r.Checks {
				wantOK = wantOK && c.Status != Fail
			}
			if r.OK != wantOK || r.SchemaVersion != 1 {
				t.Errorf("ok %t schemaVersion %d, want ok %t schemaVersion 1", r.OK, r.SchemaVersion, wantOK)
			}
			for name, text := range tt.wantIn {
				if said := says(byName[name]); !strings.Contains(said, text) {
					t.Errorf("%s does not say %q:\n%s", name, text, said)
				}
			}
		})
	}
}

// says is what a result tells a reader: its summary, and each item's object
// and message, with runs of white space as one space (as a printer may wrap
// them).
func says(r Result) string {
	parts := []string{r.Summary}
	for _, it := range r.Items {
		if it.Object != nil {
			parts = append(parts, it.Object.String()+":")
		}
		parts = append(parts, it.Message)
	}
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

func hrObj(name, status, reason, message string) flux.Object {
	return flux.Object{
		Node:       tiers.Node{ID: tiers.ID{Kind: flux.KindHelmRelease, Namespace: "apps", Name: name}},
		Generation: 1, ObservedGeneration: 1,
		Ready: &flux.Condition{Status: status, Reason: reason, Message: message},
	}
}
