package testenv

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic/dynamicinformer"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DelayGVR is the resource of the Delay custom resource that benchmark
// graphs apply: bench.standup.dev/v1, kind Delay, namespaced.
var DelayGVR = schema.GroupVersionResource{Group: "bench.standup.dev", Version: "v1", Resource: "delays"}

// DelayCRD returns the CustomResourceDefinition of Delay: namespaced, with a
// status subresource and a schema that keeps unknown fields. Its status
// defaults to {observedGeneration: 0}, which the API server fills in on
// every read until the controller writes a status: kstatus therefore
// computes InProgress (generation 1 not observed) for a Delay from the
// moment it exists, and kustomize-controller's first health poll, right
// after its apply, cannot see it Current before the Delay controller does.
func DelayCRD() *apiextensionsv1.CustomResourceDefinition {
	preserve := true
	object := func(props map[string]apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &preserve, Properties: props}
	}
	status := object(nil)
	status.Default = &apiextensionsv1.JSON{Raw: []byte(`{"observedGeneration":0}`)}
	minimum := 0.0
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: DelayGVR.Resource + "." + DelayGVR.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: DelayGVR.Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: DelayGVR.Resource, Singular: "delay", Kind: "Delay", ListKind: "DelayList",
			},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: DelayGVR.Version, Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: ptrTo(object(map[string]apiextensionsv1.JSONSchemaProps{
					"spec":   object(map[string]apiextensionsv1.JSONSchemaProps{"seconds": {Type: "integer", Minimum: &minimum}}),
					"status": status,
				}))},
			}},
		},
	}
}

func ptrTo[T any](v T) *T { return &v }

// InstallDelayCRD creates the Delay CRD, tolerating one that exists, and
// waits until the API server serves it.
func (w *World) InstallDelayCRD(ctx context.Context) error {
	crd := DelayCRD()
	if err := w.Client.Create(ctx, crd, fieldOwner("delay-controller")); err != nil && !isAlreadyExists(err) {
		return fmt.Errorf("CustomResourceDefinition/%s create failed: %w", crd.Name, err)
	}
	return w.WaitCRDEstablished(ctx, crd.Name)
}

// WaitCRDEstablished waits until the API server serves the CRD (Established
// and NamesAccepted). Until then its status is still being written, so a
// test comparing resourceVersions must wait for it first (SettledCRD).
func (w *World) WaitCRDEstablished(ctx context.Context, name string) error {
	_, err := w.SettledCRD(ctx, name)
	return err
}

// SettledCRD waits until the API server has made its own writes to the CRD
// name, and returns the CRD as the last of them left it. Those writes are
// the naming controller's (NamesAccepted, status.acceptedNames, Established
// False "Installing") and then the establishing controller's (Established
// True); for a structural CRD outside the API groups that need approval
// (*.k8s.io) the API server writes nothing after, so a resourceVersion read
// here moves only for another client's write.
func (w *World) SettledCRD(ctx context.Context, name string) (*apiextensionsv1.CustomResourceDefinition, error) {
	for {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := w.Client.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			return nil, fmt.Errorf("CustomResourceDefinition/%s get failed: %w", name, err)
		}
		if apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established) && apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.NamesAccepted) {
			return crd, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("CustomResourceDefinition/%s not established: %w", name, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// DelayTiming is what the Delay controller did with one Delay.
type DelayTiming struct {
	// Seconds is the spec.seconds it waited.
	Seconds int64
	// Seen is when the controller first saw the object.
	Seen time.Time
	// Ready is when it decided to mark it Ready (zero until then); the
	// status update carrying Ready=True follows at once.
	Ready time.Time
}

// DelayController is a test controller for Delay objects: it marks each
// Delay Ready exactly spec.seconds after it first saw it, and Ready=False
// (reason Progressing) until then. kstatus, and so kustomize-controller's
// health check, reads a Delay as InProgress until Ready=True at the
// observed generation, then as Current.
type DelayController struct {
	w     *World
	queue workqueue.TypedRateLimitingInterface[string]
	inf   toolscache.SharedIndexInformer

	mu      sync.Mutex
	timings map[string]delayRecord
	err     error
}

type delayRecord struct {
	uid types.UID
	DelayTiming
}

// StartDelayController installs the Delay CRD, starts the controller, and
// returns once its watch has synced (or failed: see Err). It runs until
// the world stops.
func (w *World) StartDelayController() *DelayController {
	c := &DelayController{
		w:       w,
		queue:   workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](50*time.Millisecond, 5*time.Second)),
		timings: map[string]delayRecord{},
	}
	// The controller runs as long as the world, or the test holding it.
	life := w.Context()
	ctx, cancel := context.WithTimeout(life, time.Minute)
	defer cancel()
	if err := w.InstallDelayCRD(ctx); err != nil {
		c.setErr(err)
		return c
	}
	factory := dynamicinformer.NewDynamicSharedInformerFactory(w.Dynamic, 0)
	c.inf = factory.ForResource(DelayGVR).Informer()
	if _, err := c.inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    c.observe,
		UpdateFunc: func(_, obj any) { c.observe(obj) },
		DeleteFunc: c.forget,
	}); err != nil {
		c.setErr(fmt.Errorf("delay controller: %w", err))
		return c
	}
	factory.Start(life.Done())
	go func() {
		<-life.Done()
		c.queue.ShutDown()
	}()
	if !toolscache.WaitForCacheSync(ctx.Done(), c.inf.HasSynced) {
		c.setErr(fmt.Errorf("delay controller: watch of %s did not sync", DelayGVR.Resource))
		return c
	}
	for range 4 {
		go c.work(life)
	}
	return c
}

