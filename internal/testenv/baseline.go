package testenv

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// A shared world is handed from test to test. Between two tests it is put
// back to its baseline: the objects it held when it started, read from
// every resource the API server serves. The one exception is namespaces:
// envtest runs no namespace controller, so a deleted namespace would stay
// Terminating for good; the namespaces a test created stay, but empty.

// objectRef names one object of one resource.
type objectRef struct {
	Resource            schema.GroupVersionResource
	Namespace, Name     string
	finalizers, deleted bool
}

func (r objectRef) String() string {
	kind := r.Resource.Resource
	if r.Resource.Group != "" {
		kind += "." + r.Resource.Group
	}
	if r.Namespace == "" {
		return kind + "/" + r.Name
	}
	return kind + "/" + r.Namespace + "/" + r.Name
}

func (r objectRef) key() objectRef {
	return objectRef{Resource: r.Resource, Namespace: r.Namespace, Name: r.Name}
}

// baseline is the set of objects a world holds when it is at rest.
type baseline map[objectRef]bool

// ignoredGroups and ignoredResources are left out of a baseline: what
// the API server keeps on its own (API services follow CRDs, events and
// the system namespaces are its own), and namespaces, which are never
// deleted (see above).
var (
	ignoredGroups     = []string{"apiregistration.k8s.io", "events.k8s.io"}
	ignoredResources  = []string{"events", "namespaces"}
	ignoredNamespaces = []string{"kube-system", "kube-public", "kube-node-lease"}
)

// crdResource is the resource of CRDs: the API server finalizes a deleted
// CRD itself (it deletes the CRD's objects first), so its finalizers are
// never removed by hand.
var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// quietConfig is w's config without the API server's deprecation warnings
// (listing every resource lists the deprecated ones too).
func (w *World) quietConfig() *rest.Config {
	cfg := rest.CopyConfig(w.Config)
	cfg.WarningHandler = rest.NoWarnings{}
	return cfg
}

