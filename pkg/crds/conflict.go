package crds

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// NameConflicts returns, for a CRD about to be created, every existing CRD
// of the same group whose kind, list kind, plural, singular or a short name
// it would reuse. The API server would store such a CRD but never accept
// its names (NamesAccepted=False), so it must not be created.
func NameConflicts(crd *apiextensionsv1.CustomResourceDefinition, existing []*apiextensionsv1.CustomResourceDefinition) []string {
	var out []string
	n := crd.Spec.Names
	for _, other := range existing {
		if other.Name == crd.Name || other.Spec.Group != crd.Spec.Group {
			continue
		}
		o := other.Spec.Names
		switch {
		case n.Kind == o.Kind, n.Plural == o.Plural,
			n.ListKind != "" && n.ListKind == o.ListKind,
			n.Singular != "" && n.Singular == o.Singular,
			sharesShortName(n.ShortNames, o.ShortNames):
			out = append(out, other.Name)
		}
	}
	sort.Strings(out)
	return out
}

func sharesShortName(a, b []string) bool {
	for _, s := range a {
		if slices.Contains(b, s) {
			return true
		}
	}
	return false
}

// ConflictError reports bundle CRDs that would collide with CRDs on the cluster.
type ConflictError struct {
	Lines []string
}

// Error lists every conflict and says what to do.
func (e *ConflictError) Error() string {
	return "the CRD bundle conflicts with CRDs on the cluster, nothing was created: " + strings.Join(e.Lines, "; ") +
		" (the API server would store such a CRD but never accept its names; fix or remove the bundle file, e.g. recapture it with standup crds capture)"
}

// CheckConflicts checks every entry against the existing CRDs and returns a
// *ConflictError naming each bundle CRD, its file, and the CRDs it collides with.
func CheckConflicts(entries []BundleEntry, existing []*apiextensionsv1.CustomResourceDefinition) error {
	var lines []string
	for _, e := range entries {
		if c := NameConflicts(e.CRD, existing); len(c) > 0 {
			lines = append(lines, fmt.Sprintf("CustomResourceDefinition/%s (%s) reuses the names of %v", e.CRD.Name, e.File, c))
		}
	}
	if len(lines) > 0 {
		return &ConflictError{Lines: lines}
	}
	return nil
}
