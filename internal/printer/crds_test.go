package printer

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

func bundleEntry(name string) crds.BundleEntry {
	return crds.BundleEntry{CRD: &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name}}, File: "bootstrap/crds/" + name + ".yaml"}
}

func TestCRDsPrinters(t *testing.T) {
	stuck := crds.Diagnosis{Kustomization: *walkNode("flux-system", "platform-config")}
	tests := []struct {
		name  string
		print func(w *bytes.Buffer)
		want  string
	}{
		{name: "nothing stuck", print: func(w *bytes.Buffer) { PrintRepairs(w, nil) },
			want: "no Kustomization is stuck on a missing CRD: nothing to do\n"},
		{name: "repairs: diagnosis, then what will be created", print: func(w *bytes.Buffer) {
			PrintRepairs(w, []crds.Repair{{Diagnosis: stuck, Create: []crds.BundleEntry{bundleEntry("a.example.com"), bundleEntry("b.example.com")}}, {Diagnosis: stuck}})
		}, want: stuck.String() + "\n" +
			"  will create CustomResourceDefinition/a.example.com (field manager standup) once the deadlock is proven\n" +
			"  will create CustomResourceDefinition/b.example.com (field manager standup) once the deadlock is proven\n" +
			stuck.String() + "\n"},
		{name: "--all --dry-run", print: func(w *bytes.Buffer) {
			PrintCreatePlan(w, crds.Plan{Create: []crds.BundleEntry{bundleEntry("a.example.com")}, Existing: []string{"b.example.com"}})
		}, want: "CustomResourceDefinition/a.example.com would be created (from bootstrap/crds/a.example.com.yaml)\n" +
			"CustomResourceDefinition/b.example.com exists: left alone\n" +
			"dry run: nothing changed\n"},
		{name: "--all", print: func(w *bytes.Buffer) {
			PrintCreated(w, crds.Result{Created: []string{"a.example.com"}, Existing: []string{"b.example.com"}}, true)
		}, want: "CustomResourceDefinition/a.example.com created (field manager standup)\n" +
			"CustomResourceDefinition/b.example.com exists: left alone\n"},
		{name: "--all, everything exists", print: func(w *bytes.Buffer) { PrintCreated(w, crds.Result{Existing: []string{"b.example.com"}}, true) },
			want: "CustomResourceDefinition/b.example.com exists: left alone\nevery bundle CRD exists: nothing to do\n"},
		{name: "--all, failed before creating anything: no verdict", print: func(w *bytes.Buffer) { PrintCreated(w, crds.Result{}, false) }},
		{name: "capture", print: func(w *bytes.Buffer) {
			PrintCaptured(w, []string{"out/a.example.com.yaml", "out/b.example.com.yaml"})
			PrintCaptureSummary(w, 2, 0)
		}, want: "out/a.example.com.yaml\nout/b.example.com.yaml\ncaptured 2 CRDs that no Kustomization inventory lists\n"},
		{name: "capture after flux install", print: func(w *bytes.Buffer) { PrintCaptureSummary(w, 1, 5) },
			want: "captured 1 CRDs that no Kustomization inventory lists\n" +
				"left out 5 of Flux's own CRDs (API groups *.toolkit.fluxcd.io, or labelled app.kubernetes.io/part-of=flux): flux install creates them, in no inventory, and a cluster standup repairs has them already\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			tt.print(&out)
			if out.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", out.String(), tt.want)
			}
		})
	}
}