// Err reports the last error the controller hit, if any.
func (c *DelayController) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Timing reports what the controller did with the Delay namespace/name.
func (c *DelayController) Timing(namespace, name string) (DelayTiming, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.timings[namespace+"/"+name]
	return r.DelayTiming, ok
}

// Timings reports what the controller did with every Delay, by namespace/name.
func (c *DelayController) Timings() map[string]DelayTiming {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]DelayTiming, len(c.timings))
	for k, r := range c.timings {
		out[k] = r.DelayTiming
	}
	return out
}

func (c *DelayController) setErr(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.err = err
}

// observe records when an object was first seen (a new UID under a known
// name is a new object) and queues it.
func (c *DelayController) observe(obj any) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	key := u.GetNamespace() + "/" + u.GetName()
	c.mu.Lock()
	if r, seen := c.timings[key]; !seen || r.uid != u.GetUID() {
		c.timings[key] = delayRecord{uid: u.GetUID(), DelayTiming: DelayTiming{Seen: time.Now()}}
	}
	c.mu.Unlock()
	c.queue.Add(key)
}

func (c *DelayController) forget(obj any) {
	if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		c.mu.Lock()
		delete(c.timings, u.GetNamespace()+"/"+u.GetName())
		c.mu.Unlock()
	}
}

func (c *DelayController) work(ctx context.Context) {
	for {
		key, shutdown := c.queue.Get()
		if shutdown {
			return
		}
		after, err := c.sync(ctx, key)
		switch {
		case err != nil && ctx.Err() == nil:
			c.setErr(err)
			c.queue.AddRateLimited(key)
		case after > 0:
			c.queue.Forget(key)
			c.queue.AddAfter(key, after)
		default:
			c.queue.Forget(key)
		}
		c.queue.Done(key)
	}
}

// delayStatus is the status the controller writes.
type delayStatus struct {
	ObservedGeneration int64              `json:"observedGeneration"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

// sync brings one Delay's status up to date, and returns how long to wait
// before it must become Ready (zero once it is).
func (c *DelayController) sync(ctx context.Context, key string) (time.Duration, error) {
	item, exists, err := c.inf.GetIndexer().GetByKey(key)
	if err != nil || !exists {
		return 0, err
	}
	u := item.(*unstructured.Unstructured).DeepCopy()
	seconds, _, err := unstructured.NestedInt64(u.Object, "spec", "seconds")
	if err != nil {
		return 0, fmt.Errorf("Delay/%s spec.seconds: %w", key, err)
	}
	c.mu.Lock()
	rec, ok := c.timings[key]
	c.mu.Unlock()
	if !ok || rec.uid != u.GetUID() {
		return 0, nil // deleted, or replaced: the newer object has its own event
	}
	now := time.Now()
	due := rec.Seen.Add(time.Duration(seconds) * time.Second)
	ready := !now.Before(due)
	var st delayStatus
	if raw, found := u.Object["status"].(map[string]any); found {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &st); err != nil {
			return 0, fmt.Errorf("Delay/%s status: %w", key, err)
		}
	}
	if setDelayStatus(&st, u.GetGeneration(), ready, seconds) {
		raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&st)
		if err != nil {
			return 0, fmt.Errorf("Delay/%s status: %w", key, err)
		}
		u.Object["status"] = raw
		_, err = c.w.Dynamic.Resource(DelayGVR).Namespace(u.GetNamespace()).UpdateStatus(ctx, u, metav1.UpdateOptions{FieldManager: "delay-controller"})
		if apierrors.IsConflict(err) {
			return time.Millisecond, nil // the cache is behind our last write: read again
		}
		if err != nil {
			return 0, fmt.Errorf("Delay/%s status update failed: %w", key, err)
		}
	}
	if !ready {
		return due.Sub(now), nil
	}
	c.mu.Lock()
	if r := c.timings[key]; r.uid == rec.uid && r.Ready.IsZero() {
		r.Seconds, r.Ready = seconds, now
		c.timings[key] = r
	}
	c.mu.Unlock()
	return 0, nil
}

// setDelayStatus sets status.observedGeneration and the Ready condition,
// and reports whether anything changed.
func setDelayStatus(st *delayStatus, generation int64, ready bool, seconds int64) bool {
	cond := metav1.Condition{
		Type: meta.ReadyCondition, Status: metav1.ConditionFalse, Reason: meta.ProgressingReason,
		Message: fmt.Sprintf("waiting %ds from when the object was first seen", seconds), ObservedGeneration: generation,
	}
	if ready {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, meta.SucceededReason, fmt.Sprintf("waited %ds", seconds)
	}
	changed := st.ObservedGeneration != generation
	st.ObservedGeneration = generation
	return apimeta.SetStatusCondition(&st.Conditions, cond) || changed
}
