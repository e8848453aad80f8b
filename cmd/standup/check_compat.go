package main

// Helpers that only check.go and check_report.go still use. Another branch
// moves check into pkg/check; delete this file at that merge.

import (
	"context"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubestandup/standup/pkg/crds"
)

// listCRDs reads every CRD fresh from the API server, by name.
func listCRDs(ctx context.Context, cl *cluster) (map[string]*apiextensionsv1.CustomResourceDefinition, error) {
	list, err := crds.ListCRDs(ctx, cl.Client)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*apiextensionsv1.CustomResourceDefinition, len(list))
	for _, c := range list {
		out[c.Name] = c
	}
	return out, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func mapValues[K comparable, V any](m map[K]V) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
