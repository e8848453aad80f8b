package audit

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The apply stages of one Kustomization. kustomize-controller hands a
// Kustomization's objects to ssa.ResourceManager.ApplyAllStaged
// (kustomize-controller internal/controller/kustomization_controller.go,
// apply; fluxcd/pkg ssa/manager_apply.go, ApplyAllStaged, in every release
// from v1.7 to v1.9). Each stage is one ApplyAll: it server-side dry-runs
// every object of the stage, and applies none of them if one dry-run fails
// (an unknown kind), so the stages after it are never reached either. The
// controller then retries the whole Kustomization after its retryInterval
// (or interval).
const (
	// stageDefinitions holds CRDs, Namespaces and ClusterRoles
	// (ssa/utils/is.go, IsClusterDefinition). ApplyAllStaged waits for them
	// (WaitForSet: a CRD is Established) before the next stage.
	stageDefinitions = 1
	// stageClasses holds every kind whose name ends in "Class"
	// (IsClassDefinition: StorageClass, VolumeSnapshotClass, GatewayClass,
	// ...), whatever its group; waited for too.
	stageClasses = 2
	// stageCustom holds the kinds of the controller's
	// --custom-apply-stage-kinds flag (v1.8 and later: IsCustomStage; v1.7
	// has no such stage), which standup.yaml declares. Not waited for.
	stageCustom = 3
	// stageRest holds everything else.
	stageRest  = 4
	stageCount = 4
)

// stageNames words a stage for messages.
var stageNames = [...]string{
	stageDefinitions: "first stage (CRDs, Namespaces, ClusterRoles)",
	stageClasses:     "*Class stage",
	stageCustom:      "custom stage (--custom-apply-stage-kinds)",
	stageRest:        "last stage",
}

// applyStage is the stage in which kustomize-controller applies u, the
// way ApplyAllStaged sorts it: the checks mirror ssa/utils/is.go, case and
// apiVersion prefix included.
func applyStage(u *unstructured.Unstructured, custom map[GroupKind]bool) int {
	kind, apiVersion := u.GetKind(), u.GetAPIVersion()
	switch {
	case strings.EqualFold(kind, "CustomResourceDefinition") && strings.HasPrefix(apiVersion, "apiextensions.k8s.io/"),
		strings.EqualFold(kind, "Namespace") && apiVersion == "v1",
		strings.EqualFold(kind, "ClusterRole") && strings.HasPrefix(apiVersion, "rbac.authorization.k8s.io/"):
		return stageDefinitions
	case strings.HasSuffix(kind, "Class"):
		return stageClasses
	case custom[groupKindOf(u)]:
		return stageCustom
	}
	return stageRest
}
