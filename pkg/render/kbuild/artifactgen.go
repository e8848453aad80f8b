package kbuild

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fluxcd/pkg/apis/kustomize"
	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resource"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// generateKustomization does what fluxcd/pkg/kustomize's
// Generator.GenerateManifest (v1.35) does for dir, on fs instead of the
// disk, which that generator cannot be given: it takes dir's kustomization
// file, or lists the manifests under dir when there is none, and applies
// the spec of the Flux Kustomization ks (targetNamespace, namePrefix,
// nameSuffix, patches, components, patchesStrategicMerge, patchesJson6902,
// images, buildMetadata). TestGenerateKustomizationMatchesFlux holds the two
// to the same output.
//
// Flux parses every manifest it lists, to fail the generation on one that
// is not Kubernetes YAML. Unless validate is set, the manifests are listed
// without it: kustomize parses each listed file the same way
// (resource.Factory.SliceFromBytes), so a build that succeeds had none, and
// the caller of a build that fails generates again with validate, to fail
// as Flux does. scan lists the manifests of a directory (scanManifests, or
// what the builder remembers of it).
func generateKustomization(fs filesys.FileSystem, ks map[string]any, dir string, validate bool, scan scanFunc) (*fluxKfile, error) {
	gen, err := findOrGenerateKustomization(fs, dir, validate, scan)
	if err != nil {
		return nil, err
	}
	if gen.listed && !setsAny(ks, specFields) {
		// The generated file is already what the generator's round trip
		// through the struct would print.
		return gen, nil
	}
	data, err := gen.bytes()
	if err != nil {
		return gen, err
	}
	out, err := applySpec(fs, ks, dir, data, gen.listed)
	return &fluxKfile{path: gen.path, listed: gen.listed, data: out}, err
}

// fluxKfile is the kustomization file Flux's generator makes for a
// directory: its bytes as kustomize reads them, or, for a file that lists
// the manifests of the directory and nothing else, that listing, printed
// only when kustomize is to read it. A listed build reads the listing:
// printing it and parsing it back (through JSON both ways) was a tenth of
// a render of thousands of one-file directories.
type fluxKfile struct {
	// path is the file's path; listed, whether it lists the manifests of
	// the directory (the directory has no kustomization file of its own).
	path   string
	listed bool
	// data is the file; nil for a listing, which listing holds.
	data    []byte
	listing *kustypes.Kustomization
}

// bytes returns the file as kustomize reads it.
func (g *fluxKfile) bytes() ([]byte, error) {
	if g.data != nil {
		return g.data, nil
	}
	return yaml.Marshal(g.listing)
}

// parse returns the file parsed, and a key that tells its content apart
// from any other's (the file, or the listing's JSON).
func (g *fluxKfile) parse() (kustypes.Kustomization, string, error) {
	var kus kustypes.Kustomization
	if g.data == nil {
		kus = *g.listing
		kus.Resources = slices.Clone(kus.Resources)
		key, err := json.Marshal(g.listing)
		return kus, "listing\x00" + string(key), err
	}
	err := yaml.Unmarshal(g.data, &kus)
	return kus, string(g.data), err
}

// scanFunc lists the manifests under a directory, as scanManifests does.
type scanFunc func(fs filesys.FileSystem, base string, validate bool) ([]string, error)

// applySpec applies the spec of ks to the kustomization file data of dir.
func applySpec(fs filesys.FileSystem, ks map[string]any, dir string, data []byte, created bool) ([]byte, error) {
	kus := kustypes.Kustomization{TypeMeta: kustypes.TypeMeta{APIVersion: kustypes.KustomizationVersion, Kind: kustypes.KustomizationKind}}
	if err := yaml.Unmarshal(data, &kus); err != nil {
		return nil, err
	}
	if !created && len(kus.Resources) == 0 {
		// Flux's way around kustomize's "kustomization.yaml is empty".
		kus.BuildMetadata = []string{kustypes.OriginAnnotations}
	}
	for field, set := range map[string]*string{"targetNamespace": &kus.Namespace, "namePrefix": &kus.NamePrefix, "nameSuffix": &kus.NameSuffix} {
		v, ok, err := unstructured.NestedString(ks, "spec", field)
		if err != nil {
			return nil, err
		}
		if ok {
			*set = v
		}
	}
	if err := applySpecLists(&kus, fs, ks, dir); err != nil {
		return nil, err
	}
	return yaml.Marshal(kus)
}

