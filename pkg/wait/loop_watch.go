package wait

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/kube"
	"github.com/kubestandup/standup/pkg/tiers"
)

// observation is one change seen by a watch.
type observation struct {
	gvr     schema.GroupVersionResource
	obj     *unstructured.Unstructured
	deleted bool
	// cluster is the spoke whose watch saw it (its kubeConfig Secret), ""
	// the hub's.
	cluster string
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

// watchInto starts watching gvr on f, feeding box; a watch the API server
// refuses for good ends the walk through stop.
func watchInto(f dynamicinformer.DynamicSharedInformerFactory, gvr schema.GroupVersionResource, box *inbox, stop context.CancelCauseFunc) toolscache.SharedIndexInformer {
	return watchOn("", f, gvr, box, stop)
}

// watchOn is watchInto for the cluster whose observations carry cluster.
func watchOn(cluster string, f dynamicinformer.DynamicSharedInformerFactory, gvr schema.GroupVersionResource, box *inbox, stop context.CancelCauseFunc) toolscache.SharedIndexInformer {
	inf := f.ForResource(gvr).Informer()
	_, _ = inf.AddEventHandler(handler(cluster, gvr, box))
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

// watchRefusal returns the API server's refusal of a watch that ended the
// walk from within (refusalHandler cancels ctx with it as the cause), or
// nil when ctx is live or the caller cancelled it: the error the walk
// returns instead of a bare context.Canceled.
func watchRefusal(ctx context.Context) error {
	var refused *refusedError
	if errors.As(context.Cause(ctx), &refused) {
		return refused.err
	}
	return nil
}

func handler(cluster string, gvr schema.GroupVersionResource, box *inbox) toolscache.ResourceEventHandler {
	push := func(obj any, deleted bool) {
		if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if u, ok := obj.(*unstructured.Unstructured); ok {
			box.push(observation{gvr: gvr, obj: u, deleted: deleted, cluster: cluster})
		}
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { push(obj, false) },
		UpdateFunc: func(_, obj any) { push(obj, false) },
		DeleteFunc: func(obj any) { push(obj, true) },
	}
}

// observe feeds one observation to w. For a Kustomization or a HelmRelease
// still there, it returns the kind of the source whose revision the node is
// compared with (RevisionSource), so that the loop watches that kind.
func (l *Loop) observe(w *Walker, o observation) string {
	switch o.gvr {
	case flux.KustomizationGVR:
		ks := &kustomizev1.Kustomization{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.obj.Object, ks); err != nil {
			return ""
		}
		l.rememberUID(tiers.ID{Kind: flux.KindKustomization, Namespace: ks.Namespace, Name: ks.Name}, ks.UID, o.deleted)
		return observeNode(w, flux.FromKustomization(ks), o.deleted)
	case flux.HelmReleaseGVR:
		hr, err := flux.FromHelmRelease(o.obj)
		if err != nil {
			// A HelmRelease the API server accepted parses; the watch's
			// next event replaces one that does not.
			return ""
		}
		l.rememberUID(hr.ID, o.obj.GetUID(), o.deleted)
		return observeNode(w, hr, o.deleted)
	case flux.ResourceSetGVR:
		rs, err := flux.FromResourceSet(o.obj)
		if err != nil {
			return ""
		}
		l.rememberUID(rs.ID, o.obj.GetUID(), o.deleted)
		return observeNode(w, rs, o.deleted)
	case crdsGVR:
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.obj.Object, crd); err != nil {
			return ""
		}
		gk := schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}
		if o.cluster != "" {
			observeSpokeCRD(w, o.cluster, crd, gk, o.deleted)
			return ""
		}
		l.rememberUID(tiers.ID{Kind: "CustomResourceDefinition", Name: crd.Name}, crd.UID, o.deleted)
		if o.deleted {
			w.ForgetCRD(crd.Name, gk)
			return ""
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
	return ""
}

func observeNode(w *Walker, obj flux.Object, deleted bool) string {
	if deleted {
		w.ForgetObject(obj.ID)
		return ""
	}
	w.ObserveObject(obj)
	return obj.RevisionSource().Kind
}

// helmAPIServed reports whether o shows the HelmRelease CRD established.
func helmAPIServed(o observation) bool { return apiServed(o, flux.HelmReleaseResource) }

// resourceSetAPIServed reports whether o shows the ResourceSet CRD established.
func resourceSetAPIServed(o observation) bool { return apiServed(o, flux.ResourceSetResource) }

// apiServed reports whether o shows the CRD named crdName established.
func apiServed(o observation, crdName string) bool {
	if o.gvr != crdsGVR || o.deleted || o.cluster != "" || o.obj.GetName() != crdName {
		return false
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(o.obj.Object, crd) == nil && crds.Established(crd)
}

// watchKind starts a watch on gvr the first time it is needed (a source
// kind a node references, HelmReleases once their API is served; no kind is
// listed before), and waits for its initial list.
func (l *Loop) watchKind(ctx context.Context, f dynamicinformer.DynamicSharedInformerFactory, box *inbox, stop context.CancelCauseFunc, started map[string]bool, gvr schema.GroupVersionResource) error {
	key := gvr.String()
	if started[key] {
		return nil
	}
	started[key] = true
	inf := watchInto(f, gvr, box, stop)
	f.Start(ctx.Done())
	if !toolscache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return fmt.Errorf("initial list of %s did not complete: %w", gvr.GroupResource(), context.Cause(ctx))
	}
	return nil
}
