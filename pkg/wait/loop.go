package wait

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/kube"
	"github.com/kubestandup/standup/pkg/tiers"
)

// Resources the walk watches besides Flux's own (flux.KustomizationGVR, flux.SourceGVR).
var crdsGVR = apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions")

// Loop is the I/O around a Walker: watches feed it objects, and it performs
// the actions the walker decides.
type Loop struct {
	Dynamic   dynamic.Interface
	Client    client.Client
	Namespace string
	Options   Options
	// Bundle supplies CRDs for deadlock remediation; nil disables pre-apply.
	Bundle *crds.Bundle
	// OnEvent receives every event, in order, from the loop's goroutine.
	OnEvent func(Event)
	// Resync is the informers' resync period; zero means none.
	Resync time.Duration
}

// observation is one change seen by a watch.
type observation struct {
	gvr     schema.GroupVersionResource
	obj     *unstructured.Unstructured
	deleted bool
}

// inbox collects observations from informer callbacks without blocking them.
type inbox struct {
	mu     sync.Mutex
	items  []observation
	signal chan struct{}
}

func (b *inbox) push(o observation) {
	b.mu.Lock()
	b.items = append(b.items, o)
	b.mu.Unlock()
	select {
	case b.signal <- struct{}{}:
	default:
	}
}

func (b *inbox) drain() []observation {
	b.mu.Lock()
	defer b.mu.Unlock()
	items := b.items
	b.items = nil
	return items
}

// Run walks until every selected node has ended, ctx ends, or the graph is
// invalid. It returns the summary; the error is non-nil for a cycle, a
// failed mutation, or cancellation.
func (l *Loop) Run(ctx context.Context) (Summary, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	box := &inbox{signal: make(chan struct{}, 1)}
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(l.Dynamic, l.Resync, l.Namespace, nil)
	clusterFactory := dynamicinformer.NewDynamicSharedInformerFactory(l.Dynamic, l.Resync)
	syncs := []toolscache.InformerSynced{
		watchInto(factory, flux.KustomizationGVR, box, cancel).HasSynced,
		watchInto(clusterFactory, crdsGVR, box, cancel).HasSynced,
	}
	factory.Start(ctx.Done())
	clusterFactory.Start(ctx.Done())
	if !toolscache.WaitForCacheSync(ctx.Done(), syncs...) {
		if err := raised(ctx); err != nil {
			return Summary{}, err
		}
		return Summary{}, fmt.Errorf("initial list of Kustomizations and CRDs did not complete: %w", context.Cause(ctx))
	}
	watchedSources := map[string]bool{}
	sourceFactory := dynamicinformer.NewDynamicSharedInformerFactory(l.Dynamic, l.Resync)
	opts := l.Options
	opts.Bundle = l.Bundle
	w := NewWalker(opts, time.Now())
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		// Drain until quiet: a newly watched source kind's initial list lands
		// in the inbox too, and no node may be judged without its revision.
		for items := box.drain(); len(items) > 0; items = box.drain() {
			for _, o := range items {
				l.observe(w, o)
				if o.gvr == flux.KustomizationGVR && !o.deleted {
					if err := l.watchSource(ctx, sourceFactory, box, cancel, watchedSources, o.obj); err != nil {
						if fatal := raised(ctx); fatal != nil {
							return w.Summary(time.Now(), false), fatal
						}
						return w.Summary(time.Now(), true), err
					}
				}
			}
		}
		now := time.Now()
		actions, events, next := w.Step(now)
		if err := w.GraphError(); err != nil {
			return w.Summary(now, false), err
		}
		l.emit(events)
		for _, a := range actions {
			res := l.perform(ctx, a)
			if fatal := raised(ctx); fatal != nil {
				return w.Summary(time.Now(), false), fatal
			}
			if res.Err != nil && ctx.Err() != nil {
				// Interrupted during the action: each of its writes is one
				// request, done whole or not at all, and nothing is
				// concluded from the failure (no node fails for it).
				return w.Summary(time.Now(), true), ctx.Err()
			}
			if res.Err != nil && (a.Kind == ActionReconcile || refused(res.Err)) {
				// A refused pre-apply is missing RBAC, not a deadlock: the
				// walk ends naming the verb, as for a refused reconcile.
				return w.Summary(time.Now(), false), res.Err
			}
			l.emit([]Event{actionEvent(time.Now(), a, res)})
			w.Done(res)
		}
		if len(actions) > 0 {
			continue // results and our own writes come back as observations
		}
		if w.Finished() {
			return w.Summary(time.Now(), false), nil
		}
		resetTimer(timer, next)
		select {
		case <-ctx.Done():
			if fatal := raised(ctx); fatal != nil {
				return w.Summary(time.Now(), false), fatal
			}
			return w.Summary(time.Now(), true), ctx.Err()
		case <-box.signal:
		case <-timer.C:
		}
	}
}

