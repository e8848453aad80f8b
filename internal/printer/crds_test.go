package printer

import (
	"bytes"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubestandup/standup/pkg/crds"
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
			PrintCaptureSummary(w, 2)
		}, want: "out/a.example.com.yaml\nout/b.example.com.yaml\ncaptured 2 CRDs that no Kustomization inventory lists\n"},
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
