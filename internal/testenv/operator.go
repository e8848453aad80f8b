package testenv

import (
	"context"
	"fmt"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
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
	// ProgressEvery, when set, makes the operator show its progress while
	// it works, as a Crossplane package manager does: every ProgressEvery
	// it writes a status condition ProgressCondition (default
	// Progressing), True, reason Installing, with a message that counts
	// the steps, on every trigger object. Without it the operator works in
	// silence until its CRDs exist.
	ProgressEvery     time.Duration
	ProgressCondition string

	mu               sync.Mutex
	sawAt, createdAt time.Time
	progressed       int // status writes that showed progress
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
		if !op.work(ctx, w) {
			return
		}
		op.setResult(op.createCRDs(ctx, w))
		return
	}
}

// work waits Delay, showing progress every ProgressEvery if set; it
// reports false when the context ended first.
func (op *RuntimeCRDOperator) work(ctx context.Context, w *World) bool {
	done := time.NewTimer(op.Delay)
	defer done.Stop()
	var progress <-chan time.Time
	if op.ProgressEvery > 0 {
		t := time.NewTicker(op.ProgressEvery)
		defer t.Stop()
		progress = t.C
		op.showProgress(ctx, w, 0)
	}
	for step := 1; ; step++ {
		select {
		case <-ctx.Done():
			return false
		case <-done.C:
			return true
		case <-progress:
			op.showProgress(ctx, w, step)
		}
	}
}

// showProgress writes the progress condition on every trigger object: on
// its status subresource, or on the object when its CRD has none.
func (op *RuntimeCRDOperator) showProgress(ctx context.Context, w *World, step int) {
	cond := op.ProgressCondition
	if cond == "" {
		cond = "Progressing"
	}
	list, err := w.Dynamic.Resource(op.Trigger).List(ctx, metav1.ListOptions{LabelSelector: op.TriggerSelector})
	if err != nil {
		op.setErr(err)
		return
	}
	total := max(int(op.Delay/op.ProgressEvery), 1)
	patch := fmt.Appendf(nil, `{"status":{"conditions":[{"type":%q,"status":"True","reason":"Installing","message":"step %d of %d","lastTransitionTime":%q}]}}`,
		cond, step, total, time.Now().UTC().Format(time.RFC3339))
	for _, o := range list.Items {
		r := w.Dynamic.Resource(op.Trigger).Namespace(o.GetNamespace())
		_, err := r.Patch(ctx, o.GetName(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "simulated-operator"}, "status")
		if apierrors.IsNotFound(err) {
			_, err = r.Patch(ctx, o.GetName(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "simulated-operator"})
		}
		if err != nil && ctx.Err() == nil {
			op.setErr(fmt.Errorf("%s %s/%s: progress: %w", op.Trigger.Resource, o.GetNamespace(), o.GetName(), err))
			continue
		}
		op.mu.Lock()
		op.progressed++
		op.mu.Unlock()
	}
}

// Progressed reports how many status writes showed the operator's
// progress (ProgressEvery).
func (op *RuntimeCRDOperator) Progressed() int {
	op.mu.Lock()
	defer op.mu.Unlock()
	return op.progressed
}

func (op *RuntimeCRDOperator) setErr(err error) {
	op.mu.Lock()
	defer op.mu.Unlock()
	op.err = err
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
