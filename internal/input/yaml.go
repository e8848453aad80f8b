package input

import (
	"bytes"
	"fmt"
	"math"

	"go.yaml.in/yaml/v3"
)

const (
	// MaxNodes is how many nodes a file may hold, aliases expanded:
	// 1,000,000. kustomize holds about 1.2 KiB per node (a list of 500,000
	// scalars took 623 MiB and 11 s to render), so that a 16 MiB file of
	// "[1,1,1,..." would take 10 GB; manifests hold a node per 10 to 30
	// bytes, so that no file under MaxFileSize but a node-dense one reaches
	// the limit.
	MaxNodes = 1_000_000
	// MaxAliasNodes is how many nodes YAML aliases may add to a file once
	// expanded: 100,000, about 150 MiB in kustomize (an expansion of 59,000
	// nodes peaked at 86 MiB, 531,000 at 975 MiB). Manifests use anchors, when
	// at all, to repeat a block a few times; the alias bomb of nine levels of
	// nine aliases adds 387 million nodes and took 24 GB. yaml.v3's own
	// excessive-aliasing rule does not help: kustomize expands aliases in its
	// node tree, where that rule does not run.
	MaxAliasNodes = 100_000
	// MaxDepth is how deeply a document may nest: 1000 levels. The deepest
	// real manifests, CRDs with recursive OpenAPI schemas, nest about a
	// hundred; every reader of the tree recurses once per level.
	MaxDepth = 1000
	// MaxKeyWork bounds the width of a file's mappings: the sum, over every
	// mapping (aliases expanded), of the square of its key count may not
	// exceed 1e9, one mapping of about 31,600 keys. kustomize (kyaml's
	// DeAnchor) takes time quadratic in a mapping's keys: 10,000 keys cost
	// about a second, 31,600 ten, the 2 million a 16 MiB file can hold would
	// cost days. No object the API server accepts comes near: a ConfigMap
	// holds at most 1 MiB.
	MaxKeyWork = 1_000_000_000
)

// CheckYAML checks that the YAML documents of data stay within MaxNodes,
// MaxAliasNodes, MaxDepth and MaxKeyWork once expanded. name names the file in the
// *LimitError it returns. Data that does not parse as YAML (from the first
// document that does not) is left to the reader to report: CheckYAML
// returns nil for it.
func CheckYAML(name string, data []byte) error {
	if withinLimits(data) {
		return nil
	}
	return scanYAML(name, data)
}

// quickMaxBytes is the size up to which withinLimits may vouch for a file:
// a byte starts at most one mapping key, and a YAML node takes at least half
// a byte, so 15,000 bytes hold at most 30,000 keys (key work at most 9e8)
// and at most about 30,000 nodes.
const quickMaxBytes = 15_000

// withinLimits reports whether data's bytes alone show it within every
// limit of CheckYAML, so that most manifests are not parsed one more time
// before kustomize parses them (the pre-scan was a twentieth of a render).
// Without a '*' it holds no alias, so nothing expands. Every level of
// nesting below a document is a collection that one byte of its own opens
// ('[' or '{', '-' for a block sequence, ':' or '?' for a block mapping's
// first key), so fewer than MaxDepth such bytes bound the depth. Small
// files bound the node count and the key work (quickMaxBytes). Anything
// else is scanned. FuzzCheckYAML holds it to the scan.
func withinLimits(data []byte) bool {
	if len(data) > quickMaxBytes || bytes.IndexByte(data, '*') >= 0 {
		return false
	}
	openers := 0
	for _, c := range data {
		switch c {
		case '[', '{', '-', ':', '?':
			openers++
		}
	}
	return openers < MaxDepth-1
}

