package crds

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/yaml"

	"github.com/kubestandup/standup/internal/input"
)

// BundleEntry is one CRD of a bundle and where it was read from.
type BundleEntry struct {
	CRD *apiextensionsv1.CustomResourceDefinition
	// File is the path of the file that holds the CRD, as LoadBundle found it
	// (the bundle directory joined with the file's relative path).
	File string
	// Document is the 1-based index of the CRD among the file's non-empty documents.
	Document int
}

// GroupKind returns the group and kind the CRD defines.
func (e BundleEntry) GroupKind() schema.GroupKind {
	return schema.GroupKind{Group: e.CRD.Spec.Group, Kind: e.CRD.Spec.Names.Kind}
}

// Bundle is a set of CRD manifests indexed by group and kind: the CRDs that
// standup may pre-apply when a Kustomization is deadlocked on a missing kind.
type Bundle struct {
	byGK map[schema.GroupKind]BundleEntry
}

// LoadBundle reads every *.yaml, *.yml and *.json file under dir, recursively,
// skipping hidden files and directories and kustomize's own kustomization
// files (kustomization.yaml, kustomization.yml, Kustomization). Each document
// must be an apiextensions.k8s.io/v1 CustomResourceDefinition; empty
// documents are skipped. Every problem found is reported, one per line, each
// naming the file and the document; a bundle with any problem is not returned.
// Files are read bounded (internal/input): a named pipe, a file over 16 MiB
// or an alias bomb is one of those lines, naming the file.
func LoadBundle(dir string) (*Bundle, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("crd bundle %s: %w", dir, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("crd bundle %s: not a directory", dir)
	}
	var entries []BundleEntry
	var errs []error
	walkErr := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !isManifestFile(d.Name()) {
			return nil
		}
		data, _, err := input.ReadBounded(path)
		if lim, ok := input.IsLimit(err); ok {
			errs = append(errs, lim)
			return nil
		}
		if err != nil {
			return err
		}
		es, err := DecodeBundleFile(path, data)
		if err != nil {
			errs = append(errs, err)
		}
		entries = append(entries, es...)
		return nil
	})
	if walkErr != nil {
		return nil, fmt.Errorf("crd bundle %s: %w", dir, walkErr)
	}
	b, err := NewBundle(entries)
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return b, nil
}

// isManifestFile reports whether a file name is one LoadBundle reads.
func isManifestFile(name string) bool {
	if slices.Contains(konfig.RecognizedKustomizationFileNames(), name) {
		return false
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// DecodeBundleFile decodes the documents of one bundle file. name is used in
// errors only. It returns the CRDs that decoded, and an error (one line per
// bad document, each naming the file and the 1-based document index) when
// any document is not a well-formed apiextensions.k8s.io/v1
// CustomResourceDefinition. Documents holding only whitespace, comments or
// null are skipped and not counted. YAML that would explode once decoded
// (input.CheckYAML: an alias bomb, extreme nesting) is refused whole, with
// one *input.LimitError.
func DecodeBundleFile(name string, data []byte) ([]BundleEntry, error) {
	if err := input.CheckYAML(name, data); err != nil {
		return nil, err
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var entries []BundleEntry
	var errs []error
	index := 0
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: document %d: %w", name, index+1, err))
			break
		}
		empty, err := isEmptyDocument(doc)
		if err == nil && empty {
			continue
		}
		index++
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: document %d: invalid YAML: %w; fix the file or remove it from the CRD bundle", name, index, err))
			continue
		}
		crd, err := decodeCRD(doc)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: document %d: %w", name, index, err))
			continue
		}
		entries = append(entries, BundleEntry{CRD: crd, File: name, Document: index})
	}
	return entries, errors.Join(errs...)
}

// isEmptyDocument reports whether a document holds no object at all.
func isEmptyDocument(doc []byte) (bool, error) {
	var v any
	if err := yaml.Unmarshal(doc, &v); err != nil {
		return false, err
	}
	return v == nil, nil
}

// typeMeta is what a document must declare before it is decoded as a CRD.
type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// decodeCRD decodes one non-empty document strictly (unknown or duplicate
// fields are errors) and checks what the API server would reject outright.
func decodeCRD(doc []byte) (*apiextensionsv1.CustomResourceDefinition, error) {
	var tm typeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return nil, fmt.Errorf("not an object: %w; remove it from the CRD bundle", err)
	}
	want := apiextensionsv1.SchemeGroupVersion.String()
	if tm.Kind != "CustomResourceDefinition" || tm.APIVersion != want {
		what := "kind " + tm.Kind
		if tm.Kind == "" {
			what = "a document without a kind"
		}
		if tm.Kind == "CustomResourceDefinition" {
			what = "apiVersion " + tm.APIVersion
		}
		return nil, fmt.Errorf("%s is not an %s CustomResourceDefinition; remove it from the CRD bundle", what, want)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(doc, crd); err != nil {
		return nil, fmt.Errorf("malformed CustomResourceDefinition: %w", err)
	}
	if err := validateCRD(crd); err != nil {
		return nil, fmt.Errorf("malformed CustomResourceDefinition %q: %w", crd.Name, err)
	}
	return crd, nil
}

