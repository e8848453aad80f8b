package testenv

import (
	"context"
	"fmt"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// RuntimeCRDOperator simulates an operator such as cdi-operator: once an
// object of the Trigger resource exists, it waits Delay and then creates
// CRDs, the way cdi-operator creates storageprofiles.cdi.kubevirt.io only
// after it has reconciled the CDI CR.
type RuntimeCRDOperator struct {
	Trigger schema.GroupVersionResource
	// TriggerSelector, when set, is a label selector the trigger object
	// must match (the operator's own Deployment among every ConfigMap).
	TriggerSelector string
	CRDs            []*apiextensionsv1.CustomResourceDefinition
	Delay           time.Duration

	mu               sync.Mutex
	sawAt, createdAt time.Time
	err              error
	// returned is set when the operator's loop has returned: it creates
	// nothing more.
	returned bool
}

// StartOperator runs op in the background until the world stops or, in a
// shared world, until the test that started it ends.
func (w *World) StartOperator(op *RuntimeCRDOperator) {
	ctx := w.Context()
	w.helpers.Add(1)
	go func() {
		defer w.helpers.Done()
		op.run(ctx, w)
		op.mu.Lock()
		op.returned = true
		op.mu.Unlock()
	}()
}

// CreatedAt reports when the operator created its CRDs (zero if not yet).
func (op *RuntimeCRDOperator) CreatedAt() time.Time {
	op.mu.Lock()
	defer op.mu.Unlock()
	return op.createdAt
}

// Latency reports how long the operator took from the moment it saw the
// trigger object to the moment its CRDs existed (zero if not yet): the part
// of a cold start that waits on the operator, which no walk can shorten.
// Its listing tick is left out, as a real operator's informer has none.
func (op *RuntimeCRDOperator) Latency() time.Duration {
	op.mu.Lock()
	defer op.mu.Unlock()
	if op.createdAt.IsZero() {
		return 0
	}
	return op.createdAt.Sub(op.sawAt)
}

// stopped reports whether the operator's loop has returned, so that it
// creates nothing more: a test need not wait to see that it does not.
func (op *RuntimeCRDOperator) stopped() bool {
	op.mu.Lock()
	defer op.mu.Unlock()
	return op.returned
}

// Err reports the last error the operator hit, if any.
func (op *RuntimeCRDOperator) Err() error {
	op.mu.Lock()
	defer op.mu.Unlock()
	return op.err
}

func (op *RuntimeCRDOperator) run(ctx context.Context, w *World) {
	// A real operator uses an informer; this simulator lists on a short
	// tick because the trigger's own CRD may not exist yet when it starts.
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		list, err := w.Dynamic.Resource(op.Trigger).List(ctx, metav1.ListOptions{LabelSelector: op.TriggerSelector})
		if err != nil || len(list.Items) == 0 {
			continue
		}
		op.mu.Lock()
		op.sawAt = time.Now()
		op.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-time.After(op.Delay):
		}
		op.setResult(op.createCRDs(ctx, w))
		return
	}
}

func (op *RuntimeCRDOperator) createCRDs(ctx context.Context, w *World) error {
	for _, crd := range op.CRDs {
		obj := crd.DeepCopy()
		obj.SetManagedFields(nil)
		if err := w.Client.Create(ctx, obj, fieldOwner("simulated-operator")); err != nil && !isAlreadyExists(err) {
			return fmt.Errorf("CustomResourceDefinition/%s create failed: %w", crd.Name, err)
		}
	}
	return nil
}

func (op *RuntimeCRDOperator) setResult(err error) {
	op.mu.Lock()
	defer op.mu.Unlock()
	op.err = err
	if err == nil {
		op.createdAt = time.Now()
	}
}
