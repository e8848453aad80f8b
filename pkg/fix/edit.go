package fix

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kubestandup/standup/pkg/audit"
)

// kustomizeGroup is the API group of Flux's Kustomization.
const kustomizeGroup = "kustomize.toolkit.fluxcd.io"

// Target names the Kustomization whose document a change edits.
type Target struct {
	// Line is the line where the document starts in its file (its first
	// key, as render's Manifest.Line says); 0 to find it by Name alone.
	Line int
	// Name and Namespace are the Kustomization's as Flux sees them
	// (rendered): Namespace is where a dependsOn entry without a namespace
	// points.
	Name, Namespace string
}

// String names the target as Kustomization/namespace/name.
func (t Target) String() string { return "Kustomization/" + t.Namespace + "/" + t.Name }

// Ref is a dependsOn entry: the Kustomization depended on.
type Ref struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

// String is namespace/name.
func (r Ref) String() string { return r.Namespace + "/" + r.Name }

// Check is a healthChecks entry: the object the Kustomization waits for,
// named as the audit names the guard it asks for (Hazard.Guard).
type Check = audit.Object

// Change is one edit of a Kustomization's spec: one field is set (none in
// a Skipped that names no edit).
type Change struct {
	// DependsOn adds an entry to spec.dependsOn.
	DependsOn *Ref `json:"dependsOn,omitempty"`
	// HealthCheck adds an entry to spec.healthChecks.
	HealthCheck *Check `json:"healthCheck,omitempty"`
	// Wait sets spec.wait to true.
	Wait bool `json:"wait,omitempty"`
}

// Field is the spec field the change edits: dependsOn, healthChecks, wait.
func (c Change) Field() string {
	switch {
	case c.DependsOn != nil:
		return "dependsOn"
	case c.HealthCheck != nil:
		return "healthChecks"
	case c.Wait:
		return "wait"
	}
	return ""
}

// String words the change as the fix report lists it: "dependsOn
// cert-manager/cert-manager", "healthChecks HelmRelease/network/envoy",
// "wait: true".
func (c Change) String() string {
	switch {
	case c.DependsOn != nil:
		return "dependsOn " + c.DependsOn.String()
	case c.HealthCheck != nil:
		return "healthChecks " + c.HealthCheck.String()
	case c.Wait:
		return "wait: true"
	}
	return ""
}

// Apply makes changes to the document of t in src, and returns the new
// bytes and the changes it made; a change already present is left out of
// both, so applying twice is applying once. Lines it does not edit keep
// their bytes. It returns an error, and src unchanged, when it cannot edit
// the document without rewriting what it should not touch (the error says
// why: a template, flow style, an anchor) or cannot find it.
func Apply(src []byte, t Target, changes []Change) ([]byte, []Change, error) {
	out := src
	var made []Change
	for _, c := range changes {
		if c.Field() == "" {
			return src, nil, fmt.Errorf("%s: an empty change", t)
		}
		next, changed, err := applyOne(out, t, c)
		if err != nil {
			return src, nil, fmt.Errorf("%s: %s: %w", t, c, err)
		}
		if changed {
			made = append(made, c)
			out = next
		}
	}
	return out, made, nil
}

// applyOne makes one change, parsing the file again: a change moves the
// lines of the next.
func applyOne(src []byte, t Target, c Change) ([]byte, bool, error) {
	d, err := locate(src, t)
	if err != nil {
		return nil, false, err
	}
	if present(d, t, c) {
		return src, false, nil
	}
	var out []byte
	switch {
	case c.DependsOn != nil:
		out, err = d.appendItem("dependsOn", dependsOnItem(*c.DependsOn, t, d))
	case c.HealthCheck != nil:
		out, err = d.appendItem("healthChecks", checkItem(*c.HealthCheck))
	default:
		out, err = d.setWait()
	}
	if err != nil {
		return nil, false, err
	}
	// Hold the edit to what it meant: the document parses, and has the change.
	after, err := locate(out, t)
	if err != nil {
		return nil, false, fmt.Errorf("the edited file does not parse (%w): nothing written", err)
	}
	if !present(after, t, c) {
		return nil, false, errors.New("the edit did not take: nothing written")
	}
	return out, true, nil
}

// document is one Kustomization document of a file, found.
type document struct {
	text *text
	// root is the document's top mapping, spec its spec mapping.
	root, specKey, spec *yaml.Node
	// others are the top nodes of the file's other documents.
	others []*yaml.Node
}