// objects lists every object the baseline counts.
func (w *World) objects(ctx context.Context) ([]objectRef, error) {
	resources, err := w.countedResources()
	if err != nil {
		return nil, err
	}
	mc, err := metadata.NewForConfig(w.quietConfig())
	if err != nil {
		return nil, fmt.Errorf("test world metadata client: %w", err)
	}
	// One list per resource, a few at a time: a clean-up reads them all
	// two or three times.
	lists := make([][]objectRef, len(resources))
	errs := make([]error, len(resources))
	var wg sync.WaitGroup
	slots := make(chan struct{}, 8)
	for i, gvr := range resources {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			items, err := mc.Resource(gvr).List(ctx, metav1.ListOptions{})
			if err != nil {
				errs[i] = fmt.Errorf("test world: list %s: %w", gvr.GroupResource(), err)
				return
			}
			for _, item := range items.Items {
				if !slices.Contains(ignoredNamespaces, item.Namespace) {
					lists[i] = append(lists[i], objectRef{
						Resource: gvr, Namespace: item.Namespace, Name: item.Name,
						finalizers: len(item.Finalizers) > 0, deleted: item.DeletionTimestamp != nil,
					})
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return slices.Concat(lists...), nil
}

// countedResources returns the resources the baseline counts, as the API
// server serves them now.
func (w *World) countedResources() ([]schema.GroupVersionResource, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(w.quietConfig())
	if err != nil {
		return nil, fmt.Errorf("test world discovery: %w", err)
	}
	// A CRD being deleted fails its group's discovery for a moment: that
	// read is incomplete, so it is an error and the caller reads again.
	lists, err := dc.ServerPreferredResources()
	if err != nil {
		return nil, fmt.Errorf("test world discovery: %w", err)
	}
	var out []schema.GroupVersionResource
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			return nil, fmt.Errorf("test world discovery: %w", err)
		}
		if slices.Contains(ignoredGroups, gv.Group) {
			continue
		}
		for _, res := range list.APIResources {
			if !strings.Contains(res.Name, "/") && !slices.Contains(ignoredResources, res.Name) &&
				slices.Contains(res.Verbs, "list") && slices.Contains(res.Verbs, "delete") {
				out = append(out, gv.WithResource(res.Name))
			}
		}
	}
	return out, nil
}

// snapshot reads the world's baseline. Call it on a world at rest, once
// kube-apiserver is ready (its bootstrap objects are all written by then).
func (w *World) snapshot(ctx context.Context) (baseline, error) {
	if err := w.waitReady(ctx); err != nil {
		return nil, err
	}
	objs, err := w.objects(ctx)
	if err != nil {
		return nil, err
	}
	base := baseline{}
	for _, o := range objs {
		base[o.key()] = true
	}
	return base, nil
}

// diff returns the objects beyond the baseline and the baseline's objects
// that are gone, each sorted by name.
func (base baseline) diff(objs []objectRef) (extra, missing []objectRef) {
	seen := map[objectRef]bool{}
	for _, o := range objs {
		seen[o.key()] = true
		if !base[o.key()] {
			extra = append(extra, o)
		}
	}
	for o := range base {
		if !seen[o] {
			missing = append(missing, o)
		}
	}
	byName := func(a, b objectRef) int { return strings.Compare(a.String(), b.String()) }
	slices.SortFunc(extra, byName)
	slices.SortFunc(missing, byName)
	return extra, missing
}

// restore deletes every object beyond the baseline and waits until the
// world is back at it. Nothing else may write meanwhile: the caller has
// stopped kustomize-controller and the test's helpers. A baseline object
// that is gone cannot be brought back: that is an error at once.
func (w *World) restore(ctx context.Context, base baseline) error {
	mc, err := metadata.NewForConfig(w.quietConfig())
	if err != nil {
		return fmt.Errorf("test world metadata client: %w", err)
	}
	var last error
	for {
		objs, err := w.objects(ctx)
		if err == nil {
			extra, missing := base.diff(objs)
			if len(missing) > 0 {
				return fmt.Errorf("baseline objects deleted: %s", names(missing))
			}
			if len(extra) == 0 {
				return nil
			}
			last = fmt.Errorf("objects left: %s", names(extra))
			err = deleteAll(ctx, mc, extra)
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("test world not back at its baseline: %w (%w)", last, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// deleteAll deletes objs. An object with finalizers has them removed
// first: nothing runs that would honour them (kustomize-controller is
// stopped, and must not prune what the test's Kustomizations applied: a
// pruned namespace would never finish terminating), except on CRDs, which
// the API server finalizes by deleting their objects.
func deleteAll(ctx context.Context, mc metadata.Interface, objs []objectRef) error {
	errs := make([]error, len(objs))
	var wg sync.WaitGroup
	slots := make(chan struct{}, 8)
	for i, o := range objs {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			errs[i] = deleteOne(ctx, mc, o)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func deleteOne(ctx context.Context, mc metadata.Interface, o objectRef) error {
	r := mc.Resource(o.Resource).Namespace(o.Namespace)
	if o.finalizers && o.Resource != crdResource {
		_, err := r.Patch(ctx, o.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		if err != nil && !isNotFound(err) {
			return fmt.Errorf("%s: remove finalizers: %w", o, err)
		}
	}
	if o.deleted {
		return nil
	}
	background := metav1.DeletePropagationBackground
	if err := r.Delete(ctx, o.Name, metav1.DeleteOptions{PropagationPolicy: &background}); err != nil && !isNotFound(err) {
		return fmt.Errorf("%s: delete: %w", o, err)
	}
	return nil
}

// names lists objs for an error, the first 20 of them.
func names(objs []objectRef) string {
	var out []string
	for i, o := range objs {
		if i == 20 {
			out = append(out, fmt.Sprintf("and %d more", len(objs)-i))
			break
		}
		out = append(out, o.String())
	}
	return strings.Join(out, ", ")
}
