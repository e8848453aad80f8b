package coldstart

import (
	"bytes"
	"encoding/json"
	"flag"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kubestandup/standup/internal/golden"
	"github.com/kubestandup/standup/internal/printer"
	"github.com/kubestandup/standup/pkg/audit"
	"github.com/kubestandup/standup/pkg/config"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// skeletonFixture has every kind of finding, a placeholder trigger among them.
func skeletonFixture() *audit.Skeleton {
	cdi := audit.GroupKind{Group: "cdi.kubevirt.io", Kind: "CDI"}
	profile := audit.GroupKind{Group: "cdi.kubevirt.io", Kind: "StorageProfile"}
	backup := audit.GroupKind{Group: "ops.example.org", Kind: "Backup"}
	todo := audit.GroupKind{Group: "ops.example.org", Kind: audit.TriggerPlaceholder}
	issuer := audit.GroupKind{Group: "cert-manager.io", Kind: "ClusterIssuer"}
	hr := audit.NamespacedName{Namespace: "cert-manager", Name: "cert-manager"}
	alpha := audit.GroupKind{Group: "a.example.org", Kind: "Alpha"}
	shared := audit.NamespacedName{Namespace: "tenants", Name: "shared"}
	return &audit.Skeleton{
		Path: "clusters/prod",
		Config: audit.Config{
			APIVersion: config.APIVersion, Kind: config.Kind,
			RuntimeCRDs:       []audit.RuntimeCRD{{Trigger: cdi, Kinds: []audit.GroupKind{profile}}, {Trigger: todo, Kinds: []audit.GroupKind{backup}}},
			ChartCRDs:         []audit.ChartCRD{{HelmRelease: hr, Kinds: []audit.GroupKind{issuer}}},
			KustomizationCRDs: []audit.KustomizationCRD{{Kustomization: shared, Kinds: []audit.GroupKind{alpha}}},
		},
		Findings: []audit.CRDFinding{
			{CRD: "storageprofiles.cdi.kubevirt.io", Defines: profile, Source: audit.SourceRuntime, Trigger: &cdi, Reason: "owned by CDI/cdi"},
			{CRD: "backups.ops.example.org", Defines: backup, Source: audit.SourceRuntime, Trigger: &todo, Reason: "name the trigger kind"},
			{CRD: "clusterissuers.cert-manager.io", Defines: issuer, Source: audit.SourceChart, HelmRelease: &hr, Reason: "labelled by helm-controller"},
			{CRD: "alphas.a.example.org", Defines: alpha, Source: audit.SourceKustomization, Kustomization: &shared, Reason: "applied by Kustomization/tenants/shared"},
		},
		Produced:     7,
		Placeholders: 1,
	}
}

func TestPrintSkeletonGolden(t *testing.T) {
	for _, format := range []string{printer.FormatYAML, printer.FormatJSON} {
		t.Run(format, func(t *testing.T) {
			var out bytes.Buffer
			if err := PrintSkeleton(&out, format, skeletonFixture()); err != nil {
				t.Fatal(err)
			}
			golden.Compare(t, filepath.Join("testdata", "skeleton."+format+".golden"), out.Bytes(), *update)
		})
	}
}

// The yaml skeleton reads back as the Config it declares; only the
// placeholder trigger stops it, with a message that says what to fill in.
func TestSkeletonYAMLRoundTrip(t *testing.T) {
	sk := skeletonFixture()
	var out bytes.Buffer
	if err := PrintSkeleton(&out, printer.FormatYAML, sk); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Parse(out.Bytes()); err == nil || !strings.Contains(err.Error(), "runtimeCRDs[1].trigger.kind is still the skeleton's TODO") {
		t.Fatalf("config.Parse(skeleton with a placeholder) = %v, want the placeholder refused", err)
	}
	filled := strings.Replace(out.String(), "kind: TODO", "kind: BackupOperator", 1)
	cfg, err := config.Parse([]byte(filled))
	if err != nil {
		t.Fatalf("config.Parse(filled skeleton) = %v\n%s", err, filled)
	}
	want := sk.Config
	want.RuntimeCRDs[1].Trigger.Kind = "BackupOperator"
	if !reflect.DeepEqual(*cfg, want) {
		got, _ := json.Marshal(cfg)
		exp, _ := json.Marshal(want)
		t.Errorf("round trip:\n got %s\nwant %s", got, exp)
	}
}

func TestYAMLScalar(t *testing.T) {
	for in, want := range map[string]string{"": `""`, "cdi.kubevirt.io": "cdi.kubevirt.io", "TODO": "TODO", "yes": `"yes"`, "a: b": `"a: b"`, "1x": `"1x"`} {
		if got := yamlScalar(in); got != want {
			t.Errorf("yamlScalar(%q) = %s, want %s", in, got, want)
		}
	}
}