// specFields are the fields of a Kustomization's spec that the generator
// writes into the kustomization file.
var specFields = []string{"targetNamespace", "namePrefix", "nameSuffix", "patches", "components",
	"patchesStrategicMerge", "patchesJson6902", "images", "buildMetadata"}

// setsAny reports whether the spec of ks holds any of fields.
func setsAny(ks map[string]any, fields []string) bool {
	spec, _ := ks["spec"].(map[string]any)
	for _, f := range fields {
		if _, ok := spec[f]; ok {
			return true
		}
	}
	return false
}

// applySpecLists appends the patches, components and images of ks to kus,
// and replaces its buildMetadata, as the generator does.
func applySpecLists(kus *kustypes.Kustomization, fs filesys.FileSystem, ks map[string]any, dir string) error {
	var patches []kustomize.Patch
	if err := specList(ks, "patches", &patches); err != nil {
		return fmt.Errorf("unable to get patches: %w", err)
	}
	for _, p := range patches {
		kus.Patches = append(kus.Patches, kustypes.Patch{Patch: p.Patch, Target: adaptSelector(p.Target)})
	}
	components, _, err := unstructured.NestedStringSlice(ks, "spec", "components")
	if err != nil {
		return fmt.Errorf("unable to get components: %w", err)
	}
	ignoreMissing, _, _ := unstructured.NestedBool(ks, "spec", "ignoreMissingComponents")
	for _, c := range components {
		if !fluxkustomize.IsLocalRelativePath(c) {
			return fmt.Errorf("component path '%s' must be local and relative", c)
		}
		if ignoreMissing && !fs.Exists(filepath.Join(dir, c)) {
			continue
		}
		kus.Components = append(kus.Components, c)
	}
	var patchesSM []apiextensionsv1.JSON
	if err := specList(ks, "patchesStrategicMerge", &patchesSM); err != nil {
		return fmt.Errorf("unable to get patchesStrategicMerge: %w", err)
	}
	for _, p := range patchesSM {
		kus.PatchesStrategicMerge = append(kus.PatchesStrategicMerge, kustypes.PatchStrategicMerge(p.Raw))
	}
	var patchesJSON []kustomize.JSON6902Patch
	if err := specList(ks, "patchesJson6902", &patchesJSON); err != nil {
		return fmt.Errorf("unable to get patchesJson6902: %w", err)
	}
	for _, p := range patchesJSON {
		patch, err := json.Marshal(p.Patch)
		if err != nil {
			return err
		}
		kus.PatchesJson6902 = append(kus.PatchesJson6902, kustypes.Patch{Patch: string(patch), Target: adaptSelector(&p.Target)})
	}
	var images []kustomize.Image
	if err := specList(ks, "images", &images); err != nil {
		return fmt.Errorf("unable to get images: %w", err)
	}
	for _, image := range images {
		mergeImage(kus, image)
	}
	buildMetadata, _, err := unstructured.NestedStringSlice(ks, "spec", "buildMetadata")
	if err != nil {
		return fmt.Errorf("unable to get buildMetadata: %w", err)
	}
	if len(buildMetadata) > 0 {
		kus.BuildMetadata = buildMetadata
	}
	return nil
}

// mergeImage merges an image of the spec into the kustomization's entry
// of that name, where there is one: a new name replaces the name, and a
// tag or digest replaces both (as kustomize's image transformer does).
func mergeImage(kus *kustypes.Kustomization, image kustomize.Image) {
	for i := range kus.Images {
		if kus.Images[i].Name != image.Name {
			continue
		}
		if image.NewName != "" {
			kus.Images[i].NewName = image.NewName
		}
		if image.NewTag != "" || image.Digest != "" {
			kus.Images[i].NewTag, kus.Images[i].Digest = image.NewTag, image.Digest
		}
		return
	}
	kus.Images = append(kus.Images, kustypes.Image{Name: image.Name, NewName: image.NewName, NewTag: image.NewTag, Digest: image.Digest})
}

