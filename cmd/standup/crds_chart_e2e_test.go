package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// crdsChartReport is the part of `crds -o json` the chart tests read.
type crdsChartReport struct {
	DryRun  bool `json:"dryRun"`
	Repairs []struct {
		Diagnosis  crds.Diagnosis          `json:"diagnosis"`
		Resolvable bool                    `json:"resolvable"`
		Create     []struct{ Name string } `json:"create"`
		Releases   []crds.ChartRelease     `json:"releases"`
	} `json:"repairs"`
	Walk *wait.Summary `json:"walk"`
}

func chartReport(t *testing.T, stdout string) crdsChartReport {
	t.Helper()
	var doc crdsChartReport
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("crds -o json: %v\n%s", err, stdout)
	}
	return doc
}

// untouched checks that nothing of the chart deadlock moved: the chart's
// CRD absent, no HelmRelease applied, the Kustomization never asked to
// reconcile, and every CRD as it was.
func (d *chartDeadlock) untouched(t *testing.T, release string, crdsBefore map[string]string) {
	t.Helper()
	err := d.w.Client.Get(context.Background(), client.ObjectKey{Name: d.v.crd}, &apiextensionsv1.CustomResourceDefinition{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("CRD %s: %v, want it absent", d.v.crd, err)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(testenv.HelmReleaseGVK)
	if err := d.w.Client.Get(context.Background(), client.ObjectKey{Namespace: d.ns, Name: release}, u); !apierrors.IsNotFound(err) {
		t.Errorf("HelmRelease %s/%s: %v, want it never applied", d.ns, release, err)
	}
	if ks := getKS(t, d.w, d.ns, "app"); ks.Annotations[flux.ReconcileRequestAnnotation] != "" {
		t.Errorf("Kustomization app was asked to reconcile: %v", ks.Annotations)
	}
	if after := crdNames(t, d.w); fmt.Sprint(after) != fmt.Sprint(crdsBefore) {
		t.Errorf("the CRDs changed:\n%v\nwant\n%v", after, crdsBefore)
	}
}

// TestCRDsRepairsTheChartForm: the one-shot fallback repairs the chart
// form of the deadlock, with the real kustomize-controller v1.9.6 and
// helm-controller v1.5.5, for a chart that ships the CRD in crds/ and one
// that ships it in templates/ (Helm takes it into the release). The
// Kustomization app holds HelmRelease release and a resource of the kind
// its chart installs. crds --dry-run diagnoses it and changes nothing;
// crds proves it, pre-applies the chart's CRD alone, and follows app and
// the HelmRelease it applies to Ready, as resume does: when crds returns,
// both are Ready, the release installed over the CRD standup created, and
// the report names the release of the chart form (text for one chart,
// -o json for the other).
func TestCRDsRepairsTheChartForm(t *testing.T) {
	for _, v := range []chartVariant{crdsDirChart, templatesChart} {
		t.Run(v.chart, func(t *testing.T) {
			hr := testenv.HR{Namespace: testenv.UniqueName("crdschart"), Name: "release", Chart: v.chart}
			d := newChartDeadlock(t, v, hr, false)
			before := crdNames(t, d.w)
			appID := tiers.ID{Kind: flux.KindKustomization, Namespace: d.ns, Name: "app"}

			dry := runCLI(t, d.w, "crds", "--dry-run", "--crds", d.bundle, "-o", "json")
			if dry.Code != ExitOK {
				t.Fatalf("crds --dry-run exit %d: %v", dry.Code, dry.Err)
			}
			plan := chartReport(t, dry.Stdout)
			if len(plan.Repairs) != 1 || plan.Repairs[0].Diagnosis.Kustomization != appID || !plan.Repairs[0].Resolvable ||
				len(plan.Repairs[0].Create) != 1 || plan.Repairs[0].Create[0].Name != v.crd || plan.Walk != nil || len(plan.Repairs[0].Releases) != 0 {
				t.Fatalf("crds --dry-run: want app stuck on %s, its CRD alone to create, no walk:\n%s", v.gvk.Kind, dry.Stdout)
			}
			d.untouched(t, hr.Name, before)

			// The walk knows no operator of the chart's kind, so it cannot
			// be certain and waits for one: the quiet window is shortened
			// so that the test waits seconds, and the deadlock is said to
			// be treated as one, never proven.
			args := []string{"crds", "--crds", d.bundle, "--node-timeout", "2m", "--operator-quiet", "3s"}
			if v == templatesChart {
				args = append(args, "-o", "json")
			}
			res := runCLI(t, d.w, args...)
			if res.Code != ExitOK {
				t.Fatalf("crds exit %d: %v\n%s", res.Code, res.Err, res.Stdout)
			}
			t.Logf("standup crds --crds DIR:\nstdout:\n%s", res.Stdout)
			// No wait: crds returns once both are Ready.
			if ks := getKS(t, d.w, d.ns, "app"); !isReady(ks) {
				t.Errorf("Kustomization app not Ready when crds returned: %v", ks.Status.Conditions)
			}
			d.repaired(t, hr.Name, before)
			if v == templatesChart {
				doc := chartReport(t, res.Stdout)
				if doc.Walk == nil || doc.Walk.Ready != 2 || doc.Walk.Total != 2 {
					t.Errorf("walk %+v: want app and its HelmRelease walked to Ready", doc.Walk)
				}
				if len(doc.Repairs) != 1 || len(doc.Repairs[0].Releases) != 1 {
					t.Fatalf("repairs: want one, with the release of the chart form:\n%s", res.Stdout)
				}
				r := doc.Repairs[0].Releases[0]
				if r.HelmRelease != hrNode(d.ns, hr.Name) || !r.Ready || r.Refused != nil || strings.Join(r.CRDs, ",") != v.crd {
					t.Errorf("release %+v: want %s Ready over %s", r, hrNode(d.ns, hr.Name), v.crd)
				}
				return
			}
			for _, want := range []string{
				"Kustomization " + d.ns + "/app cannot apply",
				"will create CustomResourceDefinition/" + v.crd + " (field manager standup) once the deadlock is proven",
				fmt.Sprintf("%s: the chart form: HelmRelease %s/%s, applied in the same pass, installs CustomResourceDefinition/%s from its chart: Ready", appID, d.ns, hr.Name, v.crd),
			} {
				if !strings.Contains(res.Stdout, want) {
					t.Errorf("crds' report lacks %q:\n%s", want, res.Stdout)
				}
			}
			for _, want := range []string{"cold-start deadlock, not proven", "no progress for 3s, treated as deadlocked", "pre-apply-crds: created CustomResourceDefinition [" + v.crd + "]", "HelmRelease/" + d.ns + "/" + hr.Name + " ready"} {
				if !strings.Contains(res.Stderr, want) {
					t.Errorf("the repair walk's progress lacks %q:\n%s", want, res.Stderr)
				}
			}
		})
	}
}

// TestCRDsChartFormWithoutTakeOwnership: a release with
// install.disableTakeOwnership, its chart shipping the CRD in templates/.
// With a bundle CRD that lacks Helm's ownership metadata, Helm refuses the
// CRD crds pre-applied: crds fails the release at once (not at its
// timeout) and prints what finishes the repair, the commands resume
// prints, in text and in -o json; running them installs the release. With
// a bundle CRD that carries the metadata (as crds capture writes it), the
// diagnosis names the release, and the repair completes.
func TestCRDsChartFormWithoutTakeOwnership(t *testing.T) {
	remedy := func(ns string) []string {
		return []string{
			"kubectl label CustomResourceDefinition " + templatesChart.crd + " app.kubernetes.io/managed-by=Helm",
			fmt.Sprintf("kubectl annotate CustomResourceDefinition %s meta.helm.sh/release-name=release meta.helm.sh/release-namespace=%s", templatesChart.crd, ns),
			"flux reconcile hr release -n " + ns + " --reset",
		}
	}
	for _, format := range []string{"text", "json"} {
		t.Run("bundle without Helm's metadata/"+format, func(t *testing.T) {
			hr := testenv.HR{Namespace: testenv.UniqueName("crdsunowned"), Name: "release", Chart: templatesChart.chart, DisableTakeOwnership: true}
			d := newChartDeadlock(t, templatesChart, hr, false)
			before := crdNames(t, d.w)
			start := time.Now()
			res := runCLI(t, d.w, "crds", "--crds", d.bundle, "--node-timeout", "2m", "-o", format)
			if res.Code != ExitFailure {
				t.Fatalf("crds exit %d: want %d, the HelmRelease failed", res.Code, ExitFailure)
			}
			if took := time.Since(start); took > time.Minute {
				t.Errorf("crds took %s: Helm's refusal must fail the release at once, not at its timeout", took)
			}
			t.Logf("standup crds --crds DIR -o %s:\nstdout:\n%s", format, res.Stdout)
			want := remedy(d.ns)
			if format == "text" {
				for _, c := range want {
					if !strings.Contains(res.Stdout, "\n  "+c+"\n") {
						t.Errorf("crds' report lacks the command line %q:\n%s", c, res.Stdout)
					}
				}
				if !strings.Contains(res.Stdout, "Helm will not take CustomResourceDefinition/"+templatesChart.crd+" into the release") {
					t.Errorf("crds' report does not say Helm refused the CRD:\n%s", res.Stdout)
				}
			} else {
				doc := chartReport(t, res.Stdout)
				if len(doc.Repairs) != 1 || len(doc.Repairs[0].Releases) != 1 || doc.Repairs[0].Releases[0].Refused == nil {
					t.Fatalf("want one repair whose release Helm refused:\n%s", res.Stdout)
				}
				r := doc.Repairs[0].Releases[0]
				if strings.Join(r.Refused.Commands, "\n") != strings.Join(want, "\n") || r.Ready ||
					!strings.Contains(r.Refused.Advice, "standup pre-applied it for Kustomization/"+d.ns+"/app") {
					t.Errorf("refused %+v: want the commands %q", r.Refused, want)
				}
				if doc.Walk == nil || len(doc.Walk.FailedNodes) != 1 || doc.Walk.FailedNodes[0] != hrNode(d.ns, hr.Name) {
					t.Errorf("walk %+v: want the HelmRelease failed", doc.Walk)
				}
			}
			// The walk's progress says it as resume does.
			if !strings.Contains(res.Stderr, "standup pre-applied it for Kustomization/"+d.ns+"/app") {
				t.Errorf("the walk's progress lacks resume's explanation:\n%s", res.Stderr)
			}
			// The advice finishes the repair.
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
	t.Run("owned bundle", func(t *testing.T) {
		hr := testenv.HR{Namespace: testenv.UniqueName("crdsowned"), Name: "release", Chart: templatesChart.chart, DisableTakeOwnership: true}
		d := newChartDeadlock(t, templatesChart, hr, true)
		before := crdNames(t, d.w)
		dry := runCLI(t, d.w, "crds", "--dry-run", "--crds", d.bundle)
		if dry.Code != ExitOK {
			t.Fatalf("crds --dry-run exit %d: %v", dry.Code, dry.Err)
		}
		if want := "The bundle's CRD carries Helm's ownership metadata of release " + d.ns + "/release: a chart installs it"; !strings.Contains(dry.Stdout, want) {
			t.Errorf("the diagnosis does not name the release:\n%s", dry.Stdout)
		}
		d.untouched(t, hr.Name, before)
		res := runCLI(t, d.w, "crds", "--crds", d.bundle, "--node-timeout", "2m", "-o", "json")
		if res.Code != ExitOK {
			t.Fatalf("crds exit %d: %v\n%s", res.Code, res.Err, res.Stdout)
		}
		doc := chartReport(t, res.Stdout)
		if m := doc.Repairs[0].Diagnosis.Missing; len(m) != 1 || m[0].HelmRelease != d.ns+"/release" {
			t.Errorf("missing %+v: want helmRelease %s/release", m, d.ns)
		}
		if r := doc.Repairs[0].Releases; len(r) != 1 || !r[0].Ready || r[0].Refused != nil {
			t.Errorf("releases %+v: want the release Ready, the owned CRD adopted", r)
		}
		d.repaired(t, hr.Name, before)
	})
}
