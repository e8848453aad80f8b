package render

import (
	"encoding/json"
	"strings"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/resource"
)

// resourceJSON returns what r.MarshalJSON returns, in time linear in the
// object. kyaml's MarshalJSON prints the node tree and decodes the text with
// yaml.v3, whose duplicate-key check is quadratic in a mapping's keys: a
// ConfigMap of 20,000 keys took seconds. Where printing is neutral
// (printNeutral), resourceJSON decodes the tree itself, each scalar with
// yaml.v3, so that values resolve exactly as they do there; printing and
// parsing back was a tenth of a large render's CPU. Elsewhere it prints and
// parses the same way (printedJSON). Anything unusual (a key that is not a
// string, a duplicate key, a merge key, an alias) goes the way of
// MarshalJSON, errors included.
func resourceJSON(r *resource.Resource) ([]byte, error) {
	if n := r.YNode(); n != nil && n.Kind == yaml.MappingNode && printNeutral(n, false) {
		if v, ok := nodeValue(n); ok {
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
				if v, ok := nodeValue(doc.Content[0]); ok {
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
// MarshalJSON.
func nodeValue(n *yaml.Node) (any, bool) {
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
				return nil, false
			}
			if _, dup := m[k.Value]; dup {
				return nil, false
			}
			v, ok := nodeValue(n.Content[i+1])
			if !ok {
				return nil, false
			}
			m[k.Value] = v
		}
		return m, true
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, ok := nodeValue(c)
			if !ok {
				return nil, false
			}
			s[i] = v
		}
		return s, true
	case yaml.ScalarNode:
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

// printNeutral reports whether printing n and parsing the text back gives
// values equal to n's own. yaml.v3's printer is not neutral on a string of
// several lines (a plain one folded over lines comes back with a blank
// line added where it folds, as a CEL expression in the corpus did) nor on
// a null inside a flow collection (it comes back as an empty string). Flux
// decodes what was printed, so those go the way of the printer.
func printNeutral(n *yaml.Node, inFlow bool) bool {
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode:
		inFlow = inFlow || n.Style&yaml.FlowStyle != 0
		for _, c := range n.Content {
			if !printNeutral(c, inFlow) {
				return false
			}
		}
		return true
	case yaml.ScalarNode:
		return !strings.ContainsAny(n.Value, "\n\r") && (!inFlow || n.ShortTag() != "!!null")
	default:
		return false
	}
}
