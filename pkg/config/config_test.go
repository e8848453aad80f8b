package config

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubestandup/standup/internal/ciskip"
	"github.com/kubestandup/standup/internal/input"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		want    *Config
		wantErr string
	}{{
		name: "empty", yaml: "", want: &Config{},
	}, {
		name: "empty mapping", yaml: "{}\n", want: &Config{},
	}, {
		name: "full",
		yaml: `apiVersion: standup.kubestandup.io/v1alpha1
kind: Config
runtimeCRDs:
  - trigger: {group: cdi.kubevirt.io, kind: CDI}
    kinds: [{group: cdi.kubevirt.io, kind: StorageProfile}]
chartCRDs:
  - helmRelease: {namespace: cert-manager, name: cert-manager}
    kinds: [{group: cert-manager.io, kind: ClusterIssuer}]
`,
		want: &Config{
			APIVersion: APIVersion, Kind: Kind,
			RuntimeCRDs: []RuntimeCRD{{Trigger: GroupKind{"cdi.kubevirt.io", "CDI"}, Kinds: []GroupKind{{"cdi.kubevirt.io", "StorageProfile"}}}},
			ChartCRDs:   []ChartCRD{{HelmRelease: NamespacedName{"cert-manager", "cert-manager"}, Kinds: []GroupKind{{"cert-manager.io", "ClusterIssuer"}}}},
		},
	}, {
		name:    "unknown top-level field",
		yaml:    "kind: Config\nruntimeCRD: []\n",
		wantErr: `standup.yaml: line 2: unknown field "runtimeCRD"`,
	}, {
		name:    "unknown nested field",
		yaml:    "runtimeCRDs:\n  - trigger: {group: a, kind: B}\n    kinds: [{grup: a, kind: C}]\n",
		wantErr: `standup.yaml: line 3: unknown field "grup"`,
	}, {
		name:    "duplicate key",
		yaml:    "chartCRDs: []\nchartCRDs: []\n",
		wantErr: `standup.yaml: line 2: mapping key "chartCRDs" already defined at line 1`,
	}, {
		name:    "wrong apiVersion",
		yaml:    "apiVersion: standup.kubestandup.io/v2\n",
		wantErr: `standup.yaml: apiVersion "standup.kubestandup.io/v2" is not supported`,
	}, {
		name:    "wrong kind",
		yaml:    "kind: Kustomization\n",
		wantErr: `standup.yaml: kind "Kustomization" is not supported`,
	}, {
		name:    "no kinds",
		yaml:    "runtimeCRDs:\n  - trigger: {group: a, kind: B}\n",
		wantErr: "standup.yaml: runtimeCRDs[0].kinds is empty",
	}, {
		name:    "no trigger",
		yaml:    "runtimeCRDs:\n  - kinds: [{group: a, kind: C}]\n",
		wantErr: "standup.yaml: runtimeCRDs[0].trigger.kind is empty",
	}, {
		name: "runtimeCRDs with the operator's timeout and Deployment",
		yaml: "runtimeCRDs:\n  - trigger: {group: pkg.crossplane.io, kind: Provider}\n    kinds: [{group: s3.aws.upbound.io, kind: Bucket}]\n    operatorTimeout: 5m\n    operator: {namespace: crossplane-system, name: crossplane}\n",
		want: &Config{RuntimeCRDs: []RuntimeCRD{{Trigger: GroupKind{"pkg.crossplane.io", "Provider"}, Kinds: []GroupKind{{"s3.aws.upbound.io", "Bucket"}},
			OperatorTimeout: "5m", Operator: &NamespacedName{Namespace: "crossplane-system", Name: "crossplane"}}}},
	}, {
		name:    "an operator timeout that is no duration",
		yaml:    "runtimeCRDs:\n  - trigger: {group: a, kind: B}\n    kinds: [{group: a, kind: C}]\n    operatorTimeout: soon\n",
		wantErr: `standup.yaml: runtimeCRDs[0].operatorTimeout "soon": want a duration such as 5m`,
	}, {
		name:    "an operator timeout of zero",
		yaml:    "runtimeCRDs:\n  - trigger: {group: a, kind: B}\n    kinds: [{group: a, kind: C}]\n    operatorTimeout: 0s\n",
		wantErr: `standup.yaml: runtimeCRDs[0].operatorTimeout "0s": want a duration such as 5m (not positive)`,
	}, {
		name:    "an operator without a namespace",
		yaml:    "runtimeCRDs:\n  - trigger: {group: a, kind: B}\n    kinds: [{group: a, kind: C}]\n    operator: {name: op}\n",
		wantErr: "standup.yaml: runtimeCRDs[0].operator: want the operator Deployment's namespace and name",
	}, {
		name:    "HelmRelease without a namespace",
		yaml:    "chartCRDs:\n  - helmRelease: {name: x}\n    kinds: [{group: a, kind: C}]\n",
		wantErr: "standup.yaml: chartCRDs[0].helmRelease needs a namespace and a name",
	}, {
		name:    "kind declared twice",
		yaml:    "runtimeCRDs:\n  - trigger: {group: a, kind: B}\n    kinds: [{group: a, kind: C}]\nchartCRDs:\n  - helmRelease: {namespace: n, name: x}\n    kinds: [{group: a, kind: C}]\n",
		wantErr: "standup.yaml: chartCRDs[0].kinds[0]: C.a is already declared by runtimeCRDs[0]",
	}, {
		name:    "chart kind declared twice for one release",
		yaml:    "chartCRDs:\n  - helmRelease: {namespace: n, name: x}\n    kinds: [{group: a, kind: C}]\n  - helmRelease: {namespace: n, name: x}\n    kinds: [{group: a, kind: C}]\n",
		wantErr: "standup.yaml: chartCRDs[1].kinds[0]: C.a is already declared by chartCRDs[0]",
	}, {
		name: "chart kind installed by one release per cluster (hub and spoke)",
		yaml: "chartCRDs:\n  - helmRelease: {namespace: staging, name: cm}\n    kinds: [{group: a, kind: C}]\n  - helmRelease: {namespace: production, name: cm}\n    kinds: [{group: a, kind: C}]\n",
		want: &Config{ChartCRDs: []ChartCRD{
			{HelmRelease: NamespacedName{Namespace: "staging", Name: "cm"}, Kinds: []GroupKind{{Group: "a", Kind: "C"}}},
			{HelmRelease: NamespacedName{Namespace: "production", Name: "cm"}, Kinds: []GroupKind{{Group: "a", Kind: "C"}}},
		}},
	}, {
		name:    "kustomizationCRDs without a namespace",
		yaml:    "kustomizationCRDs:\n  - kustomization: {name: kyverno}\n    kinds: [{group: kyverno.io, kind: ClusterPolicy}]\n",
		wantErr: "standup.yaml: kustomizationCRDs[0].kustomization needs a namespace and a name",
	}, {
		name:    "kind both created at runtime and applied by a Kustomization",
		yaml:    "runtimeCRDs:\n  - trigger: {group: a, kind: B}\n    kinds: [{group: a, kind: C}]\nkustomizationCRDs:\n  - kustomization: {namespace: n, name: k}\n    kinds: [{group: a, kind: C}]\n",
		wantErr: "standup.yaml: kustomizationCRDs[0].kinds[0]: C.a is already declared by runtimeCRDs[0]",
	}, {
		name:    "kind both installed by a chart and applied by a Kustomization",
		yaml:    "chartCRDs:\n  - helmRelease: {namespace: n, name: x}\n    kinds: [{group: a, kind: C}]\nkustomizationCRDs:\n  - kustomization: {namespace: n, name: k}\n    kinds: [{group: a, kind: C}]\n",
		wantErr: "standup.yaml: kustomizationCRDs[0].kinds[0]: C.a is already declared by chartCRDs[0]",
	}, {
		name: "kustomizationCRDs",
		yaml: "kustomizationCRDs:\n  - kustomization: {namespace: flux-system, name: kyverno}\n    kinds: [{group: kyverno.io, kind: ClusterPolicy}]\n",
		want: &Config{KustomizationCRDs: []KustomizationCRD{{Kustomization: NamespacedName{Namespace: "flux-system", Name: "kyverno"}, Kinds: []GroupKind{{Group: "kyverno.io", Kind: "ClusterPolicy"}}}}},
	}, {
		name: "bootstrapCRDs and customApplyStageKinds",
		yaml: "bootstrapCRDs:\n  groups: [talos.dev]\n  kinds: [{group: a, kind: C}]\ncustomApplyStageKinds: [{group: helm.toolkit.fluxcd.io, kind: HelmRelease}]\n",
		want: &Config{BootstrapCRDs: &BootstrapCRDs{Groups: []string{"talos.dev"}, Kinds: []GroupKind{{Group: "a", Kind: "C"}}},
			CustomApplyStageKinds: []GroupKind{{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease"}}},
	}, {
		name:    "empty bootstrapCRDs",
		yaml:    "bootstrapCRDs: {}\n",
		wantErr: "standup.yaml: bootstrapCRDs declares neither groups nor kinds",
	}, {
		name:    "kind installed before Flux and by a chart",
		yaml:    "bootstrapCRDs:\n  kinds: [{group: a, kind: C}]\nchartCRDs:\n  - helmRelease: {namespace: n, name: x}\n    kinds: [{group: a, kind: C}]\n",
		wantErr: "standup.yaml: bootstrapCRDs.kinds[0]: C.a is already declared by chartCRDs[0]",
	}, {
		name:    "group installed before Flux and a kind of it at runtime",
		yaml:    "bootstrapCRDs:\n  groups: [a]\nruntimeCRDs:\n  - trigger: {group: b, kind: B}\n    kinds: [{group: a, kind: C}]\n",
		wantErr: "standup.yaml: runtimeCRDs[0]: C.a is already declared installed before Flux by bootstrapCRDs.groups",
	}, {
		name:    "custom stage kind without a kind",
		yaml:    "customApplyStageKinds: [{group: a}]\n",
		wantErr: "standup.yaml: customApplyStageKinds[0].kind is empty",
	}, {
		name:    "not a mapping",
		yaml:    "- a\n",
		wantErr: "standup.yaml: line 1: cannot unmarshal",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.yaml))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	cfg, err := Load(context.Background(), dir)
	if err != nil || !reflect.DeepEqual(cfg, &Config{}) {
		t.Fatalf("no standup.yaml: got %+v, %v; want the zero Config", cfg, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "standup.yaml"), []byte("bogus: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(context.Background(), dir); err == nil || !strings.Contains(err.Error(), `unknown field "bogus"`) {
		t.Fatalf("got %v, want the unknown field named", err)
	}
	cfg, err = Load(context.Background(), filepath.Join("..", "..", "examples", "homelab"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.RuntimeCRDs) != 1 || cfg.RuntimeCRDs[0].Trigger.Kind != "CDI" || len(cfg.RuntimeCRDs[0].Kinds) != 4 {
		t.Errorf("examples/homelab/standup.yaml: got %+v, want CDI with its 4 runtime kinds", cfg)
	}
}

// A hostile standup.yaml is one error naming it, without blocking or
// exploding.
func TestLoadConfigBoundsHostileFiles(t *testing.T) {
	bomb, err := os.ReadFile(filepath.Join("testdata", "hostile", "alias-bomb.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		make func(t *testing.T, path string)
		want string
	}{{
		name: "alias bomb",
		make: func(t *testing.T, path string) {
			if err := os.WriteFile(path, bomb, 0o644); err != nil {
				t.Fatal(err)
			}
		},
		want: "standup.yaml: document 1: YAML aliases expand the file by more than 100000 nodes",
	}, {
		name: "named pipe",
		make: func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				ciskip.Skipf(t, "mkfifo: %v", err)
			}
		},
		want: "standup.yaml: not a regular file (a named pipe, which would block the read)",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.make(t, filepath.Join(dir, "standup.yaml"))
			done := make(chan error, 1)
			go func() {
				_, err := Load(context.Background(), dir)
				done <- err
			}()
			select {
			case err := <-done:
				if _, ok := input.IsLimit(err); !ok || !strings.HasPrefix(err.Error(), tt.want) {
					t.Fatalf("Load = %v, want a *input.LimitError: %s...", err, tt.want)
				}
			case <-time.After(time.Minute):
				t.Fatal("Load still running after a minute")
			}
		})
	}
}
