package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/wait"
)

// chartVariant is a chart that brings the CRD of a kind, and where.
type chartVariant struct {
	chart, crdFile string // the chart, and its CRD's file inside it
	crd            string
	gvk            schema.GroupVersionKind
}

var (
	crdsDirChart = chartVariant{
		chart: "gadgets", crdFile: "crds/gadgets.crds.standup.test.yaml", crd: "gadgets.crds.standup.test",
		gvk: schema.GroupVersionKind{Group: "crds.standup.test", Version: "v1", Kind: "Gadget"},
	}
	templatesChart = chartVariant{
		chart: "sprockets", crdFile: "templates/crd.yaml", crd: "sprockets.templates.standup.test",
		gvk: schema.GroupVersionKind{Group: "templates.standup.test", Version: "v1", Kind: "Sprocket"},
	}
)

// Helm's ownership metadata: what Helm requires of an object it did not
// create before it takes it into a release (helm.sh/helm/v4 pkg/action).
const (
	helmManagedByLabel    = "app.kubernetes.io/managed-by"
	helmReleaseNameAnn    = "meta.helm.sh/release-name"
	helmReleaseNamespcAnn = "meta.helm.sh/release-namespace"
)

// chartDeadlock is the chart form of the seed's deadlock, in a namespace
// of its own: the Kustomization app (wait: true) holds the HelmRelease of a
// chart and a custom resource of the kind the chart installs. Its
// server-side dry-run fails on that kind, so nothing of it is applied, the
// HelmRelease never exists, and the CRD never comes. The bundle holds the
// chart's CRD, as it is in the chart, or with Helm's ownership metadata for
// the release (owned).
type chartDeadlock struct {
	ns, bundle string
	w          *testenv.World
	v          chartVariant
}

func newChartDeadlock(t *testing.T, v chartVariant, hr testenv.HR, owned bool) *chartDeadlock {
	t.Helper()
	ns := hr.Namespace
	w := helmWorld(t, testenv.Options{}, []string{v.chart}, ns)
	d := &chartDeadlock{ns: ns, w: w, v: v, bundle: t.TempDir()}
	crd, err := testenv.LoadCRD(filepath.Join(chartsDir, v.chart, v.crdFile))
	if err != nil {
		t.Fatal(err)
	}
	if owned {
		crd.Labels = map[string]string{helmManagedByLabel: "Helm"}
		crd.Annotations = map[string]string{helmReleaseNameAnn: hr.Name, helmReleaseNamespcAnn: ns}
	}
	data, err := yaml.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.bundle, v.crd+".yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cr := fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata:\n  name: first\n  namespace: %s\n", v.gvk.GroupVersion(), v.gvk.Kind, ns)
	tree := writeTree(t, t.TempDir(), map[string]string{"app/release.yaml": hrYAML(t, hr), "app/cr.yaml": cr})
	publish(t, w, ns, tree)
	create(t, w, testenv.KS{Namespace: ns, Name: "app", Path: "./app", Wait: true, Timeout: 2 * time.Minute})
	// Flux alone: the dry-run fails on the kind, and nothing is applied.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		c := readyCondition(getKS(t, w, ns, "app"))
		if c != nil && strings.Contains(c.Message, fmt.Sprintf("no matches for kind %q", v.gvk.Kind)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("app never failed its dry-run on %s: %+v", v.gvk.Kind, c)
		}
		time.Sleep(250 * time.Millisecond)
	}
	return d
}

