package operator

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/template"

	sprig "github.com/go-task/slim-sprig/v3"
	"github.com/gosimple/slug"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	yamlutil "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// slugOnce sets slug's package settings as the Operator's builder does at
// its start: at most 63 characters (a label value), cut between words.
var slugOnce sync.Once

func slugify(s string) string {
	slugOnce.Do(func() {
		slug.MaxLength = 63
		slug.EnableSmartTruncate = true
	})
	return slug.Make(s)
}

// newTemplate parses text as the Operator's builder does (internal/builder
// resourceset.go, newTemplate): << >> delimiters, slim-sprig's hermetic
// functions, slugify, toYaml and mustToYaml, inputs returning the input
// set, and missingkey=error.
func newTemplate(text string, inputs map[string]any) (*template.Template, error) {
	return template.New("resourceset").
		Delims("<<", ">>").
		Funcs(sprig.HermeticTxtFuncMap()).
		Funcs(template.FuncMap{"slugify": slugify}).
		Funcs(template.FuncMap{"inputs": func() any { return inputs }}).
		Funcs(template.FuncMap{"toYaml": toYaml, "mustToYaml": mustToYaml}).
		Option("missingkey=error").
		Parse(text)
}

// execute parses and runs text with inputs.
func execute(text string, inputs map[string]any) (string, error) {
	t, err := newTemplate(text, inputs)
	if err != nil {
		return "", fmt.Errorf("failed to parse template: %w", err)
	}
	var b strings.Builder
	if err := t.Execute(&b, nil); err != nil {
		return "", fmt.Errorf("failed to execute template: %w", err)
	}
	return b.String(), nil
}

// toYaml encodes v as YAML, or "" when it cannot.
func toYaml(v any) string {
	s, _ := mustToYaml(v)
	return s
}

// mustToYaml encodes v as YAML.
func mustToYaml(v any) (string, error) {
	b, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// buildResource builds one object from an entry of spec.resources (JSON):
// turned into YAML, executed, and read back as one object (BuildResource).
func buildResource(raw []byte, inputs map[string]any) (*unstructured.Unstructured, error) {
	text, err := yaml.JSONToYAML(raw)
	if err != nil {
		return nil, fmt.Errorf("failed to convert template to YAML: %w", err)
	}
	out, err := execute(string(text), inputs)
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{}
	if err := yamlutil.NewYAMLOrJSONDecoder(strings.NewReader(out), 2048).Decode(obj); err != nil {
		return nil, fmt.Errorf("failed to read object: %w", err)
	}
	return obj, nil
}

// buildTemplate builds the objects of spec.resourcesTemplate, a
// multi-document YAML template (BuildResourcesFromYAML).
func buildTemplate(text string, inputs map[string]any) ([]*unstructured.Unstructured, error) {
	out, err := execute(text, inputs)
	if err != nil {
		return nil, fmt.Errorf("multi-doc YAML template: %w", err)
	}
	objs, err := readObjects(out)
	if err != nil {
		return nil, fmt.Errorf("failed to read objects from multi-doc YAML: %w", err)
	}
	return objs, nil
}

// readObjects reads the documents of text as fluxcd/pkg/ssa's
// utils.ReadObjects does: a List gives its items, and a document without
// apiVersion, kind or name, or that is a kustomize Kustomization, is
// dropped.
func readObjects(text string) ([]*unstructured.Unstructured, error) {
	dec := yamlutil.NewYAMLOrJSONDecoder(bytes.NewReader([]byte(text)), 2048)
	var objs []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(obj); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return objs, err
		}
		if obj.IsList() {
			list, err := obj.ToList()
			if err != nil {
				return objs, err
			}
			for i := range list.Items {
				objs = append(objs, &list.Items[i])
			}
			continue
		}
		if obj.GetName() == "" || obj.GetKind() == "" || obj.GetAPIVersion() == "" {
			continue
		}
		if strings.ToLower(obj.GetKind()) == "kustomization" && strings.HasPrefix(obj.GetAPIVersion(), "kustomize.config.k8s.io/") {
			continue
		}
		objs = append(objs, obj)
	}
}
