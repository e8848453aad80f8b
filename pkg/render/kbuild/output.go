package kbuild

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/kustomize/api/resource"
	sigsyaml "sigs.k8s.io/yaml"
)

// Manifest is one rendered object and the file it came from.
type Manifest struct {
	// Object is the object as kustomize-controller would apply it.
	Object *unstructured.Unstructured
	// File is the file the object was read from, relative to the repository
	// root and slash-separated; empty when kustomize records none (objects
	// from generators record their kustomization file instead).
	File string
	// Line is the 1-based line of File where the object's document starts
	// (for a generated object, its generator's entry); 0 when unknown: no
	// file on disk behind it, or no document of File that matches it.
	Line int
}

// Output is what one build produces: its objects (Manifests), and what it
// set aside or printed.
type Output struct {
	objects []built
	// SOPS holds the SOPS-encrypted objects set aside.
	SOPS []Manifest
	// Remote lists the remote resources not fetched, as "file: remote resource URL".
	Remote []string
	// Warnings are what kustomize printed during the build, naming the file.
	Warnings []string
}

// Manifests returns the objects of the build, in kustomize's order; after
// PostBuild, substituted.
func (o *Output) Manifests() []Manifest {
	ms := make([]Manifest, len(o.objects))
	for i, b := range o.objects {
		ms[i] = b.Manifest
	}
	return ms
}

// built is one object of a build: the manifest and the JSON kustomize
// rendered for it, from which toYAML makes the very text kustomize-controller
// runs postBuild substitution on (so that an unquoted "${PORT}" turns into a
// number exactly when it does in Flux).
type built struct {
	Manifest
	json []byte
}

// toYAML returns the YAML of the object as kustomize renders it (r.AsYAML(),
// without a second MarshalJSON). Only postBuild needs it: converting every
// object of every build took a fifth of the time of a repository without
// postBuild.
func (b built) toYAML() ([]byte, error) {
	data, err := sigsyaml.JSONToYAML(b.json)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OrUnknown(b.File), err)
	}
	return data, nil
}

// collect turns a build result into manifests, mirroring the checks that
// kustomize-controller makes on every resource, and sets SOPS documents aside.
func (b *Builder) collect(rs []*resource.Resource, v View, dir string, stripOrigin bool, placed placement) (*Output, error) {
	return b.collectNamed(rs, func(_ int, r *resource.Resource) (string, int) {
		if origin := placed[r]; origin != nil {
			return b.placeOf(v, dir, origin, r)
		}
		if origin, err := r.GetOrigin(); err == nil && origin != nil {
			return b.placeOf(v, dir, origin, r)
		}
		return "", 0
	}, stripOrigin)
}

// collectNamed is collect with the file and line of each resource (the
// i-th of rs) given by placeOf.
func (b *Builder) collectNamed(rs []*resource.Resource, placeOf func(i int, r *resource.Resource) (string, int), stripOrigin bool) (*Output, error) {
	res := &Output{}
	for i, r := range rs {
		file, line := placeOf(i, r)
		if stripOrigin {
			if err := r.SetOrigin(nil); err != nil {
				return nil, fmt.Errorf("kustomize build failed: %w", err)
			}
		}
		if r.GetName() == "" || r.GetKind() == "" || r.GetApiVersion() == "" {
			return nil, fmt.Errorf("%s: failed to decode Kubernetes apiVersion, kind and name from: %s", OrUnknown(file), r.String())
		}
		js, err := resourceJSON(r)
		obj, err := decodeJSON(js, err)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", OrUnknown(file), err)
		}
		u := &unstructured.Unstructured{Object: obj}
		if isKustomizeConfig(u) {
			continue
		}
		if _, encrypted := obj["sops"]; encrypted {
			res.SOPS = append(res.SOPS, Manifest{Object: u, File: file, Line: line})
			continue
		}
		res.objects = append(res.objects, built{Manifest: Manifest{Object: u, File: file, Line: line}, json: js})
	}
	return res, nil
}

// isKustomizeConfig reports whether u is kustomize's own Kustomization
// (kustomize.config.k8s.io), which kustomize-controller never applies.
func isKustomizeConfig(u *unstructured.Unstructured) bool {
	return strings.EqualFold(u.GetKind(), "Kustomization") &&
		strings.HasPrefix(u.GetAPIVersion(), "kustomize.config.k8s.io/")
}

// describe renders an object as Kind/namespace/name (Kind/name when cluster-scoped).
func describe(u *unstructured.Unstructured) string {
	if ns := u.GetNamespace(); ns != "" {
		return u.GetKind() + "/" + ns + "/" + u.GetName()
	}
	return u.GetKind() + "/" + u.GetName()
}

// decodeJSON decodes a JSON object the way unstructured objects hold it
// (whole numbers as int64).
func decodeJSON(data []byte, err error) (map[string]any, error) {
	if err != nil {
		return nil, err
	}
	obj := map[string]any{}
	if err := utiljson.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// OrUnknown names file in a message: "(generated)" for an object no file
// holds.
func OrUnknown(file string) string {
	if file == "" {
		return "(generated)"
	}
	return file
}