// repaired checks the chart installed after the repair: the HelmRelease
// Ready at its generation, Helm's release secret, the custom resource, and
// the CRD the one standup created (its annotation; not replaced) — owned by
// the release when the chart ships it in templates/, left alone by Helm
// when in crds/ — and no other CRD changed.
func (d *chartDeadlock) repaired(t *testing.T, release string, crdsBefore map[string]string) {
	t.Helper()
	releaseInstalled(t, d.w, d.ns, release)
	cr := &unstructured.Unstructured{}
	cr.SetGroupVersionKind(d.v.gvk)
	if err := d.w.Client.Get(context.Background(), client.ObjectKey{Namespace: d.ns, Name: "first"}, cr); err != nil {
		t.Errorf("the %s the Kustomization holds: %v", d.v.gvk.Kind, err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := d.w.Client.Get(context.Background(), client.ObjectKey{Name: d.v.crd}, crd); err != nil {
		t.Fatal(err)
	}
	if got := crd.Annotations[crds.PreAppliedForAnnotation]; got != "Kustomization/"+d.ns+"/app" {
		t.Errorf("CRD %s: %s = %q: want the CRD standup created, not replaced", d.v.crd, crds.PreAppliedForAnnotation, got)
	}
	owned := crd.Labels[helmManagedByLabel] == "Helm" && crd.Annotations[helmReleaseNameAnn] == release
	if want := d.v == templatesChart; owned != want {
		t.Errorf("CRD %s owned by release %s = %v, want %v (labels %v, annotations %v)", d.v.crd, release, owned, want, crd.Labels, crd.Annotations)
	}
	after := crdNames(t, d.w)
	for name, rv := range crdsBefore {
		if after[name] != rv {
			t.Errorf("CRD %s changed (resourceVersion %s -> %s)", name, rv, after[name])
		}
	}
	if len(after) != len(crdsBefore)+1 {
		t.Errorf("%d CRDs after the repair, want the %d before and %s", len(after), len(crdsBefore), d.v.crd)
	}
}

// TestChartDeadlockRepaired repairs the chart deadlock with the real
// kustomize-controller v1.9.6 and helm-controller v1.5.5, for a chart that
// ships the CRD in crds/ and one that ships it in templates/, by resume and
// by crds. standup pre-applies the bundle's CRD as it does any: Helm leaves
// a crds/ CRD that exists alone, and takes a templates/ one into the
// release (helm-controller v1.5 installs with Helm's take-ownership unless
// install.disableTakeOwnership), so the chart installs either way.
func TestChartDeadlockRepaired(t *testing.T) {
	for _, v := range []chartVariant{crdsDirChart, templatesChart} {
		for _, command := range []string{"resume", "crds"} {
			t.Run(v.chart+"/"+command, func(t *testing.T) {
				hr := testenv.HR{Namespace: testenv.UniqueName("chart"), Name: "release", Chart: v.chart}
				d := newChartDeadlock(t, v, hr, false)
				before := crdNames(t, d.w)
				res := runCLI(t, d.w, command, "--crds", d.bundle, "--node-timeout", "2m")
				if res.Code != ExitOK {
					t.Fatalf("%s exit %d: %v\n%s", command, res.Code, res.Err, res.Stdout)
				}
				if command == "crds" {
					d.waitRelease(t, hr.Name)
				}
				d.repaired(t, hr.Name, before)
			})
		}
	}
}

// waitRelease waits for the HelmRelease the repaired Kustomization
// applied: crds walks the Kustomizations it repaired, which wait: true
// holds until the release is Ready, so it is there already or about to be.
func (d *chartDeadlock) waitRelease(t *testing.T, name string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(testenv.HelmReleaseGVK)
		if err := d.w.Client.Get(context.Background(), client.ObjectKey{Namespace: d.ns, Name: name}, u); err == nil {
			if ready, _ := hrReadyAtGeneration(u); ready {
				return
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func hrReadyAtGeneration(u *unstructured.Unstructured) (bool, string) {
	observed, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Ready" {
			return m["status"] == "True" && observed == u.GetGeneration(), fmt.Sprint(m["message"])
		}
	}
	return false, "no Ready condition"
}

// TestChartDeadlockWithoutTakeOwnership: a release that refuses to take
// ownership (install.disableTakeOwnership) installs a templates/ CRD that
// standup pre-applied only when the bundle's CRD carries Helm's ownership
// metadata for that release; without it, Helm refuses, and resume fails
// the HelmRelease saying why and what to do.
func TestChartDeadlockWithoutTakeOwnership(t *testing.T) {
	t.Run("owned bundle", func(t *testing.T) {
		hr := testenv.HR{Namespace: testenv.UniqueName("owned"), Name: "release", Chart: templatesChart.chart, DisableTakeOwnership: true}
		d := newChartDeadlock(t, templatesChart, hr, true)
		before := crdNames(t, d.w)
		res := runCLI(t, d.w, "resume", "--crds", d.bundle, "--node-timeout", "2m")
		if res.Code != ExitOK {
			t.Fatalf("resume exit %d: %v", res.Code, res.Err)
		}
		d.repaired(t, hr.Name, before)
	})
	t.Run("bundle without Helm's metadata", func(t *testing.T) {
		hr := testenv.HR{Namespace: testenv.UniqueName("unowned"), Name: "release", Chart: templatesChart.chart, DisableTakeOwnership: true}
		d := newChartDeadlock(t, templatesChart, hr, false)
		before := crdNames(t, d.w)
		start := time.Now()
		res := runCLI(t, d.w, "resume", "--crds", d.bundle, "--node-timeout", "2m", "-o", "json")
		if res.Code != ExitFailure {
			t.Fatalf("resume exit %d: want %d, the HelmRelease failed", res.Code, ExitFailure)
		}
		if took := time.Since(start); took > time.Minute {
			t.Errorf("resume took %s: the refusal must fail the HelmRelease at once, not at its timeout", took)
		}
		var msg string
		for _, e := range events(t, res.Stdout) {
			if e.Type == wait.EventNode && e.Phase == wait.PhaseFailed && *e.Node == hrNode(d.ns, hr.Name) {
				msg = e.Message
			}
		}
		remedy := fmt.Sprintf("kubectl label CustomResourceDefinition %s app.kubernetes.io/managed-by=Helm; kubectl annotate CustomResourceDefinition %s meta.helm.sh/release-name=%s meta.helm.sh/release-namespace=%s",
			templatesChart.crd, templatesChart.crd, hr.Name, d.ns)
		for _, want := range []string{"standup pre-applied it for Kustomization/" + d.ns + "/app", remedy, "flux reconcile hr release -n " + d.ns + " --reset"} {
			if !strings.Contains(msg, want) {
				t.Errorf("the HelmRelease's failure lacks %q:\n%s", want, msg)
			}
		}
		// The advice finishes the repair: the metadata on the CRD, and a
		// reconcile with a reset (flux reconcile hr --reset).
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := d.w.Client.Get(context.Background(), client.ObjectKey{Name: templatesChart.crd}, crd); err != nil {
			t.Fatal(err)
		}
		patch := fmt.Sprintf(`{"metadata":{"labels":{%q:"Helm"},"annotations":{%q:%q,%q:%q}}}`,
			helmManagedByLabel, helmReleaseNameAnn, hr.Name, helmReleaseNamespcAnn, d.ns)
		if err := d.w.Client.Patch(context.Background(), crd, client.RawPatch("application/merge-patch+json", []byte(patch))); err != nil {
			t.Fatal(err)
		}
		token := time.Now().Format(time.RFC3339Nano)
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(testenv.HelmReleaseGVK)
		u.SetNamespace(d.ns)
		u.SetName(hr.Name)
		reset := fmt.Sprintf(`{"metadata":{"annotations":{"reconcile.fluxcd.io/requestedAt":%q,"reconcile.fluxcd.io/resetAt":%q}}}`, token, token)
		if err := d.w.Client.Patch(context.Background(), u, client.RawPatch("application/merge-patch+json", []byte(reset))); err != nil {
			t.Fatal(err)
		}
		d.waitRelease(t, hr.Name)
		d.repaired(t, hr.Name, before)
	})
}
