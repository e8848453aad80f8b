package flux

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// kindWords are the words a user may type for each kind, lower case: the
// flux CLI's short names, the kind, and its plural.
var kindWords = map[string]string{
	"ks":             KindKustomization,
	"kustomization":  KindKustomization,
	"kustomizations": KindKustomization,
	"hr":             KindHelmRelease,
	"helmrelease":    KindHelmRelease,
	"helmreleases":   KindHelmRelease,
	"rset":           KindResourceSet,
	"resourceset":    KindResourceSet,
	"resourcesets":   KindResourceSet,
}

// kindOrder orders the kinds in KindWords.
var kindOrder = map[string]int{KindKustomization: 0, KindHelmRelease: 1, KindResourceSet: 2}

// KindWords returns every word ParseKind takes, in lower case: for each
// kind its short name (flux's ks and hr, the Operator's CRD's rset), the
// kind and its plural: Kustomization's first, then HelmRelease's, then
// ResourceSet's.
func KindWords() []string {
	words := slices.Collect(maps.Keys(kindWords))
	slices.SortFunc(words, func(a, b string) int {
		return cmp.Or(
			cmp.Compare(kindOrder[kindWords[a]], kindOrder[kindWords[b]]),
			cmp.Compare(len(a), len(b)),
			strings.Compare(a, b))
	})
	return words
}

// ParseKind returns the kind a user means by word: Kustomization for ks,
// kustomization or kustomizations, HelmRelease for hr, helmrelease or
// helmreleases, ResourceSet for rset, resourceset or resourcesets, in any
// case. It returns false for any other word.
func ParseKind(word string) (string, bool) {
	kind, ok := kindWords[strings.ToLower(strings.TrimSpace(word))]
	return kind, ok
}

// ParseKinds maps each word to its kind (ParseKind), each kind once, in
// the order first given. An unknown word is an error that names it.
func ParseKinds(words []string) ([]string, error) {
	var kinds []string
	for _, w := range words {
		kind, ok := ParseKind(w)
		if !ok {
			return nil, fmt.Errorf("unknown kind %q (want Kustomization or ks, HelmRelease or hr, ResourceSet or rset)", w)
		}
		if !slices.Contains(kinds, kind) {
			kinds = append(kinds, kind)
		}
	}
	return kinds, nil
}
