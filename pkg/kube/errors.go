package kube

import (
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
)

// Explain turns an API error from verb on resource into a one-line error
// that says what went wrong and what to do. resource is plural.group, e.g.
// customresourcedefinitions.apiextensions.k8s.io.
func Explain(err error, verb, resource string) error {
	if err == nil {
		return nil
	}
	switch {
	case apierrors.IsForbidden(err):
		verb, resource = refusal(err, verb, resource)
		return fmt.Errorf("forbidden: standup needs %q on %s (bind the role in docs/rbac.yaml): %w", verb, resource, err)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("unauthorized: the credentials (kubeconfig, --token) were rejected while trying to %s %s: %w", verb, resource, err)
	case apimeta.IsNoMatchError(err):
		return fmt.Errorf("the cluster does not serve %s: %w", resource, err)
	case isUnreachable(err):
		return fmt.Errorf("cannot reach the API server (%s %s): check the cluster is up and --context is right: %w", verb, resource, err)
	}
	return fmt.Errorf("%s %s failed: %w", verb, resource, err)
}

// refusedRE matches the RBAC authorizer's reason, e.g. `cannot patch
// resource "customresourcedefinitions" in API group "apiextensions.k8s.io"`.
var refusedRE = regexp.MustCompile(`cannot (\S+) resource "([^"/]+)(/[^"]*)?"(?: in API group "([^"]*)")?`)

// refusal returns the verb and resource the API server says it refused,
// which the caller's guess may miss: a server-side apply is authorized as
// "patch", and also as "create" when the object is new.
func refusal(err error, verb, resource string) (string, string) {
	m := refusedRE.FindStringSubmatch(err.Error())
	if m == nil {
		return verb, resource
	}
	resource = m[2]
	if m[4] != "" {
		resource += "." + m[4]
	}
	return m[1], resource + m[3]
}

// IsTransient reports whether a request failed in a way that trying again
// may cure: the API server was unreachable, dropped the connection
// mid-request (a crash, a restart, a load balancer), or asked the client to
// come back later (429, 503, 504). Retry only idempotent requests: the
// request may have been applied before the connection dropped.
func IsTransient(err error) bool {
	if err == nil {
		return false
	}
	if isUnreachable(err) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		apierrors.IsServiceUnavailable(err) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) {
		return true
	}
	msg := err.Error()
	for _, dropped := range []string{"unexpected EOF", "connection reset by peer", "broken pipe",
		"http2: client connection lost", "server sent GOAWAY", "use of closed network connection"} {
		if strings.Contains(msg, dropped) {
			return true
		}
	}
	return false
}

// IsUnreachable reports whether err means the API server could not be reached.
func IsUnreachable(err error) bool { return isUnreachable(err) }

func isUnreachable(err error) bool {
	var opErr *net.OpError
	var dnsErr *net.DNSError
	if errors.As(err, &opErr) || errors.As(err, &dnsErr) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "connection refused") || strings.Contains(msg, "no such host") ||
		strings.Contains(msg, "i/o timeout") || strings.Contains(msg, "TLS handshake timeout") || strings.Contains(msg, "context deadline exceeded") && strings.Contains(msg, "dial")
}
