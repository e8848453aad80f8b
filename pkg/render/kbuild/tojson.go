package kbuild

import (
	"encoding/json"
	"strings"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/resource"
)

// resourceJSON returns what r.MarshalJSON returns, in time linear in the
// object. kyaml's MarshalJSON prints the node tree and decodes the text with
// yaml.v3, whose duplicate-key check is quadratic in a mapping's keys: a
// ConfigMap of 20,000 keys took seconds. resourceJSON decodes the tree
// itself, each scalar with yaml.v3, so that values resolve exactly as they do
// there; where printing is not neutral (see nodeValue), it prints and parses
// the same way first (printedJSON). Printing and parsing back every object
// was a tenth of a large render's CPU. Anything unusual (a key that is not a
// string, a duplicate key, a merge key, an alias) goes the way of
// MarshalJSON, errors included.
func resourceJSON(r *resource.Resource) ([]byte, error) {
	if n := r.YNode(); n != nil && n.Kind == yaml.MappingNode {
		if v, ok := nodeValue(n, true, false); ok {
			if data, err := json.Marshal(v); err == nil {
				return data, nil
			}
		}
	}
	return printedJSON(r)
}

// printedJSON is resourceJSON by way of the printer: r printed, the text
// parsed with yaml.v3, and the parsed tree decoded.
func printedJSON(r *resource.Resource) ([]byte, error) {
	if n := r.YNode(); n != nil && n.Kind == yaml.MappingNode {
		if text, err := r.RNode.String(); err == nil {
			var doc yaml.Node
			if yaml.Unmarshal([]byte(text), &doc) == nil && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
				if v, ok := nodeValue(doc.Content[0], false, false); ok {
					if data, err := json.Marshal(v); err == nil {
						return data, nil
					}
				}
			}
		}
	}
	return r.MarshalJSON()
}

// nodeValue converts a node to the value yaml.v3 decodes it into as an
// interface{}; false when the node is one resourceJSON leaves to
// MarshalJSON. unprinted is set for a tree that was not printed and parsed
// back, as Flux's objects are: nodeValue then also declines what the
// printer would change, which is not neutral on a string of several lines
// (a folded one with more-indented lines comes back with a blank line
// added, as a CEL expression in the corpus did) nor on a null inside a flow
// collection (it comes back as an empty string). inFlow is whether n is
// inside a flow collection.
func nodeValue(n *yaml.Node, unprinted, inFlow bool) (any, bool) {
	switch n.Kind {
	case yaml.MappingNode:
		inFlow = inFlow || n.Style&yaml.FlowStyle != 0
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" || (unprinted && strings.ContainsAny(k.Value, "\n\r")) {
				return nil, false
			}
			if _, dup := m[k.Value]; dup {
				return nil, false
			}
			v, ok := nodeValue(n.Content[i+1], unprinted, inFlow)
			if !ok {
				return nil, false
			}
			m[k.Value] = v
		}
		return m, true
	case yaml.SequenceNode:
		inFlow = inFlow || n.Style&yaml.FlowStyle != 0
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, ok := nodeValue(c, unprinted, inFlow)
			if !ok {
				return nil, false
			}
			s[i] = v
		}
		return s, true
	case yaml.ScalarNode:
		if unprinted && (strings.ContainsAny(n.Value, "\n\r") || (inFlow && n.ShortTag() == "!!null")) {
			return nil, false
		}
		if n.ShortTag() == "!!str" {
			return n.Value, true
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, false
		}
		return v, true
	default:
		return nil, false
	}
}