// scanYAML is CheckYAML's scan of the parsed documents.
func scanYAML(name string, data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	s := &scan{memo: map[*yaml.Node]summary{}, active: map[*yaml.Node]bool{}}
	var nodes, added, work int64
	for index := 1; ; index++ {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			// io.EOF, or not YAML: no verdict.
			return nil
		}
		fail := func(reason string) error {
			return &LimitError{File: name, Reason: fmt.Sprintf("document %d: %s", index, reason)}
		}
		parsed := s.parsed
		sum, err := s.visit(&doc, 0)
		if err != nil {
			return fail(err.Error())
		}
		nodes = satAdd(nodes, sum.nodes)
		added = satAdd(added, sum.nodes-(s.parsed-parsed))
		work = satAdd(work, sum.work)
		if added > MaxAliasNodes {
			return fail(fmt.Sprintf("YAML aliases expand the file by more than %d nodes (an alias bomb?); write the repeated content out, or remove the aliases", MaxAliasNodes))
		}
		if nodes > MaxNodes {
			return fail(fmt.Sprintf("more than %d YAML nodes in the file; split it into smaller files", MaxNodes))
		}
		if work > MaxKeyWork {
			return fail(fmt.Sprintf("mappings too wide: the widest has %d keys (line %d), and the time kustomize takes grows with the square of a mapping's keys; split it over several objects", s.widest, s.widestLine))
		}
	}
}

// summary measures a node with its aliases expanded.
type summary struct {
	// nodes counts the node and every node under it.
	nodes int64
	// depth counts the levels from the node down, the node included.
	depth int
	// work sums the squared key count of every mapping, the node included.
	work int64
}

// scan measures node trees. Each anchored node is measured once (memo), so
// that the time is linear in the tree however often aliases point at it.
type scan struct {
	memo map[*yaml.Node]summary
	// active holds the anchored nodes being measured: an alias to one of
	// them is an alias inside its own anchor, an infinite expansion.
	active map[*yaml.Node]bool
	// parsed counts the nodes measured, aliases as one node each.
	parsed int64
	// widest is the key count of the widest mapping, at widestLine.
	widest, widestLine int
}

// visit measures n, a node of the tree found level levels down from the top
// of its document. It fails as soon as the expanded depth passes MaxDepth,
// so that its own recursion is bounded too.
func (s *scan) visit(n *yaml.Node, level int) (summary, error) {
	if level > MaxDepth {
		return summary{}, fmt.Errorf("nested deeper than %d levels (line %d); flatten it", MaxDepth, n.Line)
	}
	s.parsed++
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return s.expand(n, level)
	}
	return s.measure(n, level)
}

// expand measures the node an alias stands for: from the memo, since an
// anchor is defined before its aliases, in text order, which is the order
// of the walk.
func (s *scan) expand(alias *yaml.Node, level int) (summary, error) {
	target := alias.Alias
	if s.active[target] {
		return summary{}, fmt.Errorf("alias *%s is inside its own anchor (line %d): its expansion never ends; remove the alias", alias.Value, alias.Line)
	}
	sum, ok := s.memo[target]
	if !ok {
		return s.measure(target, level)
	}
	if level-1+sum.depth > MaxDepth {
		return summary{}, fmt.Errorf("nested deeper than %d levels once alias *%s is expanded (line %d); flatten it", MaxDepth, alias.Value, alias.Line)
	}
	return sum, nil
}

// measure measures n and the nodes under it; an anchored node once.
func (s *scan) measure(n *yaml.Node, level int) (summary, error) {
	if n.Anchor != "" {
		if sum, ok := s.memo[n]; ok {
			return sum, nil
		}
		s.active[n] = true
		defer delete(s.active, n)
	}
	sum := summary{nodes: 1, depth: 1}
	for _, c := range n.Content {
		cs, err := s.visit(c, level+1)
		if err != nil {
			return summary{}, err
		}
		sum.nodes = satAdd(sum.nodes, cs.nodes)
		sum.depth = max(sum.depth, cs.depth+1)
		sum.work = satAdd(sum.work, cs.work)
	}
	if n.Kind == yaml.MappingNode {
		keys := len(n.Content) / 2
		sum.work = satAdd(sum.work, int64(keys)*int64(keys))
		if keys > s.widest {
			s.widest, s.widestLine = keys, n.Line
		}
	}
	if n.Anchor != "" {
		s.memo[n] = sum
	}
	return sum, nil
}

// satAdd adds two non-negative counts, saturating instead of overflowing.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
