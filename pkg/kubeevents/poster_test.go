package kubeevents

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
)

func fakeDynamic() *dynamicfake.FakeDynamicClient {
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{EventsGVR: "EventList"})
}

func notice(reason string) Notice {
	return Notice{Time: t0, Regarding: Ref{APIVersion: ksAPI, Kind: "Kustomization", Namespace: "flux-system", Name: "apps", UID: "u1"},
		Type: corev1.EventTypeNormal, Reason: reason, Action: ActionReconcile, Note: "n"}
}

// TestPosterSeries: one request per Notice, none of them a read; a repeat
// is a series patch of the Event posted first, as kubectl counts it.
func TestPosterSeries(t *testing.T) {
	dyn := fakeDynamic()
	p := NewPoster(context.Background(), dyn, Options{Instance: "standup-test"})
	p.Post(notice(ReasonReconcileRequested), notice(ReasonReconcileRequested), notice(ReasonReconcileRequested), notice(ReasonResumed), notice(ReasonWalkFinished))
	stats := p.Close()
	if stats != (Stats{Created: 3, Series: 2, OnMutations: 4, WalkNotices: 1}) {
		t.Fatalf("stats %+v, want 3 created and 2 series updates, 4 of them on mutations and 1 walk notice", stats)
	}
	var verbs []string
	for _, a := range dyn.Actions() {
		verbs = append(verbs, a.GetVerb())
	}
	if got := strings.Join(verbs, " "); got != "create patch patch create create" {
		t.Errorf("requests %q, want create patch patch create create", got)
	}
	list, err := dyn.Resource(EventsGVR).Namespace("flux-system").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 3 {
		t.Fatalf("%d Events, want 3", len(list.Items))
	}
	for _, item := range list.Items {
		if item.Object["reason"] != ReasonReconcileRequested {
			continue
		}
		count, _, _ := unstructuredInt(item.Object, "series", "count")
		if count != 3 {
			t.Errorf("series count %d, want 3", count)
		}
		if item.Object["reportingController"] != ReportingController || item.Object["reportingInstance"] != "standup-test" {
			t.Errorf("reporting %v/%v", item.Object["reportingController"], item.Object["reportingInstance"])
		}
		regarding, _ := item.Object["regarding"].(map[string]any)
		if regarding["kind"] != "Kustomization" || regarding["uid"] != "u1" || regarding["apiVersion"] != ksAPI {
			t.Errorf("regarding %v", regarding)
		}
	}
}

func unstructuredInt(obj map[string]any, path ...string) (int64, bool, error) {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return 0, false, nil
		}
		cur = m[p]
	}
	switch v := cur.(type) {
	case int64:
		return v, true, nil
	case float64:
		return int64(v), true, nil
	}
	return 0, false, nil
}

// TestPosterStopsAtARefusal: a forbidden create is said once, the rest is
// not sent, and the walk is never told an error.
func TestPosterStopsAtARefusal(t *testing.T) {
	dyn := fakeDynamic()
	dyn.PrependReactor("create", "events", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "events.k8s.io", Resource: "events"}, "", nil)
	})
	var warnings []string
	p := NewPoster(context.Background(), dyn, Options{Warn: func(s string) { warnings = append(warnings, s) }})
	p.Post(notice(ReasonReconcileRequested), notice(ReasonResumed), notice(ReasonWalkFinished))
	stats := p.Close()
	if len(warnings) != 1 || !strings.Contains(warnings[0], "Events are off") || !strings.Contains(warnings[0], "events.events.k8s.io") {
		t.Fatalf("warnings %q", warnings)
	}
	if stats.Created != 0 || stats.Dropped != 3 {
		t.Errorf("stats %+v, want 3 dropped", stats)
	}
	if n := len(dyn.Actions()); n != 1 {
		t.Errorf("%d requests after a refusal, want the 1 refused", n)
	}
}

// TestPosterNeverBlocks: past its queue a Poster drops and counts.
func TestPosterNeverBlocks(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // nothing is sent: every Notice is dropped, none waits
	p := NewPoster(ctx, fakeDynamic(), Options{Queue: 2})
	for range 10 {
		p.Post(notice(ReasonReconcileRequested))
	}
	if stats := p.Close(); stats.Dropped != 10 || stats.Created != 0 {
		t.Errorf("stats %+v, want all 10 dropped", stats)
	}
}
