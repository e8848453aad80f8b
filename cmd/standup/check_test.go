package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

const (
	revOld = "main@sha1:1111111111111111111111111111111111111111"
	revNew = "main@sha1:2222222222222222222222222222222222222222"
	// dryRunMessage is what kustomize-controller v1.9 writes for the seed's deadlock.
	dryRunMessage = "StorageProfile/longhorn dry-run failed: no matches for kind \"StorageProfile\" in version \"cdi.kubevirt.io/v1beta1\"\n"
)

var fluxSource = tiers.ID{Kind: "GitRepository", Namespace: "flux-system", Name: "flux-system"}

func crdOf(name, version string, established bool) *apiextensionsv1.CustomResourceDefinition {
	st := apiextensionsv1.ConditionTrue
	if !established {
		st = apiextensionsv1.ConditionFalse
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       apiextensionsv1.CustomResourceDefinitionSpec{Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: version, Served: true, Storage: true}}},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{Conditions: []apiextensionsv1.CustomResourceDefinitionCondition{
			{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue},
			{Type: apiextensionsv1.Established, Status: st, Reason: "Installing", Message: "the initial names have not been accepted"},
		}},
	}
}

// ks is a Kustomization in flux-system: ready at rev, or failing with message.
func ks(name string, ready bool, reason, message, rev string) flux.Object {
	o := flux.Object{
		Node:      tiers.Node{ID: tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: name}},
		SourceRef: fluxSource, Generation: 1, ObservedGeneration: 1, LastAppliedRevision: rev,
		Ready: &flux.Condition{Status: "False", Reason: reason, Message: message},
	}
	if ready {
		o.Ready = &flux.Condition{Status: "True", Reason: "ReconciliationSucceeded", Message: "Applied revision: " + rev}
	}
	return o
}

func deployment(name string, available bool) unstructured.Unstructured {
	d := unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "namespace": "flux-system", "generation": int64(1)},
		"spec":     map[string]any{"replicas": int64(1)},
		"status": map[string]any{
			"observedGeneration": int64(1), "replicas": int64(1), "updatedReplicas": int64(1),
			"readyReplicas": int64(1), "availableReplicas": int64(1),
			"conditions": []any{map[string]any{"type": "Available", "status": "True"}},
		},
	}}
	if !available {
		_ = unstructured.SetNestedField(d.Object, int64(0), "status", "availableReplicas")
		_ = unstructured.SetNestedField(d.Object, int64(0), "status", "readyReplicas")
		_ = unstructured.SetNestedSlice(d.Object, []any{map[string]any{"type": "Available", "status": "False"}}, "status", "conditions")
	}
	return d
}

// healthy is a cluster where every check holds.
func healthy() checkFacts {
	return checkFacts{
		CRDs: map[string]*apiextensionsv1.CustomResourceDefinition{
			kustomizationCRD:                  crdOf(kustomizationCRD, "v1", true),
			"storageprofiles.cdi.kubevirt.io": crdOf("storageprofiles.cdi.kubevirt.io", "v1beta1", true),
		},
		Kustomizations: []flux.Object{ks("platform", true, "", "", revNew), ks("platform-config", true, "", "", revNew)},
		Sources:        map[tiers.ID]sourceRevision{fluxSource: {Revision: revNew}},
	}
}

