package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// resourceSet is a ResourceSet paused as `flux-operator suspend` pauses it
// (fluxcd.controlplane.io/reconcile: disabled) that applies one ConfigMap
// named after it, with deps as its spec.dependsOn.
func resourceSet(ns, name string, deps ...map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(flux.ResourceSetGVK)
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetAnnotations(map[string]string{flux.OperatorReconcileAnnotation: "disabled"})
	spec := map[string]any{"resources": []any{map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"data":     map[string]any{"from": "resourceset"},
	}}}
	if len(deps) > 0 {
		list := make([]any, len(deps))
		for i, d := range deps {
			list[i] = d
		}
		spec["dependsOn"] = list
	}
	u.Object["spec"] = spec
	return u
}

func getResourceSet(t *testing.T, w *testenv.World, ns, name string) flux.Object {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(flux.ResourceSetGVK)
	if err := w.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		t.Fatal(err)
	}
	obj, err := flux.FromResourceSet(u)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// TestResumeWalksResourceSets runs the real Flux Operator against the
// world's kube-apiserver: ResourceSet b depends on a (ready: true), and c
// on a CRD that does not exist yet. `resume --kinds rset` must take a to
// Ready before it asks b, and hold c (neither resumed nor asked) until the
// test creates the CRD; then c too is asked and turns Ready. It runs as
// docs/rbac.yaml's standup-operator, and tiers --kinds ks,rset as its
// standup-viewer; then each of rsetCommands, with any one of its grants
// removed, stops naming it.
func TestResumeWalksResourceSets(t *testing.T) {
	w := testenv.New(t, testenv.Options{FluxOperator: true})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	ns := testenv.UniqueName("rset")
	if err := w.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	crd := liveCRD(ns+".example.org", "Widget", nil, nil)
	sets := []*unstructured.Unstructured{
		resourceSet(ns, "a"),
		resourceSet(ns, "b", map[string]any{"apiVersion": flux.ResourceSetGVK.GroupVersion().String(), "kind": flux.KindResourceSet, "namespace": ns, "name": "a", "ready": true}),
		resourceSet(ns, "c", map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "name": crd.Name, "ready": true}),
	}
	for _, u := range sets {
		if err := w.Client.Create(ctx, u); err != nil {
			t.Fatalf("ResourceSet/%s/%s create failed: %v", ns, u.GetName(), err)
		}
	}

	idOf := func(name string) tiers.ID { return tiers.ID{Kind: flux.KindResourceSet, Namespace: ns, Name: name} }
	tap, bReady := onFirst(func(e wait.Event) bool { return isReadyEvent(e) && *e.Node == idOf("b") })
	roles, _ := rbacRoles(t)
	operatorKC := userBoundTo(t, w, roles["standup-operator"])
	bg := goRun(ctx, t, runSpec{kubeconfig: operatorKC, onEvent: tap}, "resume", "--kinds", "rset", "-o", "json")
	select {
	case <-bReady:
	case res := <-bg.done:
		t.Fatalf("resume ended (exit %d) before b was Ready:\n%s", res.Code, tailLines(res.Stdout, 40))
	case <-ctx.Done():
		t.Fatalf("b never reported Ready:\n%s", tailLines(bg.out.String(), 40))
	}
	// b is Ready, c still waits on its CRD: standup has not touched it.
	if c := getResourceSet(t, w, ns, "c"); !c.Suspended || c.RequestedAt != "" {
		t.Fatalf("c was resumed (suspended=%v) or asked (requestedAt=%q) before its CRD %s existed", c.Suspended, c.RequestedAt, crd.Name)
	}
	createdAt := time.Now()
	if err := w.Client.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}

	res := bg.await(t, 3*time.Minute)
	if res.Code != ExitOK {
		t.Fatalf("exit %d, want %d; stderr: %s", res.Code, ExitOK, tailLines(res.Stderr, 40))
	}
	evs := events(t, res.Stdout)
	kicked := map[tiers.ID]time.Time{}
	waitedOnCRD := false
	for _, e := range evs {
		if e.Node == nil {
			continue
		}
		if _, ok := kicked[*e.Node]; e.Type == wait.EventAction && !ok {
			kicked[*e.Node] = e.Time
			// The mutation named as made: the Operator's annotation.
			if want := flux.OperatorReconcileAnnotation + "=enabled"; e.Reason != "Resumed" || !strings.Contains(e.Message, want) {
				t.Errorf("%s's first action %s %q, want Resumed naming %s", e.Node.Name, e.Reason, e.Message, want)
			}
		}
		if *e.Node == idOf("c") && strings.Contains(e.Message, crd.Name) {
			waitedOnCRD = true
		}
	}
	ready := firstReadyAt(evs)
	for _, name := range []string{"a", "b", "c"} {
		if _, ok := ready[idOf(name)]; !ok {
			t.Errorf("%s never reported Ready", name)
		}
		obj := getResourceSet(t, w, ns, name)
		if obj.Suspended || !obj.ReadyAtGeneration() {
			t.Errorf("%s in the cluster: suspended=%v, ready at generation=%v; want resumed and Ready", name, obj.Suspended, obj.ReadyAtGeneration())
		}
		cm := &corev1.ConfigMap{}
		if err := w.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
			t.Errorf("ConfigMap/%s/%s, which ResourceSet %s applies: %v", ns, name, name, err)
		}
	}
	if a, b := ready[idOf("a")], kicked[idOf("b")]; b.IsZero() || b.Before(a) {
		t.Errorf("b asked at %s, before a was Ready (%s)", b, a)
	}
	if c := kicked[idOf("c")]; c.IsZero() || c.Before(createdAt) {
		t.Errorf("c asked at %s, before its CRD was created (%s)", c, createdAt)
	}
	if !waitedOnCRD {
		t.Errorf("no event on c names the CRD %s it waited for:\n%s", crd.Name, tailLines(res.Stdout, 40))
	}

	viewer := runWith(ctx, t, runSpec{kubeconfig: userBoundTo(t, w, roles["standup-viewer"])}, "tiers", "--kinds", "ks,rset")
	for _, name := range []string{"a", "b", "c"} {
		if viewer.Code != ExitOK || !strings.Contains(viewer.Stdout, ns+"/"+name) {
			t.Errorf("tiers --kinds ks,rset as standup-viewer: exit %d, want %s/%s in:\n%s", viewer.Code, ns, name, viewer.Stdout)
		}
	}

	// The refusals. held waits for good on a CRD no one creates, so that a
	// walk lasts until a refused watch stops it; each run has a fresh
	// paused ResourceSet to resume, so that a refused patch stops it.
	held := resourceSet(ns, "held", map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "name": "nevers." + ns + ".example.org"})
	if err := w.Client.Create(ctx, held); err != nil {
		t.Fatal(err)
	}
	for _, c := range rsetCommands {
		for i, g := range c.needs {
			t.Run("refused/"+c.role+"/"+g.String(), func(t *testing.T) {
				if err := w.Client.Create(ctx, resourceSet(ns, fmt.Sprintf("paused-%s-%d", c.args[0], i))); err != nil {
					t.Fatal(err)
				}
				assertRefused(t, userBoundTo(t, w, without(roles[c.role], g)), c, g)
			})
		}
	}
}
