package kbuild

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// parseResources is what kustomize's resource.Factory.SliceFromBytes makes
// of a file, without the step that is the identity on most documents:
// kyaml's reader de-anchors every document it reads (RNode.DeAnchor),
// copying each mapping twice and setting its fields again one by one,
// whether the document holds an anchor or not: two fifths of what a
// listed build allocated. De-anchoring is the identity on a document with
// no anchor, no alias, no merge key and no mapping holding two keys of one
// value (the copy would set the last one's value on the first): such a
// document is not de-anchored; any other is, as kustomize does. A file
// holding a List (which kustomize unwraps) is parsed by kustomize itself.
// TestParseResourcesMatchesKustomize holds the two to the same resources.
func parseResources(rf *resource.Factory, data []byte) ([]*resource.Resource, error) {
	nodes, read, err := readNodes(data)
	if err != nil {
		return nil, err
	}
	if !read {
		return rf.SliceFromBytes(data)
	}
	for _, n := range nodes {
		if anchored(n.YNode()) {
			if err := n.DeAnchor(); err != nil {
				return nil, err
			}
		}
	}
	// What Factory.RNodesFromBytes drops, refuses or unwraps, in its order.
	kept := nodes[:0]
	for _, n := range nodes {
		if n.IsNilOrEmpty() {
			continue
		}
		if _, err := n.GetValidatedMetadata(); err != nil {
			return nil, err
		}
		if nilEntry, path := n.HasNilEntryInList(); nilEntry {
			return nil, &nilEntryError{path: path}
		}
		kept = append(kept, n)
	}
	for _, n := range kept {
		if strings.HasSuffix(n.GetKind(), "List") {
			return rf.SliceFromBytes(data)
		}
	}
	// Validates every object's metadata, as kustomize does; listedBuild
	// takes no file naming a local-config annotation, the one thing it
	// would drop.
	return rf.ResourcesFromRNodes(kept)
}

// documentSeparator is kyaml's reader's: a line that starts with ---.
var documentSeparator = regexp.MustCompile(`\n---.*\n`)

// readNodes reads the documents of a file as kyaml's reader does for
// kustomize's resource factory (kio.FromBytes: no reader annotations),
// without de-anchoring them, and without compiling its separator's regular
// expression again for every file (a tenth of what a listed build
// allocated). It reports false, for kustomize to read the file itself, for
// a file of one List or ResourceList, which that reader unwraps.
func readNodes(data []byte) ([]*yaml.RNode, bool, error) {
	values, err := splitDocuments(strings.ReplaceAll(string(data), "\r\n", "\n"))
	if err != nil {
		return nil, false, err
	}
	var nodes []*yaml.RNode
	for i := range values {
		// The split ate the newline a literal value may end with.
		if i != len(values)-1 {
			values[i] += "\n"
		}
		node := &yaml.Node{}
		if err := yaml.NewDecoder(strings.NewReader(values[i])).Decode(node); err == io.EOF {
			continue
		} else if err != nil {
			return nil, false, err
		}
		n := yaml.NewRNode(node)
		if yaml.IsYNodeEmptyDoc(node) || yaml.IsMissingOrNull(n) {
			continue
		}
		meta, err := n.GetMeta()
		if err != nil && err != yaml.ErrMissingMetadata {
			return nil, false, err
		}
		if len(values) == 1 && (meta.Kind == kio.ResourceListKind || meta.Kind == "List") &&
			(n.Field("items") != nil || n.Field("functionConfig") != nil) {
			return nil, false, nil
		}
		nodes = append(nodes, n)
	}
	return nodes, true, nil
}

// splitDocuments is kyaml's: the documents of a file, split at
// documentSeparator, which only a comment may follow on its line.
func splitDocuments(s string) ([]string, error) {
	docs := make([]string, 0)
	if len(s) == 0 {
		return docs, nil
	}
	prev := 0
	for _, loc := range documentSeparator.FindAllStringIndex(s, -1) {
		rest := strings.TrimSpace(s[loc[0]+4 : loc[1]])
		if len(rest) > 0 && rest[0] != '#' {
			return nil, fmt.Errorf("invalid document separator: %s", strings.TrimSpace(s[loc[0]:loc[1]]))
		}
		docs = append(docs, s[prev:loc[0]])
		prev = loc[1]
	}
	return append(docs, s[prev:]), nil
}

// nilEntryError is kustomize's refusal of a list with an empty item.
type nilEntryError struct{ path string }

func (e *nilEntryError) Error() string { return "empty item at " + e.path }

// anchored reports whether kyaml's DeAnchor may change the tree under n:
// an anchor or an alias anywhere, or a mapping whose keys it may not set
// back as they are (plainKeys).
func anchored(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		return true
	}
	if n.Kind == yaml.MappingNode && !plainKeys(n.Content) {
		return true
	}
	for _, c := range n.Content {
		if anchored(c) {
			return true
		}
	}
	return false
}

// plainKeys reports whether the keys of a mapping (its key and value
// pairs) are such that DeAnchor sets each back on itself: plain scalars,
// neither null nor empty nor a merge key ("<<", which it removes even
// quoted), and no two of one value (it sets a key's value on the first key
// of that value).
func plainKeys(content []*yaml.Node) bool {
	var seen map[string]bool
	if len(content) > 32 {
		seen = make(map[string]bool, len(content)/2)
	}
	for i := 0; i+1 < len(content); i += 2 {
		key := content[i]
		if key.Kind != yaml.ScalarNode || key.Tag == yaml.NodeTagNull || key.Tag == yaml.MergeTag || key.Value == "" || key.Value == "<<" {
			return false
		}
		if seen != nil {
			if seen[key.Value] {
				return false
			}
			seen[key.Value] = true
			continue
		}
		for j := 0; j < i; j += 2 {
			if content[j].Value == key.Value {
				return false
			}
		}
	}
	return true
}
