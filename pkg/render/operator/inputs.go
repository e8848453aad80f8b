package operator

import (
	"encoding/json"
	"fmt"
	"hash/adler32"
	"maps"
	"strings"
	"unicode"
)

// staticInputs returns spec.inputs as the Operator reads them
// (ResourceSet.GetInputs), each input set given the reference of the
// ResourceSet that provides it under "provider" (internal/inputs
// provider.go, getFromProvider): inputs.provider.apiVersion is always
// fluxcd.controlplane.io/v1, kind ResourceSet. A user's own "provider" key
// is overwritten. Flatten adds no "id": an in-line input set has one only
// if it says so.
func staticInputs(s *spec, name, namespace string) ([]map[string]any, error) {
	out := make([]map[string]any, 0, len(s.Inputs))
	for i, in := range s.Inputs {
		set := make(map[string]any, len(in)+1)
		for k, raw := range in {
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				return nil, fmt.Errorf("failed to unmarshal inputs[%d]: %w", i, err)
			}
			set[k] = v
		}
		set["provider"] = map[string]any{
			"apiVersion": APIVersion,
			"kind":       KindResourceSet,
			"name":       name,
			"namespace":  namespace,
		}
		out = append(out, set)
	}
	return out, nil
}

// inputID is the Operator's short opaque id of an input set: the decimal
// Adler-32 checksum of s (internal/inputs id.go).
func inputID(s string) string {
	return fmt.Sprintf("%v", adler32.Checksum([]byte(s)))
}

// normalizeKey is the key under which Permute places the inputs of one
// provider (internal/inputs keys.go, NormalizeKeyForTemplate): lower case,
// spaces and punctuation to '_', anything but [a-z0-9_] dropped, and the
// non-empty words rejoined with '_'.
func normalizeKey(key string) string {
	key = strings.Map(func(r rune) rune {
		r = unicode.ToLower(r)
		if unicode.IsSpace(r) || unicode.IsPunct(r) {
			return '_'
		}
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			return r
		}
		return -1
	}, key)
	var words []string
	for word := range strings.SplitSeq(key, "_") {
		if word != "" {
			words = append(words, word)
		}
	}
	return strings.Join(words, "_")
}

// provider is one object's inputs, in the order the Operator combines
// them: the ResourceSet's own first, then its providers sorted.
type provider struct {
	name   string
	inputs []map[string]any
}

// permute combines the inputs of providers as the Permute strategy does
// (internal/inputs permuter.go): the Cartesian product of the providers'
// input sets, each scoped under its provider's normalized name, with an
// "id" made of the provider names and the indexes chosen. A provider
// without inputs is skipped unless includeEmpty, which then makes the
// product empty. More than 10000 permutations is an error.
func permute(providers []provider, includeEmpty bool) ([]map[string]any, error) {
	var scoped [][]map[string]any
	var names []string
	expected := uint64(0)
	for _, p := range providers {
		if !includeEmpty && len(p.inputs) == 0 {
			continue
		}
		if len(scoped) == 0 {
			expected = uint64(len(p.inputs))
		} else {
			expected *= uint64(len(p.inputs))
		}
		if expected > maxPermutations {
			return nil, fmt.Errorf("adding provider '%s' with %d inputs would exceed the maximum allowed permutations. max: %d, got: %d",
				p.name, len(p.inputs), maxPermutations, expected)
		}
		key := normalizeKey(p.name)
		if key == "" {
			return nil, fmt.Errorf("normalized provider name is empty: '%s'", p.name)
		}
		sets := make([]map[string]any, len(p.inputs))
		for i, in := range p.inputs {
			sets[i] = map[string]any{key: in}
		}
		scoped, names = append(scoped, sets), append(names, key)
	}
	out := []map[string]any{}
	for _, sets := range scoped {
		if len(sets) == 0 {
			return out, nil
		}
	}
	if len(scoped) == 0 {
		return out, nil
	}
	pick := make([]int, len(scoped))
	for {
		perm := map[string]any{}
		parts := make([]string, len(scoped))
		for i, j := range pick {
			maps.Copy(perm, scoped[i][j])
			parts[i] = fmt.Sprintf("%s=%d", names[i], j)
		}
		perm["id"] = inputID(strings.Join(parts, "/"))
		out = append(out, perm)
		if !next(pick, scoped) {
			return out, nil
		}
	}
}

// next advances pick to the next permutation, the last provider fastest,
// as the Operator's backtracking does; false after the last.
func next(pick []int, scoped [][]map[string]any) bool {
	for i := len(pick) - 1; i >= 0; i-- {
		if pick[i]++; pick[i] < len(scoped[i]) {
			return true
		}
		pick[i] = 0
	}
	return false
}
