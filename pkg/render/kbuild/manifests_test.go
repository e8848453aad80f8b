package kbuild

import (
	"errors"
	"strings"
	"testing"
)

func TestReadManifests(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		want      []string // per document: the object name, or "-" for an empty document
		wantIndex int      // index of the malformed document; 0 when none
		wantErr   string
	}{
		{name: "empty", data: "", want: nil},
		{name: "one", data: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n", want: []string{"a"}},
		{name: "leading separator", data: "---\nmetadata:\n  name: a\n---\nmetadata:\n  name: b\n", want: []string{"a", "b"}},
		{name: "comment-only document counts", data: "metadata:\n  name: a\n---\n# nothing here\n---\nmetadata:\n  name: c\n", want: []string{"a", "-", "c"}},
		{name: "explicit null", data: "null\n---\nmetadata:\n  name: b\n", want: []string{"-", "b"}},
		{name: "json", data: `{"metadata": {"name": "j"}}`, want: []string{"j"}},
		{name: "syntax error", data: "metadata:\n  name: a\n---\nmetadata: [unclosed\n", wantIndex: 2, wantErr: "document 2: "},
		{name: "sequence", data: "- a\n- b\n", wantIndex: 1, wantErr: "document 1: document is not a YAML mapping (found a sequence)"},
		{name: "scalar", data: "metadata:\n  name: a\n---\njust text\n", wantIndex: 2, wantErr: "(found a scalar)"},
		{name: "duplicate key", data: "a: 1\na: 2\n", wantIndex: 1, wantErr: "document 1: "},
		{name: "tab indentation", data: "metadata:\n\tname: a\n", wantIndex: 1, wantErr: "document 1: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := ReadManifests([]byte(tt.data))
			if tt.wantErr != "" {
				var malformed *MalformedError
				if !errors.As(err, &malformed) {
					t.Fatalf("error %v, want a *MalformedError", err)
				}
				if malformed.Index != tt.wantIndex || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %q (document %d), want document %d and %q", err, malformed.Index, tt.wantIndex, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, d := range docs {
				if d.Index != i+1 {
					t.Errorf("document %d has index %d", i+1, d.Index)
				}
				if d.Object == nil {
					got = append(got, "-")
					continue
				}
				got = append(got, d.Object.GetName())
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("documents %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMalformedErrorMessage(t *testing.T) {
	err := &MalformedError{File: "apps/x.yaml", Index: 2, Err: errNotMapping}
	if got, want := err.Error(), "apps/x.yaml: document 2: document is not a YAML mapping"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !errors.Is(err, errNotMapping) {
		t.Error("MalformedError does not unwrap to its cause")
	}
}

// FuzzReadManifests checks that the manifest reader never panics, and that
// what it returns is consistent: increasing 1-based indexes, and errors that
// name a document.
func FuzzReadManifests(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n# c\n---\n- x\n"))
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := ReadManifests(data)
		if err != nil {
			var malformed *MalformedError
			if !errors.As(err, &malformed) || malformed.Index < 1 {
				t.Fatalf("error %v is not a *MalformedError with an index", err)
			}
			return
		}
		last := 0
		for _, d := range docs {
			if d.Index <= last {
				t.Fatalf("index %d after %d", d.Index, last)
			}
			last = d.Index
			if d.Object != nil && d.Object.Object == nil {
				t.Fatal("document with a nil object map")
			}
		}
	})
}
