package kube

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// RequestCounter counts API requests by verb and resource. It wraps a REST
// client's transport, so it sees every request that client makes.
type RequestCounter struct {
	mu     sync.Mutex
	counts map[Request]int
	// observer, when set (Observe), hears of every request once it ends.
	observer atomic.Pointer[func(Observed)]
}

// Observed is one request as it ended: what it was, its status and how
// long it took. It holds the URL path only: never a query or a body.
type Observed struct {
	Request
	Start    time.Time
	Path     string
	Code     int
	Duration time.Duration
	Err      error
}

// Observe has f hear of every request the counter's transport makes from
// now on, once it ends (the incident record). f runs on the request's
// goroutine and must be quick.
func (c *RequestCounter) Observe(f func(Observed)) { c.observer.Store(&f) }

// Request is one kind of API call: a Kubernetes verb on a resource.
type Request struct {
	Verb     string `json:"verb"`
	Resource string `json:"resource"`
}

// String renders the request as "verb resource".
func (r Request) String() string { return r.Verb + " " + r.Resource }

// Wrap returns a transport that counts requests and forwards them to rt.
func (c *RequestCounter) Wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		r := Classify(req.Method, req.URL.Path, req.URL.Query().Get("watch") == "true")
		c.record(r)
		observe := c.observer.Load()
		if observe == nil {
			return rt.RoundTrip(req)
		}
		start := time.Now()
		resp, err := rt.RoundTrip(req)
		o := Observed{Request: r, Start: start, Path: req.URL.Path, Duration: time.Since(start), Err: err}
		if resp != nil {
			o.Code = resp.StatusCode
		}
		(*observe)(o)
		return resp, err
	})
}

func (c *RequestCounter) record(r Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = map[Request]int{}
	}
	c.counts[r]++
}

// Counts returns a copy of the counts so far.
func (c *RequestCounter) Counts() map[Request]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[Request]int, len(c.counts))
	for k, v := range c.counts {
		out[k] = v
	}
	return out
}

// Total returns the number of requests with the given verb ("" for all).
func (c *RequestCounter) Total(verb string) int {
	n := 0
	for r, v := range c.Counts() {
		if verb == "" || r.Verb == verb {
			n += v
		}
	}
	return n
}

// Summary renders the counts as "verb resource=N" pairs, sorted.
func (c *RequestCounter) Summary() string {
	counts := c.Counts()
	parts := make([]string, 0, len(counts))
	for r, n := range counts {
		parts = append(parts, fmt.Sprintf("%s=%d", r, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// Classify maps an HTTP request on the Kubernetes API to a verb and a
// resource (with its group, e.g. customresourcedefinitions.apiextensions.k8s.io).
func Classify(method, path string, watch bool) Request {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	var group string
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		group, parts = parts[1], parts[3:]
	default:
		return Request{Verb: strings.ToLower(method), Resource: "/" + strings.Join(parts, "/")}
	}
	if len(parts) >= 2 && parts[0] == "namespaces" && len(parts) != 2 {
		parts = parts[2:]
	}
	resource, named, sub := "", false, ""
	if len(parts) > 0 {
		resource = parts[0]
	}
	if len(parts) > 1 {
		named = true
	}
	if len(parts) > 2 {
		sub = "/" + parts[2]
	}
	if group != "" {
		resource += "." + group
	}
	return Request{Verb: verbOf(method, named, watch), Resource: resource + sub}
}

func verbOf(method string, named, watch bool) string {
	switch method {
	case http.MethodGet:
		switch {
		case watch:
			return "watch"
		case named:
			return "get"
		default:
			return "list"
		}
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if named {
			return "delete"
		}
		return "deletecollection"
	default:
		return strings.ToLower(method)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