// validateCRD checks the fields standup relies on and the API server requires.
func validateCRD(crd *apiextensionsv1.CustomResourceDefinition) error {
	s := crd.Spec
	var problems []string
	if s.Group == "" {
		problems = append(problems, "spec.group is empty")
	}
	if s.Names.Kind == "" {
		problems = append(problems, "spec.names.kind is empty")
	}
	if s.Names.Plural == "" {
		problems = append(problems, "spec.names.plural is empty")
	}
	if s.Group != "" && s.Names.Plural != "" && crd.Name != s.Names.Plural+"."+s.Group {
		problems = append(problems, fmt.Sprintf("metadata.name must be %s.%s", s.Names.Plural, s.Group))
	}
	if s.Scope != apiextensionsv1.NamespaceScoped && s.Scope != apiextensionsv1.ClusterScoped {
		problems = append(problems, fmt.Sprintf("spec.scope must be %s or %s", apiextensionsv1.NamespaceScoped, apiextensionsv1.ClusterScoped))
	}
	problems = append(problems, validateVersions(s.Versions)...)
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, ", "))
	}
	return nil
}

// validateVersions checks spec.versions: at least one, named, unique, one storage version.
func validateVersions(versions []apiextensionsv1.CustomResourceDefinitionVersion) []string {
	if len(versions) == 0 {
		return []string{"spec.versions is empty"}
	}
	var problems []string
	storage := 0
	seen := map[string]bool{}
	for i, v := range versions {
		switch {
		case v.Name == "":
			problems = append(problems, fmt.Sprintf("spec.versions[%d].name is empty", i))
		case seen[v.Name]:
			problems = append(problems, fmt.Sprintf("spec.versions[%d].name %s is duplicated", i, v.Name))
		}
		seen[v.Name] = true
		if v.Storage {
			storage++
		}
	}
	if storage != 1 {
		problems = append(problems, fmt.Sprintf("exactly one version must be the storage version, found %d", storage))
	}
	return problems
}

// NewBundle indexes decoded entries by group and kind. Two entries for the
// same group and kind, or with the same CRD name, are an error naming both
// files.
func NewBundle(entries []BundleEntry) (*Bundle, error) {
	b := &Bundle{byGK: make(map[schema.GroupKind]BundleEntry, len(entries))}
	byName := make(map[string]BundleEntry, len(entries))
	var errs []error
	for _, e := range entries {
		gk := e.GroupKind()
		prev, dup := b.byGK[gk]
		what := gk.String()
		if !dup {
			prev, dup = byName[e.CRD.Name]
			what = "CustomResourceDefinition " + e.CRD.Name
		}
		if dup {
			errs = append(errs, fmt.Errorf("%s: document %d: %s is also defined in %s (document %d); keep one of them in the CRD bundle",
				e.File, e.Document, what, prev.File, prev.Document))
			continue
		}
		b.byGK[gk] = e
		byName[e.CRD.Name] = e
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return b, nil
}

// Lookup returns the bundle's CRD for a group and kind, and the file it came from.
func (b *Bundle) Lookup(group, kind string) (*apiextensionsv1.CustomResourceDefinition, string, bool) {
	if b == nil {
		return nil, "", false
	}
	e, ok := b.byGK[schema.GroupKind{Group: group, Kind: kind}]
	return e.CRD, e.File, ok
}

// LookupKind returns every bundle entry whose kind is kind, in any group,
// sorted by CRD name. It serves failures whose group the message did not name.
func (b *Bundle) LookupKind(kind string) []BundleEntry {
	var out []BundleEntry
	for _, e := range b.All() {
		if e.CRD.Spec.Names.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// All returns every entry sorted by CRD name.
func (b *Bundle) All() []BundleEntry {
	if b == nil {
		return nil
	}
	out := make([]BundleEntry, 0, len(b.byGK))
	for _, e := range b.byGK {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CRD.Name < out[j].CRD.Name })
	return out
}

// Len returns the number of CRDs in the bundle.
func (b *Bundle) Len() int {
	if b == nil {
		return 0
	}
	return len(b.byGK)
}
