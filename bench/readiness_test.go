package bench

import (
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestReadyOnce(t *testing.T) {
	ks := func(gen, observed int64, applied string, conds ...metav1.Condition) kustomizev1.Kustomization {
		k := kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Generation: gen}}
		k.Status.ObservedGeneration, k.Status.LastAppliedRevision, k.Status.Conditions = observed, applied, conds
		return k
	}
	cond := func(typ string, status metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: reason}
	}
	rev := "main@sha1:1"
	tests := []struct {
		name string
		k    kustomizev1.Kustomization
		want bool
	}{
		{"Ready at its generation", ks(2, 2, rev, cond(meta.ReadyCondition, metav1.ConditionTrue, meta.ReconciliationSucceededReason)), true},
		{"running again at its interval after a success", ks(2, 2, rev, cond(meta.ReadyCondition, metav1.ConditionUnknown, meta.ProgressingReason)), true},
		{"Ready at an older generation", ks(3, 2, rev, cond(meta.ReadyCondition, metav1.ConditionTrue, meta.ReconciliationSucceededReason)), false},
		{"running at a new generation", ks(3, 2, rev, cond(meta.ReadyCondition, metav1.ConditionUnknown, meta.ProgressingReason)), false},
		{"never applied", ks(1, 1, "", cond(meta.ReadyCondition, metav1.ConditionUnknown, meta.ProgressingReason)), false},
		{"waiting on a dependency", ks(2, 2, rev, cond(meta.ReadyCondition, metav1.ConditionFalse, meta.DependencyNotReadyReason)), false},
		{"stalled", ks(2, 2, rev, cond(meta.ReadyCondition, metav1.ConditionUnknown, meta.ProgressingReason), cond(meta.StalledCondition, metav1.ConditionTrue, "InvalidCELExpression")), false},
		{"no status", ks(1, 0, ""), false},
	}
	for _, tt := range tests {
		if got := readyOnce(tt.k); got != tt.want {
			t.Errorf("%s: readyOnce = %v, want %v", tt.name, got, tt.want)
		}
	}
}
