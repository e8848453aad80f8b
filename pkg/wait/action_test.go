package wait

import (
	"errors"
	"testing"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/tiers"
)

func TestPreApplyActionEvent(t *testing.T) {
	a := Action{Kind: ActionPreApplyCRDs, Node: tiers.ID{Kind: "Kustomization", Namespace: "flux-system", Name: "platform-config"}, Diagnosis: &crds.Diagnosis{}}
	tests := []struct {
		name                string
		result              ActionResult
		wantReason, wantMsg string
	}{
		{"created", ActionResult{Applied: []string{spCRD}}, "Applied",
			"created CustomResourceDefinition [storageprofiles.cdi.kubevirt.io] (field manager standup)"},
		{"created one, another exists", ActionResult{Applied: []string{spCRD}, Existing: []string{"datavolumes.cdi.kubevirt.io"}}, "Applied",
			"created CustomResourceDefinition [storageprofiles.cdi.kubevirt.io] (field manager standup); CustomResourceDefinition [datavolumes.cdi.kubevirt.io] exists: left alone"},
		{"an operator created it first", ActionResult{Existing: []string{spCRD}}, "NothingToApply",
			"CustomResourceDefinition [storageprofiles.cdi.kubevirt.io] exists: left alone"},
		{"refused", ActionResult{Err: errors.New("the CRD bundle conflicts with CRDs on the cluster, nothing was created: …")}, "Failed",
			"the CRD bundle conflicts with CRDs on the cluster, nothing was created: …"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.result.Action = a
			e := actionEvent(t0, a, tt.result, "")
			if e.Reason != tt.wantReason || e.Message != tt.wantMsg {
				t.Errorf("event %s: %q, want %s: %q", e.Reason, e.Message, tt.wantReason, tt.wantMsg)
			}
		})
	}
}
