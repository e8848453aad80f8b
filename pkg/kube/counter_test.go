package kube

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/client-go/rest"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		method, path string
		watch        bool
		want         Request
	}{
		{"GET", "/apis/kustomize.toolkit.fluxcd.io/v1/kustomizations", false, Request{"list", "kustomizations.kustomize.toolkit.fluxcd.io"}},
		{"GET", "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations", true, Request{"watch", "kustomizations.kustomize.toolkit.fluxcd.io"}},
		{"PATCH", "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/apps", false, Request{"patch", "kustomizations.kustomize.toolkit.fluxcd.io"}},
		{"GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x.example.com", false, Request{"get", "customresourcedefinitions.apiextensions.k8s.io"}},
		{"PATCH", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x.example.com", false, Request{"patch", "customresourcedefinitions.apiextensions.k8s.io"}},
		{"POST", "/api/v1/namespaces", false, Request{"create", "namespaces"}},
		{"GET", "/api/v1/namespaces/default", false, Request{"get", "namespaces"}},
		{"DELETE", "/api/v1/namespaces/default/configmaps/x", false, Request{"delete", "configmaps"}},
		{"DELETE", "/api/v1/namespaces/default/configmaps", false, Request{"deletecollection", "configmaps"}},
		{"PUT", "/apis/source.toolkit.fluxcd.io/v1/namespaces/a/gitrepositories/b/status", false, Request{"update", "gitrepositories.source.toolkit.fluxcd.io/status"}},
		{"GET", "/version", false, Request{"get", "/version"}},
	}
	for _, tt := range tests {
		if got := Classify(tt.method, tt.path, tt.watch); got != tt.want {
			t.Errorf("Classify(%s %s watch=%v) = %v, want %v", tt.method, tt.path, tt.watch, got, tt.want)
		}
	}
}

func TestCounterCountsEveryRequest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer srv.Close()
	c := &RequestCounter{}
	cfg := &rest.Config{Host: srv.URL}
	cfg.Wrap(c.Wrap)
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/api/v1/namespaces", "/api/v1/namespaces", "/api/v1/namespaces/x"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if got := c.Total("list"); got != 2 {
		t.Errorf("list count = %d, want 2", got)
	}
	if got := c.Total(""); got != 3 {
		t.Errorf("total = %d, want 3", got)
	}
	if got := c.Summary(); got != "get namespaces=1, list namespaces=2" {
		t.Errorf("summary = %q", got)
	}
}
