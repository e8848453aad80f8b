package operator

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Sync is what a FluxInstance's spec.sync makes the Operator apply: the
// source and the Kustomization that sync the cluster from it.
type Sync struct {
	// Source is the GitRepository, OCIRepository or Bucket.
	Source *unstructured.Unstructured
	// Kustomization builds spec.sync.path from Source.
	Kustomization *unstructured.Unstructured
	// Notes say what of the FluxInstance is not followed offline.
	Notes []string
}

// SyncOf returns what the FluxInstance u syncs the cluster with, as the
// Operator's sync template writes it (internal/builder templates.go,
// syncTmpl): both objects named spec.sync.name, else the FluxInstance's
// namespace, in its namespace; the Kustomization at spec.sync.path,
// prune: true, every 10m. It returns nil, nil when u has no spec.sync, and
// an error when spec.sync lacks what the API server requires.
func SyncOf(u *unstructured.Unstructured) (*Sync, error) {
	sync, found, err := unstructured.NestedMap(u.Object, "spec", "sync")
	if err != nil {
		return nil, fmt.Errorf("decode failed: spec.sync: %w", err)
	}
	if !found {
		return nil, nil
	}
	field := func(name string) string {
		v, _ := sync[name].(string)
		return v
	}
	kind, url, ref, path := field("kind"), field("url"), field("ref"), field("path")
	for _, name := range []string{"kind", "url", "ref", "path"} {
		if field(name) == "" {
			return nil, fmt.Errorf("spec.sync.%s is required", name)
		}
	}
	name := field("name")
	if name == "" {
		name = u.GetNamespace()
	}
	source, err := syncSource(kind, name, u.GetNamespace(), url, ref)
	if err != nil {
		return nil, err
	}
	ks := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": kustomizeAPIGroup + "/v1",
		"kind":       kindKustomization,
		"metadata":   map[string]any{"name": name, "namespace": u.GetNamespace()},
		"spec": map[string]any{
			"interval":  "10m0s",
			"path":      path,
			"prune":     true,
			"sourceRef": map[string]any{"kind": kind, "name": name},
		},
	}}
	s := &Sync{Source: source, Kustomization: ks}
	if patches, _, _ := unstructured.NestedSlice(u.Object, "spec", "kustomize", "patches"); patchesSync(patches) {
		s.Notes = append(s.Notes, "spec.kustomize.patches may patch the sync Kustomization; they are not applied offline")
	}
	return s, nil
}

// syncSource is the source object of the sync template.
func syncSource(kind, name, namespace, url, ref string) (*unstructured.Unstructured, error) {
	spec := map[string]any{"interval": "1m0s"}
	switch kind {
	case "GitRepository":
		spec["ref"], spec["url"] = map[string]any{"name": ref}, url
	case "OCIRepository":
		spec["ref"], spec["url"] = map[string]any{"tag": ref}, url
	case "Bucket":
		spec["bucketName"], spec["endpoint"] = ref, url
	default:
		return nil, fmt.Errorf("spec.sync.kind %q: want OCIRepository, GitRepository or Bucket", kind)
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": sourceAPIGroup + "/v1",
		"kind":       kind,
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"spec":       spec,
	}}, nil
}

// patchesSync reports whether a FluxInstance's spec.kustomize.patches may
// reach the sync Kustomization: a patch whose target is a Kustomization, or
// names no kind.
func patchesSync(patches []any) bool {
	for _, p := range patches {
		patch, _ := p.(map[string]any)
		target, _ := patch["target"].(map[string]any)
		if kind, _ := target["kind"].(string); kind == "" || kind == kindKustomization {
			return true
		}
	}
	return false
}
