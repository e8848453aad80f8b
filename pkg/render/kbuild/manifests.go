package kbuild

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// Document is one YAML document of a manifest file.
type Document struct {
	// Index is the 1-based position of the document in its file, counting
	// every document between `---` separators, including comment-only ones.
	Index int
	// Object is the decoded document, or nil when the document holds only
	// comments or an explicit null.
	Object *unstructured.Unstructured
}

// MalformedError reports a manifest document that cannot be read: a YAML
// syntax error, or a document that is not a mapping.
type MalformedError struct {
	// File is the file, relative to the repository root; empty when the
	// bytes did not come from a file.
	File string
	// Index is the 1-based index of the offending document in the file.
	Index int
	// Err is the decoding error.
	Err error
}

// Error renders the error as `file: document N: cause`.
func (e *MalformedError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("document %d: %v", e.Index, e.Err)
	}
	return fmt.Sprintf("%s: document %d: %v", e.File, e.Index, e.Err)
}

// Unwrap returns the decoding error.
func (e *MalformedError) Unwrap() error { return e.Err }

// errNotMapping is the cause of a MalformedError for a document that parses
// as YAML but is a scalar or a sequence rather than an object.
var errNotMapping = errors.New("document is not a YAML mapping")

// ReadManifests splits data into YAML documents and decodes each one. It
// checks YAML syntax (duplicate keys included, which kustomize rejects too)
// and that every document is a mapping (or empty); it does
// not require apiVersion or kind, so it also accepts values files read by
// generators. The first malformed document ends the read with a
// *MalformedError whose File is empty.
func ReadManifests(data []byte) ([]Document, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs []Document
	for index := 1; ; index++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, &MalformedError{Index: index, Err: err}
		}
		obj, err := decodeDocument(raw)
		if err != nil {
			return nil, &MalformedError{Index: index, Err: err}
		}
		docs = append(docs, Document{Index: index, Object: obj})
	}
}

// decodeDocument decodes one YAML document into an object, nil for an empty one.
func decodeDocument(raw []byte) (*unstructured.Unstructured, error) {
	var value any
	if err := sigsyaml.UnmarshalStrict(raw, &value); err != nil {
		return nil, err
	}
	switch v := value.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return &unstructured.Unstructured{Object: v}, nil
	case []any:
		return nil, fmt.Errorf("%w (found a sequence)", errNotMapping)
	default:
		return nil, fmt.Errorf("%w (found a scalar)", errNotMapping)
	}
}