func resetTimer(t *time.Timer, next time.Time) {
	d := time.Hour
	if !next.IsZero() {
		d = time.Until(next) + 10*time.Millisecond
	}
	if !t.Stop() {
		select {
		case <-t.C:
		default:
		}
	}
	t.Reset(max(d, 0))
}

// watchInto starts watching gvr on f, feeding box; a watch the API server
// refuses for good ends the walk through stop.
func watchInto(f dynamicinformer.DynamicSharedInformerFactory, gvr schema.GroupVersionResource, box *inbox, stop context.CancelCauseFunc) toolscache.SharedIndexInformer {
	inf := f.ForResource(gvr).Informer()
	_, _ = inf.AddEventHandler(handler(gvr, box))
	_ = inf.SetWatchErrorHandlerWithContext(refusalHandler(gvr, stop))
	return inf
}

// refusalHandler stops the walk when the API server refuses an informer's
// list or watch (403 Forbidden, 401 Unauthorized) twice in a row. client-go
// retries those forever: a refused list would hang the initial sync, and a
// refused watch would leave the walk blind. One refusal is let pass, as a
// restarting API server may refuse before its authorizer has synced. Every
// other error (unreachable, 410 Gone) keeps client-go's retry and re-list.
func refusalHandler(gvr schema.GroupVersionResource, stop context.CancelCauseFunc) toolscache.WatchErrorHandlerWithContext {
	var refusals atomic.Int32
	return func(ctx context.Context, r *toolscache.Reflector, err error) {
		if !apierrors.IsForbidden(err) && !apierrors.IsUnauthorized(err) {
			refusals.Store(0)
			toolscache.DefaultWatchErrorHandler(ctx, r, err)
			return
		}
		if refusals.Add(1) >= 2 {
			verb := "watch"
			if strings.Contains(err.Error(), "failed to list") {
				verb = "list"
			}
			stop(&refusedError{err: kube.Explain(err, verb, gvr.GroupResource().String())})
		}
	}
}

// refused reports whether the API server refused a request for its credentials or RBAC.
func refused(err error) bool { return apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) }

// refusedError marks the cause of a walk the API server refused to serve.
type refusedError struct{ err error }

func (e *refusedError) Error() string { return e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

// raised returns the error that ended the walk from within (a refused
// watch), or nil when ctx is live or the caller cancelled it.
func raised(ctx context.Context) error {
	var refused *refusedError
	if errors.As(context.Cause(ctx), &refused) {
		return refused.err
	}
	return nil
}

func handler(gvr schema.GroupVersionResource, box *inbox) toolscache.ResourceEventHandler {
	push := func(obj any, deleted bool) {
		if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if u, ok := obj.(*unstructured.Unstructured); ok {
			box.push(observation{gvr: gvr, obj: u, deleted: deleted})
		}
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { push(obj, false) },
		UpdateFunc: func(_, obj any) { push(obj, false) },
		DeleteFunc: func(obj any) { push(obj, true) },
	}
}

func (l *Loop) observe(w *Walker, o observation) {
	switch o.gvr {
	case flux.KustomizationGVR:
		ks := &kustomizev1.Kustomization{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.obj.Object, ks); err != nil {
			return
		}
		if o.deleted {
			w.ForgetKustomization(flux.FromKustomization(ks).ID)
			return
		}
		w.ObserveKustomization(flux.FromKustomization(ks))
	case crdsGVR:
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.obj.Object, crd); err != nil {
			return
		}
		gk := schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}
		if o.deleted {
			w.ForgetCRD(crd.Name, gk)
			return
		}
		w.ObserveCRD(crd.Name, gk, crds.Established(crd))
	default:
		id := tiers.ID{Kind: o.obj.GetKind(), Namespace: o.obj.GetNamespace(), Name: o.obj.GetName()}
		rev, _, _ := unstructured.NestedString(o.obj.Object, "status", "artifact", "revision")
		if o.deleted {
			rev = ""
		}
		w.ObserveSource(id, rev)
	}
}

