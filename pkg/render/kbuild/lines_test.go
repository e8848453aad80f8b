package kbuild

import (
	"testing"
)

func TestObjectLine(t *testing.T) {
	tests := []struct {
		name, file               string
		kind, namespace, objName string
		want                     int
	}{
		{name: "only document, whatever it says", file: "a: b\n", kind: "ConfigMap", objName: "x", want: 1},
		{name: "byte order mark and CRLF", file: "\xef\xbb\xbfkind: A\r\nmetadata:\r\n  name: x\r\n---\r\nkind: A\r\nmetadata:\r\n  name: y\r\n", kind: "A", objName: "y", want: 5},
		{name: "quoted values and comments", file: "kind: 'A' # the kind\nmetadata:\n  name: \"x\" # a name\n---\nkind: A\nmetadata:\n  name: xx\n", kind: "A", objName: "pre-x", want: 1},
		{name: "an anchor on the name", file: "kind: A\nmetadata:\n  name: &n x\n---\nkind: A\nmetadata:\n  name: &n y\n", kind: "A", objName: "y", want: 5},
		{name: "an alias for the name", file: "kind: A\nmetadata:\n  name: x\n---\nx: &n web\nkind: A\nmetadata:\n  name: *n\n", kind: "A", objName: "web", want: 5},
		{name: "the longest name wins", file: "kind: A\nmetadata:\n  name: x\n---\nkind: A\nmetadata:\n  name: xx\n", kind: "A", objName: "pre-xx", want: 5},
		{name: "nested name is not metadata.name", file: "kind: A\nmetadata:\n  labels:\n    name: y\n  name: x\n---\nkind: A\nmetadata:\n  name: z\n", kind: "A", objName: "y", want: 0},
		{name: "no document of the kind matches", file: "kind: A\nmetadata:\n  name: x\n---\nkind: A\nmetadata:\n  name: y\n", kind: "A", objName: "z", want: 0},
		{name: "document end marker is not a separator", file: "kind: A\nmetadata:\n  name: x\n---x\n---\nkind: B\nmetadata:\n  name: y\n", kind: "B", objName: "y", want: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := indexLines([]byte(tt.file)).objectLine(tt.kind, tt.namespace, tt.objName); got != tt.want {
				t.Errorf("line %d, want %d", got, tt.want)
			}
		})
	}
}
