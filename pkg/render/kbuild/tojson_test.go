package kbuild

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/provider"
)

// sameJSON checks that resourceJSON agrees with kyaml's MarshalJSON on every
// resource of doc, errors included.
func sameJSON(t *testing.T, doc []byte) {
	t.Helper()
	rf := provider.NewDefaultDepProvider().GetResourceFactory()
	resources, err := rf.SliceFromBytes(doc)
	if err != nil {
		return // kustomize refuses it before collect sees it
	}
	for _, r := range resources {
		want, wantErr := r.MarshalJSON()
		got, err := resourceJSON(r)
		if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("resourceJSON = %s, %v\nMarshalJSON  = %s, %v\nfor %q", got, err, want, wantErr, doc)
		}
	}
}

func TestResourceJSONMatchesMarshalJSON(t *testing.T) {
	head := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
	tests := map[string]string{
		"strings":               head + "data:\n  a: b\n  quoted: \"1\"\n  single: 'true'\n  block: |\n    line\n    ${VAR}\n  folded: >\n    a\n    b\n",
		"numbers":               head + "spec:\n  int: 1\n  neg: -12\n  hex: 0x1F\n  oct: 0o17\n  under: 1_000\n  float: 1.5\n  exp: 1e3\n  big: 123456789012345678901234567890\n",
		"booleans and nulls":    head + "spec:\n  t: true\n  f: False\n  yes: yes\n  n: null\n  tilde: ~\n  empty:\n",
		"tags":                  head + "spec:\n  s: !!str 12\n  i: !!int \"12\"\n  f: !!float 1\n  b: !!binary aGVsbG8=\n  ts: 2001-12-14\n  tts: !!timestamp 2001-12-14t21:59:43.10-05:00\n",
		"nested":                head + "spec:\n  list: [1, a, {b: [c, {d: e}]}]\n  map: {x: {y: {z: 1}}}\n  emptyList: []\n  emptyMap: {}\n",
		"html and unicode":      head + "data:\n  html: <a href=\"x&y\">\n  uni: \"\\u00e9\\U0001F600\"\n",
		"anchors":               head + "data:\n  a: &a v\n  b: *a\nspec:\n  base: &m {x: 1}\n  over:\n    <<: *m\n    y: 2\n",
		"non-string key":        head + "spec:\n  m:\n    1: a\n    true: b\n",
		"top-level int key":     head + "1: a\n",
		"duplicate key":         head + "data:\n  a: b\n  a: c\n",
		"infinity":              head + "spec:\n  inf: .inf\n  nan: .nan\n",
		"invalid int tag":       head + "spec:\n  i: !!int abc\n",
		"custom tag":            head + "spec:\n  c: !custom x\n",
		"long strings":          head + "data:\n  long: " + strings.Repeat("x", 5000) + "\n",
		"folded, more indented": head + "spec:\n  expression: >-\n    object.spec.containers.exists(c,\n      c.image.startsWith(\"docker.io/\")\n    )\n  after: x\n",
		"null in flow":          head + "spec:\n  m: {a: null, b: ~, c: }\n  s: [null, 1]\n",
		"carriage return":       head + "data:\n  crlf: \"a\\r\\nb\"\n",
	}
	for name, doc := range tests {
		t.Run(name, func(t *testing.T) { sameJSON(t, []byte(doc)) })
	}
}

// resourceJSON is linear where MarshalJSON is quadratic: a ConfigMap of
// many keys. Correctness only here; BenchmarkRenderLargeConfigMap times it.
func TestResourceJSONManyKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "  key-%d: \"value %d\"\n", i, i)
	}
	sameJSON(t, []byte(b.String()))
}

func FuzzResourceJSON(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b, c: 1, d: [1, 2.5, true, null]}\n"))
	f.Add([]byte("apiVersion: v1\nkind: X\nmetadata: {name: x}\nspec: {a: &a {b: 0x1F}, c: {<<: *a, d: !!binary aGk=}}\n"))
	f.Add([]byte("apiVersion: v1\nkind: X\nmetadata: {name: x}\nspec: {1: a, ts: 2001-12-14, f: !!float 1, s: !!str 2}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		sameJSON(t, data)
	})
}
