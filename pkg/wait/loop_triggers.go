package wait

import (
	"context"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/crds"
)

// gatherTriggers gathers the trigger facts the walker asked for and feeds
// them to it; it reports whether there were any.
func (l *Loop) gatherTriggers(ctx context.Context, w *Walker, crdStore toolscache.Store) bool {
	wanted := w.TriggersWanted()
	for _, gk := range wanted {
		w.ObserveTrigger(l.triggerFact(ctx, crdStore, gk))
	}
	return len(wanted) > 0
}

// gatherSpokeTriggers is gatherTriggers on the spokes, each fact read on
// the spoke it was asked of, through its CRD watch (stores) and clients.
func (l *Loop) gatherSpokeTriggers(ctx context.Context, w *Walker, stores map[string]toolscache.Store) bool {
	wanted := w.SpokeTriggersWanted()
	for _, s := range l.Spokes {
		for _, gk := range wanted[s.Secret] {
			f := readTriggerFact(ctx, s.Client, s.Dynamic, stores[s.Secret], gk)
			f.Cluster = s.Secret
			w.ObserveTrigger(f)
		}
	}
	return len(wanted) > 0
}

// gatherProgress makes the progress reads the walker asked for (a wait
// for an operator) and feeds them to it; it reports whether there were any.
func (l *Loop) gatherProgress(ctx context.Context, w *Walker, crdStore toolscache.Store) bool {
	wanted := w.ProgressWanted()
	for _, t := range wanted {
		f := l.progressFact(ctx, crdStore, t)
		f.Target, f.Time = t, time.Now()
		w.ObserveProgress(f)
	}
	return len(wanted) > 0
}

var deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

// progressFact makes one progress read: a list of a trigger kind's
// objects in every namespace (at most ProgressListLimit; a kind no CRD in
// the watch serves has none), or a list of the operator Deployment's
// namespace by its name. Each is one list request, counted as every
// request is.
func (l *Loop) progressFact(ctx context.Context, crdStore toolscache.Store, t ProgressTarget) ProgressFact {
	var f ProgressFact
	var list *unstructured.UnstructuredList
	var err error
	read := TriggerProgress
	if t.Deployment != "" {
		ns, name, _ := strings.Cut(t.Deployment, "/")
		read = DeploymentProgress
		list, err = l.Dynamic.Resource(deploymentsGVR).Namespace(ns).List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	} else {
		crd := findCRD(crdStore.List(), t.Trigger)
		if crd == nil || !crds.Established(crd) {
			return f
		}
		gvr := schema.GroupVersionResource{Group: t.Trigger.Group, Version: servedVersion(crd), Resource: crd.Spec.Names.Plural}
		list, err = l.Dynamic.Resource(gvr).List(ctx, metav1.ListOptions{Limit: ProgressListLimit})
	}
	switch {
	case apierrors.IsNotFound(err):
		return f // the kind went since the lookup
	case refused(err):
		f.Refused, f.Err = true, err.Error()
		return f
	case err != nil:
		f.Err = err.Error()
		return f
	}
	for i := range list.Items {
		o := &list.Items[i]
		name := o.GetName()
		if o.GetNamespace() != "" {
			name = o.GetNamespace() + "/" + name
		}
		f.Objects = append(f.Objects, ObjectProgress{Name: name, Progress: read(o)})
	}
	return f
}

// triggerFact reads what the cluster holds of trigger kind gk: whether a
// CRD serves it, and if so whether one object of it exists (a list with
// limit 1, in every namespace). The CRD is looked up in the walk's CRD
// watch; one absent there is looked for again in a fresh list, as a CRD
// created a moment ago may not have reached the watch yet. A failure is a
// fact too: the deadlock is then not certain, and the walker waits for an
// operator instead (walker_operator.go).
func (l *Loop) triggerFact(ctx context.Context, crdStore toolscache.Store, gk schema.GroupKind) TriggerFact {
	return readTriggerFact(ctx, l.Client, l.Dynamic, crdStore, gk)
}

// readTriggerFact is triggerFact on the cluster of c and dyn.
func readTriggerFact(ctx context.Context, c client.Reader, dyn dynamic.Interface, crdStore toolscache.Store, gk schema.GroupKind) TriggerFact {
	f := TriggerFact{Kind: gk}
	crd := findCRD(crdStore.List(), gk)
	if crd == nil {
		list, err := crds.ListCRDs(ctx, c)
		if err != nil {
			f.Refused, f.Err = refused(err), err.Error()
			return f
		}
		for _, c := range list {
			if c.Spec.Group == gk.Group && c.Spec.Names.Kind == gk.Kind {
				crd = c
			}
		}
	}
	if crd == nil || !crds.Established(crd) {
		f.CRDAbsent = true
		return f
	}
	gvr := schema.GroupVersionResource{Group: gk.Group, Version: servedVersion(crd), Resource: crd.Spec.Names.Plural}
	f.Resource = crd.Spec.Names.Plural + "." + gk.Group
	list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{Limit: 1})
	switch {
	case apierrors.IsNotFound(err):
		f.CRDAbsent = true // deleted since the lookup
	case refused(err):
		f.Refused, f.Err = true, err.Error()
	case err != nil:
		f.Err = err.Error()
	case len(list.Items) > 0:
		o := list.Items[0]
		f.Object = o.GetName()
		if o.GetNamespace() != "" {
			f.Object = o.GetNamespace() + "/" + o.GetName()
		}
	}
	return f
}

// findCRD returns the CRD of the watch's objects that serves gk, or nil.
func findCRD(objs []any, gk schema.GroupKind) *apiextensionsv1.CustomResourceDefinition {
	for _, o := range objs {
		u, ok := o.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
		if group != gk.Group || kind != gk.Kind {
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd) == nil {
			return crd
		}
	}
	return nil
}

// servedVersion is the CRD's storage version when served, else its first
// served one.
func servedVersion(crd *apiextensionsv1.CustomResourceDefinition) string {
	first := ""
	for _, v := range crd.Spec.Versions {
		if v.Served && v.Storage {
			return v.Name
		}
		if v.Served && first == "" {
			first = v.Name
		}
	}
	return first
}
