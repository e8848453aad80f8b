package audit

import "testing"

// TestApplyStage mirrors ssa/utils/is.go (fluxcd/pkg ssa v0.58 to v0.76,
// kustomize-controller v1.7 to v1.9): the checks are on kind and
// apiVersion, not on group alone.
func TestApplyStage(t *testing.T) {
	custom := map[GroupKind]bool{{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease"}: true}
	tests := []struct {
		apiVersion, kind string
		want             int
	}{
		{"apiextensions.k8s.io/v1", "CustomResourceDefinition", stageDefinitions},
		{"v1", "Namespace", stageDefinitions},
		{"rbac.authorization.k8s.io/v1", "ClusterRole", stageDefinitions},
		// A ClusterRoleBinding is no definition: it waits for the last stage.
		{"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", stageRest},
		{"storage.k8s.io/v1", "StorageClass", stageClasses},
		{"gateway.networking.k8s.io/v1", "GatewayClass", stageClasses},
		{"snapshot.storage.k8s.io/v1", "VolumeSnapshotClass", stageClasses},
		// Any group: IsClassDefinition looks at the kind's suffix only.
		{"example.com/v1", "WidgetClass", stageClasses},
		{"helm.toolkit.fluxcd.io/v2", "HelmRelease", stageCustom},
		{"cert-manager.io/v1", "ClusterIssuer", stageRest},
		{"v1", "ConfigMap", stageRest},
	}
	for _, tt := range tests {
		if got := applyStage(obj(tt.apiVersion, tt.kind, "x"), custom); got != tt.want {
			t.Errorf("%s %s: stage %d, want %d", tt.apiVersion, tt.kind, got, tt.want)
		}
	}
	if got := applyStage(obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "x"), nil); got != stageRest {
		t.Errorf("without --custom-apply-stage-kinds a HelmRelease is in the last stage, got %d", got)
	}
}