func TestEvaluateCheck(t *testing.T) {
	bundle, err := crds.LoadBundle(seedBundle)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		facts  func() checkFacts
		ready  []string
		want   map[string]checkStatus
		wantIn map[string]string // check name -> text its summary or items must hold
	}{
		{
			name:  "healthy, no controllers in-cluster, no bundle",
			facts: healthy, ready: []string{"platform-config"},
			want: map[string]checkStatus{"flux": checkPass, "controllers": checkSkip, "crds": checkPass, "bundle": checkSkip,
				"dry-run": checkPass, "suspended": checkPass, "kustomizations": checkPass, "ready": checkPass},
			wantIn: map[string]string{"controllers": "not deployed in-cluster (skipped)", "ready": revNew},
		},
		{
			name: "flux not installed",
			facts: func() checkFacts {
				return checkFacts{CRDs: map[string]*apiextensionsv1.CustomResourceDefinition{}}
			},
			want:   map[string]checkStatus{"flux": checkFail, "dry-run": checkSkip, "kustomizations": checkSkip, "ready": checkSkip},
			wantIn: map[string]string{"flux": "Flux is not installed on this cluster"},
		},
		{
			name: "flux serving an older API only",
			facts: func() checkFacts {
				f := healthy()
				f.CRDs[kustomizationCRD] = crdOf(kustomizationCRD, "v1beta2", true)
				return f
			},
			want:   map[string]checkStatus{"flux": checkFail, "kustomizations": checkSkip},
			wantIn: map[string]string{"flux": "does not serve kustomize.toolkit.fluxcd.io/v1"},
		},
		{
			name: "a controller not available",
			facts: func() checkFacts {
				f := healthy()
				f.Controllers = []unstructured.Unstructured{deployment("kustomize-controller", true), deployment("source-controller", false)}
				return f
			},
			want:   map[string]checkStatus{"controllers": checkFail},
			wantIn: map[string]string{"controllers": "Deployment/flux-system/source-controller"},
		},
		{
			name: "controllers available",
			facts: func() checkFacts {
				f := healthy()
				f.Controllers = []unstructured.Unstructured{deployment("kustomize-controller", true)}
				return f
			},
			want: map[string]checkStatus{"controllers": checkPass},
		},
		{
			name: "controllers cannot be listed",
			facts: func() checkFacts {
				f := healthy()
				f.ControllersErr = errors.New(`forbidden: list deployments.apps`)
				return f
			},
			want: map[string]checkStatus{"controllers": checkFail},
		},
		{
			name: "seed deadlock: platform-config stuck, apps-vms waiting",
			facts: func() checkFacts {
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
			want: map[string]checkStatus{"dry-run": checkFail, "suspended": checkPass, "kustomizations": checkFail,
				"ready": checkFail, "crds": checkPass},
			wantIn: map[string]string{"dry-run": "StorageProfile", "kustomizations": "apps-vms", "ready": "not Ready"},
		},
		{
			name: "deadlock and suspension are listed once, not again as not Ready",
			facts: func() checkFacts {
				f := healthy()
				delete(f.CRDs, "storageprofiles.cdi.kubevirt.io")
				suspended := ks("apps", true, "", "", revNew)
				suspended.Suspended = true
				f.Kustomizations = []flux.Object{suspended, ks("platform-config", false, "ReconciliationFailed", dryRunMessage, "")}
				return f
			},
			want:   map[string]checkStatus{"dry-run": checkFail, "suspended": checkFail, "kustomizations": checkPass},
			wantIn: map[string]string{"kustomizations": "0 of 2 Ready (2 more listed above)", "suspended": "flux-system/apps"},
		},
		{
			name: "ready at an old revision",
			facts: func() checkFacts {
				f := healthy()
				f.Kustomizations[1] = ks("platform-config", true, "", "", revOld)
				return f
			},
			ready:  []string{"flux-system/platform-config"},
			want:   map[string]checkStatus{"ready": checkFail, "kustomizations": checkPass},
			wantIn: map[string]string{"ready": "is at " + revNew},
		},
		{
			name:   "named Kustomization absent",
			facts:  healthy,
			ready:  []string{"platform-config-cdi"},
			want:   map[string]checkStatus{"ready": checkFail},
			wantIn: map[string]string{"ready": `no Kustomization named "platform-config-cdi"`},
		},
		{
			name: "source unreadable",
			facts: func() checkFacts {
				f := healthy()
				f.Sources[fluxSource] = sourceRevision{Err: errors.New("GitRepository/flux-system/flux-system: not found")}
				return f
			},
			ready:  []string{"platform-config"},
			want:   map[string]checkStatus{"ready": checkFail},
			wantIn: map[string]string{"ready": "could not be read"},
		},
		{
			name: "CRD not established",
			facts: func() checkFacts {
				f := healthy()
				f.CRDs["storageprofiles.cdi.kubevirt.io"] = crdOf("storageprofiles.cdi.kubevirt.io", "v1beta1", false)
				return f
			},
			want:   map[string]checkStatus{"crds": checkFail},
			wantIn: map[string]string{"crds": "Established=False (Installing)"},
		},
		{
			name: "invalid bundle",
			facts: func() checkFacts {
				f := healthy()
				f.BundleDir, f.BundleErr = "bootstrap/crds", errors.New("bootstrap/crds/bad.yaml: document 1: not a CustomResourceDefinition")
				return f
			},
			want:   map[string]checkStatus{"bundle": checkFail},
			wantIn: map[string]string{"bundle": "bad.yaml"},
		},
		{
			name: "valid bundle",
			facts: func() checkFacts {
				f := healthy()
				f.BundleDir, f.Bundle = seedBundle, bundle
				return f
			},
			want:   map[string]checkStatus{"bundle": checkPass},
			wantIn: map[string]string{"bundle": "storageprofiles.cdi.kubevirt.io"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := evaluateCheck(tt.facts(), tt.ready)
			byName := map[string]checkResult{}
			var names []string
			for _, c := range r.Checks {
				byName[c.Name] = c
				names = append(names, c.Name)
			}
			if got := strings.Join(names, ","); got != "flux,controllers,crds,bundle,dry-run,suspended,kustomizations,ready" {
				t.Fatalf("checks %s: the order and set are part of the -o json schema", got)
			}
			wantOK := true
			for name, st := range tt.want {
				if byName[name].Status != st {
					t.Errorf("%s: status %s, want %s (%s %+v)", name, byName[name].Status, st, byName[name].Summary, byName[name].Items)
				}
			}
			for _, c := range r.Checks {
				wantOK = wantOK && c.Status != checkFail
			}
			if r.OK != wantOK || r.SchemaVersion != 1 {
				t.Errorf("ok %t schemaVersion %d, want ok %t schemaVersion 1", r.OK, r.SchemaVersion, wantOK)
			}
			for name, text := range tt.wantIn {
				var b bytes.Buffer
				printCheck(&b, checkReport{Checks: []checkResult{byName[name]}}, printer.NewStyles(&b, false))
				if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), text) {
					t.Errorf("%s does not say %q:\n%s", name, text, b.String())
				}
			}
		})
	}
}

func TestCheckRejectsUnknownOutput(t *testing.T) {
	var out, errOut bytes.Buffer
	err := Run(context.Background(), []string{"standup", "check", "-o", "yaml"}, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	if code := ExitCode(err, &errOut); code != ExitUsage {
		t.Fatalf("exit %d, want %d (usage); stderr %q", code, ExitUsage, errOut.String())
	}
}

func TestWrapText(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{in: "a b c", width: 10, want: "a b c"},
		{in: "aaaa bbbb cccc", width: 9, want: "aaaa bbbb\n  cccc"},
		{in: "averyveryverylongword b", width: 5, want: "averyveryverylongword\n  b"},
		{in: "  spaced\n\nout  ", width: 80, want: "spaced out"},
	}
	for _, tt := range tests {
		if got := wrapText(tt.in, "  ", tt.width); got != tt.want {
			t.Errorf("wrapText(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}