// The chart form: apps/app holds HelmRelease apps/web, whose chart ships
// the Sprocket CRD in templates/ and does not take ownership; Helm refused
// the CRD standup pre-applied.
var (
	chartStuck = crds.Diagnosis{Kustomization: *walkNode("apps", "app"), Reason: "ReconciliationFailed",
		Missing: []crds.MissingType{{Group: "example.com", Kind: "Sprocket", GroupKnown: true, CRDName: "sprockets.example.com", BundleFile: "bootstrap/crds/sprockets.yaml"}}}
	chartRefusal, _ = crds.ParseHelmOwnershipFailure(`Helm install failed for release apps/web with chart sprockets@1.0.0: unable to continue with install: CustomResourceDefinition "sprockets.example.com" in namespace "" exists and cannot be imported into the current release: invalid ownership metadata; label validation error: missing key "app.kubernetes.io/managed-by": must be set to "Helm"; annotation validation error: missing key "meta.helm.sh/release-name": must be set to "web"; annotation validation error: missing key "meta.helm.sh/release-namespace": must be set to "apps"`)
	chartReleases   = []crds.ChartRelease{{
		HelmRelease: tiers.ID{Kind: "HelmRelease", Namespace: "apps", Name: "web"}, CRDs: []string{"sprockets.example.com"},
		Message: "Helm install failed for release apps/web",
		Refused: &crds.HelmRefusal{Object: chartRefusal.Object, Commands: chartRefusal.Commands(tiers.ID{Kind: "HelmRelease", Namespace: "apps", Name: "web"}), Advice: "Helm will not take it"},
	}, {HelmRelease: tiers.ID{Kind: "HelmRelease", Namespace: "apps", Name: "gadgets"}, CRDs: []string{"gadgets.example.com"}, Ready: true, Message: "Helm install succeeded"}}
)

