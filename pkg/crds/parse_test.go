package crds

import (
	"reflect"
	"strings"
	"testing"
)

// Messages below are what kustomize-controller writes into the Ready
// condition: the apply error of fluxcd/pkg/ssa (DryRunErr), followed by a
// newline and the change-set log of what was applied before the failure
// (kustomization_controller.go: fmt.Errorf("%w\n%s", err, changeSetLog)).

var storageProfileLonghorn = MissingKind{
	Object: ObjectRef{Kind: "StorageProfile", Name: "longhorn"},
	Group:  "cdi.kubevirt.io", Version: "v1beta1", Kind: "StorageProfile", GroupKnown: true,
}

func TestParseDryRunFailures(t *testing.T) {
	tests := []struct {
		name    string
		message string
		want    []MissingKind
	}{
		{
			name:    "v1.9.6 cluster-scoped object, no change-set",
			message: "StorageProfile/longhorn dry-run failed: no matches for kind \"StorageProfile\" in version \"cdi.kubevirt.io/v1beta1\"\n",
			want:    []MissingKind{storageProfileLonghorn},
		},
		{
			name: "v1.9.6 with a change-set log of the stages applied before",
			message: `StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"
Namespace/cdi created
CustomResourceDefinition/cdis.cdi.kubevirt.io created
ClusterRole/cdi-operator configured
StorageClass/longhorn-vm created
`,
			want: []MissingKind{storageProfileLonghorn},
		},
		{
			name:    "namespaced object",
			message: "ServiceMonitor/monitoring/podinfo dry-run failed: no matches for kind \"ServiceMonitor\" in version \"monitoring.coreos.com/v1\"\nNamespace/monitoring created\n",
			want: []MissingKind{{
				Object: ObjectRef{Kind: "ServiceMonitor", Namespace: "monitoring", Name: "podinfo"},
				Group:  "monitoring.coreos.com", Version: "v1", Kind: "ServiceMonitor", GroupKnown: true,
			}},
		},
		{
			name: "several failures, aggregated on one line and on separate lines, sorted",
			message: `[StorageProfile/longhorn-vm dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1", ServiceMonitor/monitoring/cdi dry-run failed: no matches for kind "ServiceMonitor" in version "monitoring.coreos.com/v1"]
StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"
CDI/cdi created
`,
			want: []MissingKind{
				storageProfileLonghorn,
				{Object: ObjectRef{Kind: "StorageProfile", Name: "longhorn-vm"}, Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "StorageProfile", GroupKnown: true},
				{Object: ObjectRef{Kind: "ServiceMonitor", Namespace: "monitoring", Name: "cdi"}, Group: "monitoring.coreos.com", Version: "v1", Kind: "ServiceMonitor", GroupKnown: true},
			},
		},
		{
			name:    "duplicates collapse",
			message: "StorageProfile/longhorn dry-run failed: no matches for kind \"StorageProfile\" in version \"cdi.kubevirt.io/v1beta1\"\nStorageProfile/longhorn dry-run failed: no matches for kind \"StorageProfile\" in version \"cdi.kubevirt.io/v1beta1\"",
			want:    []MissingKind{storageProfileLonghorn},
		},
		{
			name:    "older ssa form, core group",
			message: `ConfigMap/kube-system/flux-test1 dry-run failed, error: no matches for kind "ConfigMap" in version "v1"`,
			want: []MissingKind{{
				Object:  ObjectRef{Kind: "ConfigMap", Namespace: "kube-system", Name: "flux-test1"},
				Version: "v1", Kind: "ConfigMap", GroupKnown: true,
			}},
		},
		{
			name:    "oldest ssa form",
			message: `StorageProfile/longhorn apply dry-run failed, error: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"`,
			want:    []MissingKind{storageProfileLonghorn},
		},
		{
			name:    "truncated by a UI: no object, no closing quote",
			message: `dry-run failed, error: no matches for kind "ClusterClass" in version "cluster.x-k8s.io/v1beta1`,
			want:    []MissingKind{{Group: "cluster.x-k8s.io", Version: "v1beta1", Kind: "ClusterClass", GroupKnown: true}},
		},
		{
			name:    "no kind match in a group (no version searched)",
			message: `Widget/default/w1 dry-run failed: no matches for kind "Widget" in group "example.com"`,
			want:    []MissingKind{{Object: ObjectRef{Kind: "Widget", Namespace: "default", Name: "w1"}, Group: "example.com", Kind: "Widget", GroupKnown: true}},
		},
		{
			name:    "no kind match in several versions",
			message: `Widget/default/w1 dry-run failed: no matches for kind "Widget" in versions ["example.com/v1" "example.com/v1beta1"]`,
			want:    []MissingKind{{Object: ObjectRef{Kind: "Widget", Namespace: "default", Name: "w1"}, Group: "example.com", Version: "v1", Kind: "Widget", GroupKnown: true}},
		},
		{
			name:    "controller-runtime discovery failure: the server could not find the requested resource",
			message: "Cluster/default/mgmt dry-run failed: failed to get API group resources: unable to retrieve the complete list of server APIs: cluster.x-k8s.io/v1beta1: the server could not find the requested resource\n",
			want:    []MissingKind{{Object: ObjectRef{Kind: "Cluster", Namespace: "default", Name: "mgmt"}, Group: "cluster.x-k8s.io", Version: "v1beta1", Kind: "Cluster", GroupKnown: true}},
		},
		{
			name:    "controller-runtime aggregated discovery failure",
			message: "StorageProfile/longhorn dry-run failed: unable to retrieve the complete list of server APIs: cdi.kubevirt.io/v1beta1: no matches for cdi.kubevirt.io/v1beta1, Resource=\n",
			want:    []MissingKind{storageProfileLonghorn},
		},
		{
			name:    "no resource match",
			message: "StorageProfile/longhorn dry-run failed: no matches for cdi.kubevirt.io/v1beta1, Resource=storageprofiles",
			want: []MissingKind{{
				Object: ObjectRef{Kind: "StorageProfile", Name: "longhorn"},
				Group:  "cdi.kubevirt.io", Version: "v1beta1", Kind: "StorageProfile", Resource: "storageprofiles", GroupKnown: true,
			}},
		},
		{
			name:    "ssa NotFound on a namespaced object, with the resource suffix",
			message: "StorageProfile/cdi/longhorn not found: the server could not find the requested resource (patch storageprofiles.cdi.kubevirt.io longhorn)\nCDI/cdi configured\n",
			want: []MissingKind{{
				Object: ObjectRef{Kind: "StorageProfile", Namespace: "cdi", Name: "longhorn"},
				Group:  "cdi.kubevirt.io", Kind: "StorageProfile", Resource: "storageprofiles", GroupKnown: true,
			}},
		},
		{
			name:    "ssa NotFound on a namespaced object, bare: group unknown",
			message: "ServiceMonitor/monitoring/podinfo not found: the server could not find the requested resource",
			want: []MissingKind{{
				Object: ObjectRef{Kind: "ServiceMonitor", Namespace: "monitoring", Name: "podinfo"},
				Kind:   "ServiceMonitor",
			}},
		},
		{
			name:    "dry-run failed with the NotFound reason",
			message: "ServiceMonitor/monitoring/podinfo dry-run failed (NotFound): the server could not find the requested resource",
			want: []MissingKind{{
				Object: ObjectRef{Kind: "ServiceMonitor", Namespace: "monitoring", Name: "podinfo"},
				Kind:   "ServiceMonitor",
			}},
		},
		{
			name:    "core resource suffix gives the core group",
			message: "ConfigMap/default/cm not found: the server could not find the requested resource (patch configmaps cm)",
			want:    []MissingKind{{Object: ObjectRef{Kind: "ConfigMap", Namespace: "default", Name: "cm"}, Kind: "ConfigMap", Resource: "configmaps", GroupKnown: true}},
		},
		{
			name:    "RBAC name with colons",
			message: `ClusterRole/system:cdi:view dry-run failed: no matches for kind "ClusterRole" in version "rbac.authorization.k8s.io/v2"`,
			want: []MissingKind{{
				Object: ObjectRef{Kind: "ClusterRole", Name: "system:cdi:view"},
				Group:  "rbac.authorization.k8s.io", Version: "v2", Kind: "ClusterRole", GroupKnown: true,
			}},
		},
		{
			name:    "a missing kind among other failures on the same line keeps only the missing kind",
			message: `[Deployment/default/podinfo dry-run failed (Invalid): Deployment.apps "podinfo" is invalid: spec.template.spec.containers[0].image: Required value, StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"]`,
			want:    []MissingKind{storageProfileLonghorn},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseDryRunFailures(tt.message)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseDryRunFailures() =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestParseDryRunFailuresIgnoresOtherFailures(t *testing.T) {
	messages := map[string]string{
		"empty":               "",
		"dependency":          "dependency 'flux-system/platform-config' is not ready",
		"dependency missing":  `dependency 'flux-system/platform' not found: kustomizations.kustomize.toolkit.fluxcd.io "platform" not found`,
		"progressing":         "Reconciliation in progress",
		"applied":             "Applied revision: main@sha1:5b1e3f8a6b0b8b3c2f1e0d9c8b7a6f5e4d3c2b1a",
		"health check":        "health check failed after 5m0.034s: timeout waiting for: [Deployment/apps/podinfo status: 'InProgress']",
		"health check failed": "health check failed after 31.2s: failed early due to stalled resources: [Deployment/apps/podinfo status: 'Failed': Progress deadline exceeded]",
		"path not found":      "kustomization path not found: stat /tmp/kustomization-1165874013/apps: no such file or directory",
		"build failed": "kustomize build failed: accumulating resources: accumulation err='accumulating resources from 'missing.yaml': " +
			"open /tmp/kustomization-2937362485/apps/missing.yaml: no such file or directory': must build at directory: not a valid directory: " +
			"evalsymlink failure on '/tmp/kustomization-2937362485/apps/missing.yaml' : lstat /tmp/kustomization-2937362485/apps/missing.yaml: no such file or directory",
		"invalid object": "Deployment/default/podinfo dry-run failed (Invalid): Deployment.apps \"podinfo\" is invalid: spec.template.spec.containers[0].image: Required value\nNamespace/default configured\n",
		"schema":         "HelmRelease/flux-system/podinfo dry-run failed: .spec.chart.spec.foo: field not declared in schema\n",
		"missing ns":     "ConfigMap/apps/settings not found: namespaces \"apps\" not found\n",
		// ssa's text when a namespaced object has no namespace: the same 404.
		"namespace not specified":        "Deployment/podinfo namespace not specified: the server could not find the requested resource (patch deployments.apps podinfo)\n",
		"404 on a cluster-scoped object": "StorageProfile/longhorn dry-run failed (NotFound): the server could not find the requested resource",
		"aggregated api":                 "PodMetrics/default/x dry-run failed: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is currently unable to handle the request",
		"webhook":                        `Certificate/default/web dry-run failed (InternalError): Internal error occurred: failed calling webhook "webhook.cert-manager.io": failed to call webhook: Post "https://cert-manager-webhook.cert-manager.svc:443/validate?timeout=30s": no endpoints available for service "cert-manager-webhook"`,
		"source not found":               `gitrepositories.source.toolkit.fluxcd.io "flux-system" not found`,
		"artifact":                       "Source artifact not found, retrying in 30s",
		"change-set only":                "CustomResourceDefinition/storageprofiles.cdi.kubevirt.io created\nStorageProfile/longhorn created\n",
	}
	for name, msg := range messages {
		t.Run(name, func(t *testing.T) {
			if got := ParseDryRunFailures(msg); got != nil {
				t.Errorf("ParseDryRunFailures(%q) = %+v, want nil", msg, got)
			}
		})
	}
}

func TestMissingKindAPIVersion(t *testing.T) {
	tests := []struct {
		m    MissingKind
		want string
	}{
		{storageProfileLonghorn, "cdi.kubevirt.io/v1beta1"},
		{MissingKind{Version: "v1", Kind: "ConfigMap", GroupKnown: true}, "v1"},
		{MissingKind{Group: "example.com", Kind: "Widget", GroupKnown: true}, ""},
	}
	for _, tt := range tests {
		if got := tt.m.APIVersion(); got != tt.want {
			t.Errorf("%+v.APIVersion() = %q, want %q", tt.m, got, tt.want)
		}
	}
}

func FuzzParseDryRunFailure(f *testing.F) {
	f.Add("StorageProfile/longhorn dry-run failed: no matches for kind \"StorageProfile\" in version \"cdi.kubevirt.io/v1beta1\"\nCDI/cdi created\n")
	f.Add(`dry-run failed, error: no matches for kind "ClusterClass" in version "cluster.x-k8s.io/v1beta1`)
	f.Add("StorageProfile/longhorn namespace not specified: the server could not find the requested resource (patch storageprofiles.cdi.kubevirt.io longhorn)")
	f.Add("X/y dry-run failed: unable to retrieve the complete list of server APIs: a.b/v1: no matches for a.b/v1, Resource=")
	f.Fuzz(func(t *testing.T, message string) {
		got := ParseDryRunFailures(message)
		again := ParseDryRunFailures(message)
		if !reflect.DeepEqual(got, again) {
			t.Fatalf("ParseDryRunFailures is not deterministic: %+v then %+v", got, again)
		}
		if len(got) > 0 && !strings.Contains(message, "no matches for ") &&
			!strings.Contains(message, "the server could not find the requested resource") {
			t.Fatalf("found missing kinds in a message that names none: %+v", got)
		}
		for i := 1; i < len(got); i++ {
			if !lessMissing(got[i-1], got[i]) {
				t.Fatalf("result not strictly sorted at %d: %+v", i, got)
			}
		}
	})
}
