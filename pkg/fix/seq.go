package fix

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// pair is one key of a new list item and its value; an item is written in
// the order of its pairs, unless the list's last item orders them otherwise.
type pair struct{ key, value string }

// dependsOnItem is the entry for ref: its name, and its namespace when it
// is not t's own, or when every entry of the list names its namespace.
func dependsOnItem(ref Ref, t Target, d *document) []pair {
	item := []pair{{"name", ref.Name}}
	_, seq := lookup(d.spec, "dependsOn")
	all := len(items(seq)) > 0
	for _, it := range items(seq) {
		if k, _ := lookup(it, "namespace"); k == nil {
			all = false
		}
	}
	if ref.Namespace != t.Namespace || all {
		item = append(item, pair{"namespace", ref.Namespace})
	}
	return item
}

// checkItem is the healthChecks entry for c.
func checkItem(c Check) []pair {
	item := []pair{{"apiVersion", c.APIVersion}, {"kind", c.Kind}, {"name", c.Name}}
	if c.Namespace != "" {
		item = append(item, pair{"namespace", c.Namespace})
	}
	return item
}

// appendItem adds item to the list spec.key, creating the list when there
// is none.
func (d *document) appendItem(key string, item []pair) ([]byte, error) {
	keyNode, seq := lookup(d.spec, key)
	switch {
	case keyNode == nil:
		indent := d.spec.Content[0].Column - 1
		return d.text.insertAfter(d.specKey.Line, d.newList(indent, key+":", item)), nil
	case seq.Kind == yaml.AliasNode || seq.Anchor != "":
		return nil, fmt.Errorf("spec.%s is a YAML anchor or alias: an edit would change other documents", key)
	case seq.Kind == yaml.ScalarNode && seq.Tag == "!!null" && seq.Value == "":
		// "key:" with nothing after it: the items go below.
		lines := d.newList(keyNode.Column-1, "", item)
		return d.text.insertAfter(keyNode.Line, lines[1:]), nil
	case seq.Kind != yaml.SequenceNode:
		return nil, fmt.Errorf("spec.%s is not a list", key)
	case seq.Style&yaml.FlowStyle != 0:
		return d.appendFlow(key, seq, item)
	}
	return d.appendBlock(key, seq, item)
}

// newList is the lines of a new block list under a key at indent, as the
// document's other lists are indented.
func (d *document) newList(indent int, head string, item []pair) []string {
	dashOffset, gap := d.listStyle()
	lines := []string{strings.Repeat(" ", indent) + head}
	return append(lines, blockItem(indent+dashOffset, gap, item, nil)...)
}

// listStyle is how the file indents a block list under its key: how far
// right of the key the dash sits (0 for a list level with its key), and
// how far right of the dash the item starts. From the first list of the
// document that says, else of another document of the file; else the
// dash one indentation step of spec right of its key, and the item two
// right of the dash.
func (d *document) listStyle() (dashOffset, gap int) {
	roots := append([]*yaml.Node{d.root}, d.others...)
	for _, root := range roots {
		if dashOffset, gap, ok := d.firstList(root); ok {
			return dashOffset, gap
		}
	}
	return max(d.spec.Content[0].Column-d.specKey.Column, 1), 2
}

// firstList finds the first block list of objects or scalars below n that
// is the value of a key, and how it is indented.
func (d *document) firstList(n *yaml.Node) (dashOffset, gap int, ok bool) {
	if n == nil {
		return 0, 0, false
	}
	for i := range n.Content {
		c := n.Content[i]
		if n.Kind == yaml.MappingNode && i%2 == 1 && c.Kind == yaml.SequenceNode && c.Style&yaml.FlowStyle == 0 && len(c.Content) > 0 {
			if dash, found := d.dashColumn(c.Content[0]); found && dash >= n.Content[i-1].Column && c.Content[0].Column-dash >= 2 {
				return dash - n.Content[i-1].Column, c.Content[0].Column - dash, true
			}
		}
		if dashOffset, gap, ok := d.firstList(c); ok {
			return dashOffset, gap, true
		}
	}
	return 0, 0, false
}

// dashColumn is the column of the dash of a block list item that starts on
// the dash's line.
func (d *document) dashColumn(item *yaml.Node) (int, bool) {
	runes := []rune(d.text.line(item.Line))
	if item.Column-1 > len(runes) {
		return 0, false
	}
	before := strings.TrimRight(string(runes[:item.Column-1]), " ")
	if !strings.HasSuffix(before, "-") || strings.TrimLeft(before, " ") != "-" {
		return 0, false
	}
	return len([]rune(before)), true
}

// appendBlock adds item after the last item of a block list, in its style.
func (d *document) appendBlock(key string, seq *yaml.Node, item []pair) ([]byte, error) {
	last := seq.Content[len(seq.Content)-1]
	if last.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the items of spec.%s are not objects", key)
	}
	dash, ok := d.dashColumn(last)
	if !ok {
		return nil, fmt.Errorf("the last item of spec.%s does not start on its dash's line", key)
	}
	gap := last.Column - dash
	var lines []string
	if last.Style&yaml.FlowStyle != 0 {
		lines = []string{strings.Repeat(" ", dash-1) + "-" + strings.Repeat(" ", gap-1) + flowItem(item, last, d.text)}
	} else {
		lines = blockItem(dash-1, gap, item, last)
	}
	return d.text.insertAfter(d.itemEnd(last, dash), lines), nil
}

