package main

import (
	"slices"
	"strings"

	"github.com/kubestandup/standup/pkg/flux"
)

// parseKinds reads --kinds as flux and kubectl users write kinds: the short
// names ks and hr, the kind, or its plural, in any case. It returns the
// kinds in Flux's spelling, each once, in the order given.
func parseKinds(words []string) ([]string, error) {
	var kinds []string
	for _, w := range words {
		var kind string
		switch strings.ToLower(strings.TrimSpace(w)) {
		case "ks", "kustomization", "kustomizations":
			kind = flux.KindKustomization
		case "hr", "helmrelease", "helmreleases":
			kind = flux.KindHelmRelease
		default:
			return nil, usageErrorf("--kinds: unknown kind %q (want ks, hr, Kustomization or HelmRelease)", w)
		}
		if !slices.Contains(kinds, kind) {
			kinds = append(kinds, kind)
		}
	}
	return kinds, nil
}
