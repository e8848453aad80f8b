package kube

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// DefaultRequestTimeout bounds one API request (its answer and its body)
// when --request-timeout is not given. A list of every CRD on a large
// cluster is a few tens of MB; a minute is generous for that and still
// turns a wedged API server into an error rather than a hang.
const DefaultRequestTimeout = 60 * time.Second

// ErrRequestTimeout marks a request that got no (complete) answer within its
// per-request timeout.
var ErrRequestTimeout = fmt.Errorf("no answer from the API server within the request timeout")

// boundTransport ties every request to the command's lifetime and, except
// for watches, to a per-request timeout. client-go's discovery and REST
// mapper send requests with context.Background, so neither Ctrl-C nor
// --timeout would reach them through the request's own context: binding at
// the transport is the one place every request passes. Watches are exempt
// from the per-request timeout (they idle for long by design, and a watch
// cut every minute would cost a re-list); they end with the lifetime.
type boundTransport struct {
	base     http.RoundTripper
	lifetime context.Context
	timeout  time.Duration
}

// bindRequests returns a transport wrapper for rest.Config.Wrap.
func bindRequests(lifetime context.Context, timeout time.Duration) func(http.RoundTripper) http.RoundTripper {
	return func(rt http.RoundTripper) http.RoundTripper {
		return &boundTransport{base: rt, lifetime: lifetime, timeout: timeout}
	}
}

func (t *boundTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	stopLifetime := func() bool { return false }
	if t.lifetime != nil {
		stopLifetime = context.AfterFunc(t.lifetime, func() { cancel(context.Cause(t.lifetime)) })
	}
	var timer *time.Timer
	if t.timeout > 0 && !isWatch(req) {
		what := fmt.Errorf("%w (%s, %s %s)", ErrRequestTimeout, t.timeout, req.Method, req.URL.Path)
		timer = time.AfterFunc(t.timeout, func() { cancel(what) })
	}
	release := func() {
		stopLifetime()
		if timer != nil {
			timer.Stop()
		}
		cancel(nil)
	}
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cause := context.Cause(ctx)
		release()
		if cause != nil {
			return nil, causeError{cause: cause, err: err}
		}
		return nil, err
	}
	resp.Body = &boundBody{ReadCloser: resp.Body, ctx: ctx, release: release}
	return resp, nil
}

// boundBody releases the request's timer when the body is closed, and
// names why a read was cut short.
type boundBody struct {
	io.ReadCloser
	ctx     context.Context
	release func()
}

func (b *boundBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		if cause := context.Cause(b.ctx); cause != nil {
			return n, causeError{cause: cause, err: err}
		}
	}
	return n, err
}

func (b *boundBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}

// causeError reports why a request was cut (timeout, Ctrl-C, --timeout)
// while keeping the transport's error; errors.Is matches both.
type causeError struct {
	cause error
	err   error
}

func (e causeError) Error() string   { return e.cause.Error() }
func (e causeError) Unwrap() []error { return []error{e.cause, e.err} }

func isWatch(req *http.Request) bool {
	if w := req.URL.Query().Get("watch"); w == "true" || w == "1" {
		return true
	}
	return strings.Contains(req.URL.Path, "/watch/")
}
