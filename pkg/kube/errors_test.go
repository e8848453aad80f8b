package kube

import (
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestExplainNamesTheVerbTheServerRefused(t *testing.T) {
	crds := schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}
	tests := []struct {
		name      string
		err       error
		verb, res string
		want      string
	}{
		{
			name: "apply refused as patch, though the caller guessed create",
			err:  apierrors.NewForbidden(crds, "x.example.com", errors.New(`User "u" cannot patch resource "customresourcedefinitions" in API group "apiextensions.k8s.io" at the cluster scope`)),
			verb: "create", res: "customresourcedefinitions.apiextensions.k8s.io",
			want: `forbidden: standup needs "patch" on customresourcedefinitions.apiextensions.k8s.io`,
		},
		{
			name: "core group, subresource",
			err:  apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "p", errors.New(`User "u" cannot get resource "pods/log" in API group "" in the namespace "ns"`)),
			verb: "list", res: "pods",
			want: `forbidden: standup needs "get" on pods/log`,
		},
		{
			name: "no RBAC reason: the caller's words",
			err:  apierrors.NewForbidden(crds, "x", errors.New("denied by webhook")),
			verb: "create", res: "customresourcedefinitions.apiextensions.k8s.io",
			want: `forbidden: standup needs "create" on customresourcedefinitions.apiextensions.k8s.io`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Explain(tt.err, tt.verb, tt.res).Error()
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("Explain = %q, want prefix %q", got, tt.want)
			}
		})
	}
}

func TestIsTransient(t *testing.T) {
	gr := schema.GroupResource{Group: "kustomize.toolkit.fluxcd.io", Resource: "kustomizations"}
	tests := []struct {
		err  error
		want bool
	}{
		{errors.New(`Patch "https://127.0.0.1:1/apis/x": unexpected EOF`), true},
		{errors.New(`Patch "https://127.0.0.1:1/apis/x": dial tcp 127.0.0.1:1: connect: connection refused`), true},
		{errors.New(`read tcp 127.0.0.1:2->127.0.0.1:1: read: connection reset by peer`), true},
		{errors.New("http2: server sent GOAWAY and closed the connection; LastStreamID=1"), true},
		{apierrors.NewServiceUnavailable("the apiserver is shutting down"), true},
		{apierrors.NewTooManyRequests("retry", 1), true},
		{apierrors.NewForbidden(gr, "a", errors.New("no")), false},
		{apierrors.NewNotFound(gr, "a"), false},
		{errors.New("context canceled"), false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := IsTransient(tt.err); got != tt.want {
			t.Errorf("IsTransient(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
