package render

import (
	"fmt"
	"sort"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render/operator"
	"github.com/kubestandup/standup/pkg/tiers"
)

const (
	// KindKustomization selects Flux Kustomizations in Options.Kinds.
	KindKustomization = flux.KindKustomization
	// KindHelmRelease selects Flux HelmReleases in Options.Kinds.
	KindHelmRelease = "HelmRelease"
	// KindResourceSet is the Flux Operator's ResourceSet: an applier, like
	// a Kustomization, whose nodes Result.Objects holds whatever
	// Options.Kinds says (see docs/flux-operator.md).
	KindResourceSet = operator.KindResourceSet

	kustomizeGroup = "kustomize.toolkit.fluxcd.io"
	helmGroup      = "helm.toolkit.fluxcd.io"
)

// fluxKind returns the Flux kind an object is (KindKustomization,
// KindHelmRelease or KindResourceSet), or "" for anything else, including
// kustomize's own kustomize.config.k8s.io Kustomization.
func fluxKind(u *unstructured.Unstructured) string {
	group := u.GroupVersionKind().Group
	switch {
	case operator.IsResourceSet(u):
		return KindResourceSet
	case group == kustomizeGroup && u.GetKind() == KindKustomization:
		return KindKustomization
	case group == helmGroup && u.GetKind() == KindHelmRelease:
		return KindHelmRelease
	}
	return ""
}

// idOf returns the graph ID of a Flux object.
func idOf(kind string, u *unstructured.Unstructured) tiers.ID {
	return tiers.ID{Kind: kind, Namespace: u.GetNamespace(), Name: u.GetName()}
}

// toKustomization converts an unstructured Flux Kustomization (any
// kustomize.toolkit.fluxcd.io version) into the typed v1 object.
func toKustomization(u *unstructured.Unstructured) (*kustomizev1.Kustomization, error) {
	var ks kustomizev1.Kustomization
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &ks); err != nil {
		if field := nonStringMetadata(u); field != "" {
			return nil, fmt.Errorf("decode failed: %s: label and annotation values must be strings (the API server rejects the object): quote it", field)
		}
		return nil, fmt.Errorf("decode failed: %w", err)
	}
	return &ks, nil
}

// nonStringMetadata names the first label or annotation whose YAML value is
// not a string (an unquoted true, 1 or null), the usual cause of a decode
// failure the converter words only as "unrecognized type".
func nonStringMetadata(u *unstructured.Unstructured) string {
	for _, field := range []string{"labels", "annotations"} {
		m, _, _ := unstructured.NestedFieldNoCopy(u.Object, "metadata", field)
		values, ok := m.(map[string]any)
		if !ok {
			continue
		}
		keys := make([]string, 0, len(values))
		for k := range values {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if _, isString := values[k].(string); !isString {
				return fmt.Sprintf("metadata.%s[%q] is %v (%T)", field, k, values[k], values[k])
			}
		}
	}
	return ""
}

// toObject converts a discovered Flux object into the node standup reasons
// about, the same way the live source does.
func toObject(kind string, u *unstructured.Unstructured) (flux.Object, error) {
	if kind == KindHelmRelease {
		return flux.FromHelmRelease(u)
	}
	ks, err := toKustomization(u)
	if err != nil {
		return flux.Object{}, err
	}
	return flux.FromKustomization(ks), nil
}

// normalizeKinds validates Options.Kinds and returns it as a set, defaulting
// to Kustomizations only.
func normalizeKinds(kinds []string) (map[string]bool, error) {
	set := map[string]bool{}
	if len(kinds) == 0 {
		set[KindKustomization] = true
		return set, nil
	}
	for _, k := range kinds {
		switch strings.ToLower(k) {
		case strings.ToLower(KindKustomization):
			set[KindKustomization] = true
		case strings.ToLower(KindHelmRelease):
			set[KindHelmRelease] = true
		default:
			return nil, fmt.Errorf("kind %q is not supported: want %s or %s", k, KindKustomization, KindHelmRelease)
		}
	}
	return set, nil
}