// watchSource starts a watch on a source kind the first time a
// Kustomization references it (unreferenced kinds are never listed), and
// waits for its initial list.
func (l *Loop) watchSource(ctx context.Context, f dynamicinformer.DynamicSharedInformerFactory, box *inbox, stop context.CancelCauseFunc, started map[string]bool, obj *unstructured.Unstructured) error {
	kind, _, _ := unstructured.NestedString(obj.Object, "spec", "sourceRef", "kind")
	gvr, ok := flux.SourceGVR(kind)
	if !ok || started[kind] {
		return nil
	}
	started[kind] = true
	inf := watchInto(f, gvr, box, stop)
	f.Start(ctx.Done())
	if !toolscache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return fmt.Errorf("initial list of %s did not complete: %w", gvr.GroupResource(), context.Cause(ctx))
	}
	return nil
}

func (l *Loop) emit(events []Event) {
	if l.OnEvent == nil {
		return
	}
	for _, e := range events {
		l.OnEvent(e)
	}
}

func (l *Loop) perform(ctx context.Context, a Action) ActionResult {
	switch a.Kind {
	case ActionReconcile:
		return ActionResult{Action: a, Err: retryTransient(ctx, func() error { return RequestReconcile(ctx, l.Client, a) })}
	case ActionPreApplyCRDs:
		if l.Bundle == nil {
			return ActionResult{Action: a, Err: &crds.UnresolvedError{Diagnosis: *a.Diagnosis, Missing: a.Diagnosis.Missing}}
		}
		var res crds.Result
		err := retryTransient(ctx, func() error {
			var err error
			res, err = crds.PreApply(ctx, l.Client, l.Bundle, *a.Diagnosis, crds.ApplyOptions{})
			return err
		})
		return ActionResult{Action: a, Applied: res.Created, Existing: res.Existing, Err: err}
	}
	return ActionResult{Action: a, Err: fmt.Errorf("unknown action %q", a.Kind)}
}

// RequestReconcile performs a reconcile action with flux.RequestReconcile.
func RequestReconcile(ctx context.Context, c client.Client, a Action) error {
	return flux.RequestReconcile(ctx, c, a.Node, a.Token, a.Unsuspend)
}

// retryTransient retries fn while the API server is unreachable or drops
// the connection, for up to a minute. fn must be idempotent: a dropped
// request may have been applied (a reconcile patch and a CRD pre-apply are:
// a CRD created by the dropped request exists on the retry, and is left alone).
func retryTransient(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(time.Minute)
	delay := 250 * time.Millisecond
	for {
		err := fn()
		if err == nil || !kube.IsTransient(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(delay):
		}
		delay = min(delay*2, 4*time.Second)
	}
}

func actionEvent(now time.Time, a Action, r ActionResult) Event {
	id := a.Node
	e := Event{Time: now, Type: EventAction, Node: &id, Action: string(a.Kind), Diagnosis: a.Diagnosis}
	switch {
	case r.Err != nil:
		e.Reason, e.Message = "Failed", r.Err.Error()
	case a.Kind == ActionReconcile && a.Unsuspend:
		e.Reason, e.Message = "Resumed", "spec.suspend=false, "+flux.ReconcileRequestAnnotation+"="+a.Token
	case a.Kind == ActionReconcile:
		e.Reason, e.Message = "Requested", flux.ReconcileRequestAnnotation+"="+a.Token
	case len(r.Applied) > 0:
		e.Reason, e.Message = "Applied", fmt.Sprintf("created CustomResourceDefinition %v (field manager %s)", r.Applied, crds.FieldManager)
		if len(r.Existing) > 0 {
			e.Message += fmt.Sprintf("; CustomResourceDefinition %v exists: left alone", r.Existing)
		}
	default:
		e.Reason, e.Message = "NothingToApply", fmt.Sprintf("CustomResourceDefinition %v exists: left alone", r.Existing)
	}
	return e
}