// locate finds t's document in src, and refuses one that a template makes
// or whose spec cannot be edited in place.
func locate(src []byte, t Target) (*document, error) {
	docs, err := parseDocuments(src)
	if err != nil {
		return nil, err
	}
	var byName []*yaml.Node
	for _, root := range docs {
		if !isKustomization(root) {
			continue
		}
		if t.Line > 0 && root.Line == t.Line {
			return newDocument(src, root, t, docs)
		}
		if name := scalarAt(root, "metadata", "name"); name == t.Name || strings.Contains(name, "${") {
			byName = append(byName, root)
		}
	}
	switch len(byName) {
	case 0:
		if t.Line > 0 {
			return nil, fmt.Errorf("no Kustomization document starts at line %d", t.Line)
		}
		return nil, errors.New("no Kustomization document of that name")
	case 1:
		return newDocument(src, byName[0], t, docs)
	}
	return nil, fmt.Errorf("%d Kustomization documents could be it", len(byName))
}

// parseDocuments returns the top node of every document of src.
func parseDocuments(src []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var roots []*yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return roots, nil
		}
		if err != nil {
			return nil, fmt.Errorf("parse: %w", err)
		}
		if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
			roots = append(roots, n.Content[0])
		}
	}
}

// newDocument checks that root is t's document and can be edited in place.
func newDocument(src []byte, root *yaml.Node, t Target, all []*yaml.Node) (*document, error) {
	name, namespace := scalarAt(root, "metadata", "name"), scalarAt(root, "metadata", "namespace")
	switch {
	case strings.Contains(name, "$") || strings.Contains(namespace, "$"):
		return nil, fmt.Errorf("its document is a template: its name or namespace is a postBuild variable (%q)", strings.TrimSuffix(namespace+"/"+name, "/"))
	case name == "":
		return nil, errors.New("its document has no metadata.name written as a plain value")
	case !strings.Contains(t.Name, name):
		return nil, fmt.Errorf("the document at line %d is Kustomization %s", root.Line, name)
	}
	if root.Style&yaml.FlowStyle != 0 {
		return nil, errors.New("its document is written in flow style")
	}
	specKey, spec := lookup(root, "spec")
	switch {
	case spec == nil:
		return nil, errors.New("its document has no spec")
	case spec.Kind == yaml.AliasNode || spec.Anchor != "":
		return nil, errors.New("its spec is a YAML anchor or alias: an edit would change other documents")
	case spec.Kind != yaml.MappingNode || spec.Style&yaml.FlowStyle != 0 || len(spec.Content) == 0:
		return nil, errors.New("its spec is not a block mapping")
	}
	for i := 0; i < len(spec.Content); i += 2 {
		if spec.Content[i].Value == "<<" {
			return nil, errors.New("its spec merges a YAML anchor (<<)")
		}
	}
	others := slices.DeleteFunc(slices.Clone(all), func(n *yaml.Node) bool { return n == root })
	return &document{text: newText(src), root: root, specKey: specKey, spec: spec, others: others}, nil
}

func isKustomization(root *yaml.Node) bool {
	group, _, _ := strings.Cut(scalarAt(root, "apiVersion"), "/")
	return root.Kind == yaml.MappingNode && group == kustomizeGroup && scalarAt(root, "kind") == "Kustomization"
}

// lookup returns the key and value nodes of key in mapping m, or nils.
func lookup(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// scalarAt is the scalar at path below m, "" when there is none.
func scalarAt(m *yaml.Node, path ...string) string {
	n := m
	for _, key := range path {
		_, n = lookup(n, key)
	}
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// present reports whether d has the change already.
func present(d *document, t Target, c Change) bool {
	switch {
	case c.DependsOn != nil:
		_, seq := lookup(d.spec, "dependsOn")
		for _, item := range items(seq) {
			ns := scalarAt(item, "namespace")
			if ns == "" {
				ns = t.Namespace
			}
			if scalarAt(item, "name") == c.DependsOn.Name && ns == c.DependsOn.Namespace {
				return true
			}
		}
	case c.HealthCheck != nil:
		_, seq := lookup(d.spec, "healthChecks")
		want := c.HealthCheck
		for _, item := range items(seq) {
			ns := scalarAt(item, "namespace")
			if groupOf(scalarAt(item, "apiVersion")) == groupOf(want.APIVersion) && scalarAt(item, "kind") == want.Kind &&
				scalarAt(item, "name") == want.Name && (ns == want.Namespace || (ns == "" && want.Namespace == t.Namespace)) {
				return true
			}
		}
	default:
		var wait bool
		_, n := lookup(d.spec, "wait")
		return n != nil && n.Decode(&wait) == nil && wait
	}
	return false
}

// items are the items of a sequence node; none for anything else.
func items(seq *yaml.Node) []*yaml.Node {
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	return seq.Content
}

// groupOf is the group of an apiVersion: "" for the core group's "v1".
func groupOf(apiVersion string) string {
	group, _, ok := strings.Cut(apiVersion, "/")
	if !ok {
		return ""
	}
	return group
}