// specList decodes the list spec.field of ks into out (a pointer to a
// slice), each entry converted on its own as the generator does.
func specList[T any](ks map[string]any, field string, out *[]T) error {
	entries, ok, err := unstructured.NestedSlice(ks, "spec", field)
	if err != nil || !ok {
		return err
	}
	var errs error
	for k, e := range entries {
		m, ok := e.(map[string]any)
		if !ok {
			errs = errors.Join(errs, fmt.Errorf("unable to convert patch %d to map[string]interface{}", k))
		}
		var v T
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &v); err != nil {
			errs = errors.Join(errs, err)
		}
		*out = append(*out, v)
	}
	return errs
}

func adaptSelector(s *kustomize.Selector) *kustypes.Selector {
	if s == nil {
		return nil
	}
	out := &kustypes.Selector{LabelSelector: s.LabelSelector, AnnotationSelector: s.AnnotationSelector}
	out.Gvk.Group, out.Gvk.Version, out.Gvk.Kind = s.Group, s.Version, s.Kind
	out.Name, out.Namespace = s.Name, s.Namespace
	return out
}

// findOrGenerateKustomization returns dir's kustomization file, or a
// listing of the manifests under dir (listed).
func findOrGenerateKustomization(fs filesys.FileSystem, dir string, validate bool, scan scanFunc) (*fluxKfile, error) {
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		if p := filepath.Join(dir, name); fs.Exists(p) && !fs.IsDir(p) {
			data, err := fs.ReadFile(p)
			if data == nil && err == nil {
				data = []byte{} // an empty file is a file, not a listing
			}
			return &fluxKfile{path: p, data: data}, err
		}
	}
	gen := &fluxKfile{path: filepath.Join(dir, konfig.DefaultKustomizationFileName()), listed: true}
	files, err := scan(fs, dir, validate)
	if err != nil {
		return gen, err
	}
	kus := kustypes.Kustomization{TypeMeta: kustypes.TypeMeta{APIVersion: kustypes.KustomizationVersion, Kind: kustypes.KustomizationKind}}
	for _, f := range files {
		kus.Resources = append(kus.Resources, strings.Replace(f, dir, ".", 1))
	}
	if len(kus.Resources) == 0 {
		// Flux's way around kustomize's "kustomization.yaml is empty".
		kus.Namespace = "_placeholder"
	}
	gen.listing = &kus
	return gen, nil
}

// scanManifests lists the YAML files under base (with validate, failing on
// one that does not parse as Kubernetes objects), and the directories that
// hold a kustomization file of their own (not descended into).
func scanManifests(fs filesys.FileSystem, base string, validate bool) ([]string, error) {
	var paths []string
	var rf *resource.Factory // made only to validate: it is not free
	if validate {
		rf = provider.NewDefaultDepProvider().GetResourceFactory()
	}
	err := fs.Walk(base, func(path string, info os.FileInfo, err error) (walkErr error) {
		if err != nil || path == base {
			return err
		}
		if info.IsDir() {
			for _, name := range konfig.RecognizedKustomizationFileNames() {
				if p := filepath.Join(path, name); fs.Exists(p) && !fs.IsDir(p) {
					paths = append(paths, path)
					return filepath.SkipDir
				}
			}
			return nil
		}
		if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" {
			return nil
		}
		if !validate {
			paths = append(paths, path)
			return nil
		}
		data, err := fs.ReadFile(path)
		if err != nil {
			return err
		}
		defer func() {
			if r := recover(); r != nil {
				walkErr = fmt.Errorf("recovered from panic while parsing YAML file %s: %v", filepath.Base(path), r)
			}
		}()
		if _, err := rf.SliceFromBytes(data); err != nil {
			return fmt.Errorf("failed to decode Kubernetes YAML from %s: %w", path, err)
		}
		paths = append(paths, path)
		return nil
	})
	return paths, err
}
