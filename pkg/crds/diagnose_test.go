package crds

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func kustomization(name string, ready *flux.Condition) flux.Object {
	return flux.Object{
		Node:  tiers.Node{ID: tiers.ID{Kind: flux.KindKustomization, Namespace: "flux-system", Name: name}},
		Ready: ready,
	}
}

func failed(message string) *flux.Condition {
	return &flux.Condition{Status: "False", Reason: "ReconciliationFailed", Message: message}
}

// clusterWith answers a CRDLookup from a fixed set.
func clusterWith(m map[schema.GroupKind]CRDPresence) CRDLookup {
	return func(gk schema.GroupKind) CRDPresence { return m[gk] }
}

const seedMessage = `StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"
Namespace/cdi configured
`

func TestDiagnose(t *testing.T) {
	bundle, err := LoadBundle("testdata/bundle")
	if err != nil {
		t.Fatal(err)
	}
	sp := schema.GroupKind{Group: "cdi.kubevirt.io", Kind: "StorageProfile"}
	sm := schema.GroupKind{Group: "monitoring.coreos.com", Kind: "ServiceMonitor"}
	tests := []struct {
		name   string
		ks     flux.Object
		lookup CRDLookup
		bundle *Bundle
		wantOK bool
		// golden is the file under testdata/diagnosis holding the expected
		// diagnosis as JSON followed by its String().
		golden string
	}{
		{
			name: "seed: StorageProfile missing, in the bundle",
			ks: kustomization("platform-config", failed(`[StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1", `+
				`StorageProfile/longhorn-vm dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"]`+"\nNamespace/cdi configured\n")),
			lookup: clusterWith(nil), bundle: bundle, wantOK: true, golden: "seed-in-bundle",
		},
		{
			name:   "seed: StorageProfile missing, no bundle",
			ks:     kustomization("platform-config", failed(seedMessage)),
			lookup: clusterWith(nil), wantOK: true, golden: "seed-no-bundle",
		},
		{
			name: "two kinds, one served now, one pending, one missing and not in the bundle",
			ks: kustomization("apps", failed(`ServiceMonitor/monitoring/podinfo dry-run failed: no matches for kind "ServiceMonitor" in version "monitoring.coreos.com/v1"`+"\n"+
				`StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"`+"\n"+
				`Widget/apps/w dry-run failed: no matches for kind "Widget" in version "example.com/v1alpha1"`)),
			lookup: clusterWith(map[schema.GroupKind]CRDPresence{sp: CRDEstablished, sm: CRDPending}),
			bundle: bundle, wantOK: true, golden: "mixed",
		},
		{
			name:   "group unknown, taken from the bundle",
			ks:     kustomization("monitoring", failed("ServiceMonitor/monitoring/podinfo not found: the server could not find the requested resource")),
			lookup: clusterWith(nil), bundle: bundle, wantOK: true, golden: "group-from-bundle",
		},
		{
			name:   "group unknown and not in the bundle",
			ks:     kustomization("apps", failed("Gadget/apps/g not found: the server could not find the requested resource")),
			lookup: clusterWith(nil), bundle: bundle, wantOK: true, golden: "group-unknown",
		},
		{
			name: "core kind missing: no CRD can help",
			ks: kustomization("legacy", failed(`ConfigMap/kube-system/flux-test1 dry-run failed, error: no matches for kind "ConfigMap" in version "v1"`+"\n"+
				`CronJob/apps/backup dry-run failed: no matches for kind "CronJob" in version "batch/v2alpha1"`)),
			// Were lookup asked, the kinds would be listed as served.
			lookup: func(schema.GroupKind) CRDPresence { return CRDEstablished },
			bundle: bundle, wantOK: true, golden: "not-crd",
		},
		{name: "ready", ks: kustomization("a", &flux.Condition{Status: "True", Reason: "ReconciliationSucceeded", Message: "Applied revision: main@sha1:1"}), lookup: clusterWith(nil)},
		{name: "no condition", ks: kustomization("a", nil), lookup: clusterWith(nil)},
		{name: "progressing", ks: kustomization("a", &flux.Condition{Status: "Unknown", Reason: "Progressing", Message: seedMessage}), lookup: clusterWith(nil)},
		{name: "health check failed", ks: kustomization("a", &flux.Condition{Status: "False", Reason: "HealthCheckFailed",
			Message: "health check failed after 5m0.034s: timeout waiting for: [Deployment/apps/podinfo status: 'InProgress']"}), lookup: clusterWith(nil)},
		{name: "suspended", ks: func() flux.Object { o := kustomization("a", failed(seedMessage)); o.Suspended = true; return o }(), lookup: clusterWith(nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := Diagnose(tt.ks, tt.lookup, tt.bundle)
			if ok != tt.wantOK {
				t.Fatalf("Diagnose ok = %v, want %v (%+v)", ok, tt.wantOK, d)
			}
			if !ok {
				if !reflect.DeepEqual(d, Diagnosis{}) {
					t.Errorf("Diagnose returned %+v with ok=false", d)
				}
				return
			}
			// A caller that keeps the parse (pkg/wait) gets the same diagnosis.
			if kept, ok := DiagnoseFailures(tt.ks, ParseDryRunFailures(tt.ks.Ready.Message), tt.lookup, tt.bundle); !ok || !reflect.DeepEqual(kept, d) {
				t.Errorf("DiagnoseFailures = %+v, %t; want Diagnose's %+v", kept, ok, d)
			}
			js, err := json.MarshalIndent(d, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got := string(js) + "\n\n" + d.String() + "\n"
			checkGolden(t, filepath.Join("testdata", "diagnosis", tt.golden+".golden"), got)
		})
	}
}

func TestDiagnoseFailuresNeedsAFailure(t *testing.T) {
	if d, ok := DiagnoseFailures(kustomization("a", failed(seedMessage)), nil, clusterWith(nil), nil); ok {
		t.Fatalf("DiagnoseFailures with no failures = %+v, true; want false", d)
	}
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestDiagnosisDeadlockedAndUnresolvable(t *testing.T) {
	bundle, err := LoadBundle("testdata/bundle")
	if err != nil {
		t.Fatal(err)
	}
	d, _ := Diagnose(kustomization("apps", failed(seedMessage+
		`Widget/apps/w dry-run failed: no matches for kind "Widget" in version "example.com/v1"`)), nil, bundle)
	if !d.Deadlocked() {
		t.Fatal("Deadlocked() = false with two absent kinds")
	}
	if got := d.Unresolvable(); len(got) != 1 || got[0].Kind != "Widget" {
		t.Errorf("Unresolvable() = %+v, want only Widget", got)
	}
	if sp := d.Missing[0]; sp.Kind != "StorageProfile" || !sp.InBundle() || sp.CRDName != "storageprofiles.cdi.kubevirt.io" || sp.Plural != "storageprofiles" {
		t.Errorf("StorageProfile = %+v, want it resolved from the bundle", sp)
	}
	served, _ := Diagnose(kustomization("apps", failed(seedMessage)),
		clusterWith(map[schema.GroupKind]CRDPresence{{Group: "cdi.kubevirt.io", Kind: "StorageProfile"}: CRDEstablished}), bundle)
	if served.Deadlocked() {
		t.Errorf("Deadlocked() = true while the cluster serves the kind")
	}
}

func TestSameFailure(t *testing.T) {
	other := `Widget/apps/w dry-run failed: no matches for kind "Widget" in version "example.com/v1"`
	diag := func(name, msg string) Diagnosis {
		d, _ := Diagnose(kustomization(name, failed(msg)), nil, nil)
		return d
	}
	served := func(name, msg string) Diagnosis {
		d, _ := Diagnose(kustomization(name, failed(msg)), func(schema.GroupKind) CRDPresence { return CRDEstablished }, nil)
		return d
	}
	tests := []struct {
		name string
		a, b Diagnosis
		want bool
	}{
		{"same message", diag("p", seedMessage), diag("p", seedMessage), true},
		{"same kind, other object and version order", diag("p", seedMessage),
			diag("p", `StorageProfile/longhorn-vm dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"`), true},
		{"other Kustomization", diag("p", seedMessage), diag("q", seedMessage), false},
		{"one more kind", diag("p", seedMessage), diag("p", seedMessage+other), false},
		{"other kind", diag("p", seedMessage), diag("p", other), false},
		{"second one no longer missing", diag("p", seedMessage), served("p", seedMessage), false},
		{"empty", Diagnosis{}, Diagnosis{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SameFailure(tt.a, tt.b); got != tt.want {
				t.Errorf("SameFailure() = %v, want %v", got, tt.want)
			}
		})
	}
}