// itemEnd is the last line of a list item whose dash is at column dash:
// its deepest node, then every line below indented past the dash (the rest
// of a multi-line value, a comment of the item). Blank lines and comments
// at the dash or left of it are not the item's.
func (d *document) itemEnd(item *yaml.Node, dash int) int {
	end := lastLine(item)
	for n := end + 1; n <= d.text.lines(); n++ {
		switch ind := d.text.indent(n); {
		case ind < 0:
			continue
		case ind > dash-1:
			end = n
			continue
		}
		break
	}
	return end
}

// lastLine is the greatest line of n and the nodes below it.
func lastLine(n *yaml.Node) int {
	line := n.Line
	for _, c := range n.Content {
		line = max(line, lastLine(c))
	}
	return line
}

// blockItem is the lines of a block mapping item: its dash after indent
// spaces, its keys gap columns right of the dash, ordered and quoted as
// like's are (nil for the defaults).
func blockItem(indent, gap int, item []pair, like *yaml.Node) []string {
	item = ordered(item, like)
	lines := make([]string, len(item))
	for i, p := range item {
		prefix := strings.Repeat(" ", indent+gap)
		if i == 0 {
			prefix = strings.Repeat(" ", indent) + "-" + strings.Repeat(" ", gap-1)
		}
		lines[i] = prefix + p.key + ": " + quote(p.value, styleOf(like, p.key))
	}
	return lines
}

// flowItem is item as a flow mapping, spaced inside its braces as like is.
func flowItem(item []pair, like *yaml.Node, t *text) string {
	item = ordered(item, like)
	parts := make([]string, len(item))
	for i, p := range item {
		parts[i] = p.key + ": " + quote(p.value, styleOf(like, p.key))
	}
	open, close := "{", "}"
	if like != nil && like.Kind == yaml.MappingNode {
		if off := t.offset(like.Line, like.Column); off+1 < len(t.src) && t.src[off] == '{' && t.src[off+1] == ' ' {
			open, close = "{ ", " }"
		}
	}
	return open + strings.Join(parts, ", ") + close
}

// ordered sorts item's keys as like orders them; keys like lacks keep
// their order, after the others.
func ordered(item []pair, like *yaml.Node) []pair {
	if like == nil || like.Kind != yaml.MappingNode {
		return item
	}
	rank := func(key string) int {
		for i := 0; i+1 < len(like.Content); i += 2 {
			if like.Content[i].Value == key {
				return i
			}
		}
		return len(like.Content)
	}
	out := slices.Clone(item)
	slices.SortStableFunc(out, func(a, b pair) int { return rank(a.key) - rank(b.key) })
	return out
}

// styleOf is how like quotes key's value: "double", "single" or "".
func styleOf(like *yaml.Node, key string) string {
	_, v := lookup(like, key)
	switch {
	case v == nil:
		return ""
	case v.Style&yaml.DoubleQuotedStyle != 0:
		return "double"
	case v.Style&yaml.SingleQuotedStyle != 0:
		return "single"
	}
	return ""
}

// appendFlow adds item at the end of a flow list: "[a]" to "[a, item]".
func (d *document) appendFlow(key string, seq *yaml.Node, item []pair) ([]byte, error) {
	var last *yaml.Node
	if len(seq.Content) > 0 {
		last = seq.Content[len(seq.Content)-1]
		if last.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("the items of spec.%s are not objects", key)
		}
	}
	src := d.text.src
	open := d.text.offset(seq.Line, seq.Column)
	if open >= len(src) || src[open] != '[' {
		return nil, fmt.Errorf("spec.%s: no [ where the parser put the list", key)
	}
	closing, err := matching(src, open)
	if err != nil {
		return nil, fmt.Errorf("spec.%s: %w", key, err)
	}
	p := closing - 1
	for p > open && strings.ContainsRune(" \t\r\n", rune(src[p])) {
		p--
	}
	entry := flowItem(item, last, d.text)
	switch src[p] {
	case '[':
		return splice(src, p+1, p+1, entry), nil
	case ',':
		return splice(src, p+1, p+1, " "+entry+","), nil
	}
	return splice(src, p+1, p+1, ", "+entry), nil
}

// matching finds the bracket that closes the one at open, past quoted
// strings and comments.
func matching(src []byte, open int) (int, error) {
	depth := 0
	for i := open; i < len(src); i++ {
		switch c := src[i]; {
		case c == '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case c == '\'':
			for i++; i < len(src); i++ {
				if src[i] == '\'' {
					if i+1 < len(src) && src[i+1] == '\'' {
						i++
						continue
					}
					break
				}
			}
		case c == '#' && i > 0 && strings.ContainsRune(" \t\n", rune(src[i-1])):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
			if depth == 0 {
				return i, nil
			}
		}
	}
	return 0, errors.New("the flow list does not close")
}

// setWait sets spec.wait to true: the value of an existing wait: false
// replaced, else a new key at the top of spec.
func (d *document) setWait() ([]byte, error) {
	keyNode, n := lookup(d.spec, "wait")
	if keyNode == nil {
		indent := strings.Repeat(" ", d.spec.Content[0].Column-1)
		return d.text.insertAfter(d.specKey.Line, []string{indent + "wait: true"}), nil
	}
	if n.Kind != yaml.ScalarNode || n.Style != 0 || !strings.EqualFold(n.Value, "false") {
		return nil, fmt.Errorf("spec.wait is %q, not a plain false", n.Value)
	}
	off := d.text.offset(n.Line, n.Column)
	return splice(d.text.src, off, off+len(n.Value), "true"), nil
}
