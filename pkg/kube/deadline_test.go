package kube

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// hangingServer answers nothing until the test ends: the wedged API server.
func hangingServer(t *testing.T) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("stream") == "1" {
			// Headers, then silence: a body that never ends.
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
		}
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv
}

func TestBoundTransportCutsRequests(t *testing.T) {
	srv := hangingServer(t)
	cases := []struct {
		name     string
		path     string
		timeout  time.Duration
		cancelIn time.Duration // cancel the lifetime after this long (0: never)
		want     error
	}{
		{name: "request timeout", path: "/api/v1/namespaces", timeout: 200 * time.Millisecond, want: ErrRequestTimeout},
		{name: "body that stalls after the headers", path: "/api/v1/namespaces?stream=1", timeout: 200 * time.Millisecond, want: ErrRequestTimeout},
		{name: "lifetime ends a request", path: "/api/v1/namespaces", timeout: time.Hour, cancelIn: 200 * time.Millisecond, want: context.Canceled},
		{name: "lifetime ends a watch", path: "/api/v1/namespaces?watch=true", timeout: 50 * time.Millisecond, cancelIn: 500 * time.Millisecond, want: context.Canceled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lifetime, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancelIn > 0 {
				time.AfterFunc(tc.cancelIn, cancel)
			}
			c := &http.Client{Transport: bindRequests(lifetime, tc.timeout)(http.DefaultTransport)}
			start := time.Now()
			req, _ := http.NewRequest(http.MethodGet, srv.URL+tc.path, nil) // context.Background, as discovery's
			resp, err := c.Do(req)
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if tc.cancelIn > 0 && time.Since(start) < tc.cancelIn {
				t.Fatalf("cut after %s, before the lifetime ended (%s): a watch must not get the per-request timeout", time.Since(start), tc.cancelIn)
			}
		})
	}
}

func TestBoundTransportLeavesCompleteAnswersAlone(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	c := &http.Client{Transport: bindRequests(context.Background(), time.Second)(http.DefaultTransport)}
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(body) != "ok" {
		t.Fatalf("body %q, err %v", body, err)
	}
}

func TestIsWatch(t *testing.T) {
	for path, want := range map[string]bool{
		"/apis/kustomize.toolkit.fluxcd.io/v1/kustomizations?watch=true":                true,
		"/apis/kustomize.toolkit.fluxcd.io/v1/kustomizations?watch=1&resourceVersion=5": true,
		"/api/v1/watch/namespaces":                                                           true,
		"/apis/kustomize.toolkit.fluxcd.io/v1/kustomizations?limit=500":                      false,
		"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/watchers.example.com":       false,
		"/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/watch-x": false,
	} {
		req, _ := http.NewRequest(http.MethodGet, "https://api"+path, nil)
		if got := isWatch(req); got != want {
			t.Errorf("isWatch(%s) = %v, want %v", path, got, want)
		}
	}
}
