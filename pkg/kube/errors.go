package kube

import (
	"errors"
	"fmt"
	"net"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
)

// ErrFluxNotInstalled is returned when the cluster has no Kustomization API.
var ErrFluxNotInstalled = errors.New("Flux is not installed on this cluster (no kustomizations.kustomize.toolkit.fluxcd.io API): install Flux, or check --context")

// Explain turns an API error from verb on resource into a one-line error
// that says what went wrong and what to do. resource is plural.group, e.g.
// kustomizations.kustomize.toolkit.fluxcd.io.
func Explain(err error, verb, resource string) error {
	if err == nil {
		return nil
	}
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Errorf("forbidden: standup needs %q on %s (bind the role in docs/rbac.yaml): %w", verb, resource, err)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("unauthorized: the kubeconfig's credentials were rejected while trying to %s %s: %w", verb, resource, err)
	case apimeta.IsNoMatchError(err) && strings.HasPrefix(resource, "kustomizations.kustomize.toolkit.fluxcd.io"):
		return fmt.Errorf("%w: %w", ErrFluxNotInstalled, err)
	case apimeta.IsNoMatchError(err):
		return fmt.Errorf("the cluster does not serve %s: %w", resource, err)
	case isUnreachable(err):
		return fmt.Errorf("cannot reach the API server (%s %s): check the cluster is up and --context is right: %w", verb, resource, err)
	}
	return fmt.Errorf("%s %s failed: %w", verb, resource, err)
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