// TestCRDsChartForm: after the repair walk, the report names each
// HelmRelease of the chart form and how it ended; for one Helm refused,
// the commands that finish the repair, one a line.
func TestCRDsChartForm(t *testing.T) {
	var out bytes.Buffer
	PrintChartReleases(&out, chartStuck.Kustomization, chartReleases)
	want := "Kustomization/apps/app: the chart form: HelmRelease apps/web, applied in the same pass, installs CustomResourceDefinition/sprockets.example.com from its chart, and Helm will not take CustomResourceDefinition/sprockets.example.com into the release: standup pre-applied it without Helm's ownership metadata, and the release does not take ownership (install.disableTakeOwnership). To finish the repair, run:\n" +
		"  kubectl label CustomResourceDefinition sprockets.example.com app.kubernetes.io/managed-by=Helm\n" +
		"  kubectl annotate CustomResourceDefinition sprockets.example.com meta.helm.sh/release-name=web meta.helm.sh/release-namespace=apps\n" +
		"  flux reconcile hr web -n apps --reset\n" +
		"For the next cold start, give the bundle's CRD that metadata (standup crds capture keeps it).\n" +
		"Kustomization/apps/app: the chart form: HelmRelease apps/gadgets, applied in the same pass, installs CustomResourceDefinition/gadgets.example.com from its chart: Ready\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// TestCRDsJSON: each mode of crds -o json writes one document, byte for
// byte, with every list present; the text printer writes the lines above.
func TestCRDsJSON(t *testing.T) {
	stuck := crds.Diagnosis{Kustomization: *walkNode("flux-system", "platform-config"), Reason: "ReconciliationFailed",
		Missing: []crds.MissingType{{Group: "cdi.kubevirt.io", Kind: "StorageProfile", GroupKnown: true, CRDName: "storageprofiles.cdi.kubevirt.io", BundleFile: "bootstrap/crds/sp.yaml"}}}
	lacking := crds.Diagnosis{Kustomization: *walkNode("flux-system", "apps"), Reason: "ReconciliationFailed",
		Missing: []crds.MissingType{{Group: "example.com", Kind: "Widget"}}}
	tests := []struct {
		name   string
		mode   string
		dryRun bool
		report func(p CRDsPrinter)
	}{
		{name: "repair-nothing-stuck", mode: CRDsModeRepair, report: func(p CRDsPrinter) { p.Repairs(nil) }},
		{name: "repair-dry-run", mode: CRDsModeRepair, dryRun: true, report: func(p CRDsPrinter) {
			p.Repairs([]crds.Repair{{Diagnosis: stuck, Create: []crds.BundleEntry{bundleEntry("storageprofiles.cdi.kubevirt.io")}}, {Diagnosis: lacking}})
			p.NothingChanged()
		}},
		{name: "repair-walked", mode: CRDsModeRepair, report: func(p CRDsPrinter) {
			p.Repairs([]crds.Repair{{Diagnosis: stuck, Create: []crds.BundleEntry{bundleEntry("storageprofiles.cdi.kubevirt.io")}}})
			p.Walked(wait.Summary{Ready: 2, Total: 2, Mutations: 3, Elapsed: wait.Duration(4 * time.Second)})
		}},
		{name: "repair-walked-chart", mode: CRDsModeRepair, report: func(p CRDsPrinter) {
			p.Repairs([]crds.Repair{{Diagnosis: chartStuck, Create: []crds.BundleEntry{bundleEntry("sprockets.example.com")}}})
			p.Walked(wait.Summary{Ready: 0, Failed: 1, Blocked: 1, Total: 2, Mutations: 3, Elapsed: wait.Duration(4 * time.Second),
				FailedNodes: []tiers.ID{chartReleases[0].HelmRelease}})
			p.Charts(chartStuck.Kustomization, chartReleases)
		}},
		{name: "all-dry-run", mode: CRDsModeAll, dryRun: true, report: func(p CRDsPrinter) {
			p.CreatePlan(crds.Plan{Create: []crds.BundleEntry{bundleEntry("a.example.com")}, Existing: []string{"b.example.com"}})
		}},
		{name: "all", mode: CRDsModeAll, report: func(p CRDsPrinter) {
			p.Created(crds.Result{Created: []string{"a.example.com"}, Existing: []string{"b.example.com"}}, true)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p := NewCRDsPrinter(&out, FormatJSON, tt.mode, tt.dryRun)
			tt.report(p)
			if out.Len() > 0 {
				t.Fatalf("wrote %q before Close", out.String())
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatalf("not one JSON document: %v\n%s", err, out.String())
			}
			for _, list := range []string{"repairs", "crds"} {
				if _, ok := doc[list].([]any); !ok {
					t.Errorf("%s is %v, want a list", list, doc[list])
				}
			}
			compareGolden(t, filepath.Join("testdata", "crds", tt.name+".json.golden"), out.Bytes())
		})
	}
	t.Run("text", func(t *testing.T) {
		var got, want bytes.Buffer
		p := NewCRDsPrinter(&got, FormatTable, CRDsModeRepair, true)
		p.Repairs([]crds.Repair{{Diagnosis: stuck}})
		p.NothingChanged()
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		PrintRepairs(&want, []crds.Repair{{Diagnosis: stuck}})
		PrintNothingChanged(&want)
		if got.String() != want.String() {
			t.Errorf("text:\n%s\nwant\n%s", got.String(), want.String())
		}
	})
}

func TestPrintCapture(t *testing.T) {
	paths := []string{"out/a.example.com.yaml"}
	tests := []struct{ format, want string }{
		{FormatText, "out/a.example.com.yaml\n"},
		{FormatJSON, "{\n  \"schemaVersion\": 1,\n  \"directory\": \"out\",\n  \"files\": [\n    \"out/a.example.com.yaml\"\n  ]\n}\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		if err := PrintCapture(&out, tt.format, "out", paths); err != nil || out.String() != tt.want {
			t.Errorf("PrintCapture(%s) = %q, %v; want %q", tt.format, out.String(), err, tt.want)
		}
	}
	var none bytes.Buffer
	if err := PrintCapture(&none, FormatJSON, "out", nil); err != nil || !strings.Contains(none.String(), `"files": []`) {
		t.Errorf("nothing captured: %q, %v; want an empty list", none.String(), err)
	}
}
