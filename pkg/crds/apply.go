package crds

import (
	"context"
	"fmt"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/kube"
)

const (
	// FieldManager is the server-side apply field manager of every CRD standup applies.
	FieldManager = "standup"
	// PreAppliedForAnnotation records which Kustomization's deadlock a CRD was applied for.
	PreAppliedForAnnotation = "standup.kubestandup.io/pre-applied-for"
	crdResource             = "customresourcedefinitions.apiextensions.k8s.io"
)

// UnresolvedError reports missing kinds that the bundle cannot supply.
type UnresolvedError struct {
	Diagnosis Diagnosis
	Missing   []MissingType
}

// Error names the Kustomization, the kinds, and what to do.
func (e *UnresolvedError) Error() string {
	return fmt.Sprintf("%s: the CRD bundle has no CRD for %s; move those objects into their own Kustomization with dependsOn and wait: true, or add the CRD to the bundle (standup crds capture); see %s",
		e.Diagnosis.Kustomization, joinTypes(e.Missing), RunbookPath)
}

// ApplyOptions tune PreApply.
type ApplyOptions struct {
	// ForceConflicts takes fields another manager owns; off by default.
	ForceConflicts bool
	// DryRun asks the API server to validate without persisting.
	DryRun bool
	// Reason overrides the pre-applied-for annotation (default: the diagnosed Kustomization).
	Reason string
}

// PlanPreApply resolves every missing kind of d to a bundle CRD. It fails,
// naming every kind the bundle lacks, before anything is applied.
func PlanPreApply(d Diagnosis, bundle *Bundle) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var out []*apiextensionsv1.CustomResourceDefinition
	var unresolved []MissingType
	for _, t := range d.Missing {
		crd := lookupType(bundle, t)
		if crd == nil {
			unresolved = append(unresolved, t)
			continue
		}
		out = append(out, crd)
	}
	if len(unresolved) > 0 {
		return nil, &UnresolvedError{Diagnosis: d, Missing: unresolved}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func lookupType(bundle *Bundle, t MissingType) *apiextensionsv1.CustomResourceDefinition {
	if bundle == nil {
		return nil
	}
	if t.GroupKnown {
		crd, _, ok := bundle.Lookup(t.Group, t.Kind)
		if ok {
			return crd
		}
		return nil
	}
	if entries := bundle.LookupKind(t.Kind); len(entries) == 1 {
		return entries[0].CRD
	}
	return nil
}

// PreApply creates, with server-side apply under FieldManager, the bundle
// CRDs for d's missing kinds that are still absent from the cluster (read
// fresh from the API server). It never modifies a CRD that exists. It
// returns the names of the CRDs it created.
func PreApply(ctx context.Context, c client.Client, bundle *Bundle, d Diagnosis, opts ApplyOptions) ([]string, error) {
	planned, err := PlanPreApply(d, bundle)
	if err != nil {
		return nil, err
	}
	var applied []string
	for _, crd := range planned {
		existing := &apiextensionsv1.CustomResourceDefinition{}
		err := c.Get(ctx, client.ObjectKey{Name: crd.Name}, existing)
		if err == nil {
			continue // present: never touched
		}
		if !apierrors.IsNotFound(err) {
			return applied, fmt.Errorf("CustomResourceDefinition/%s: %w", crd.Name, kube.Explain(err, "get", crdResource))
		}
		reason := opts.Reason
		if reason == "" {
			reason = d.Kustomization.String()
		}
		if err := applyCRD(ctx, c, crd, reason, opts); err != nil {
			return applied, err
		}
		applied = append(applied, crd.Name)
	}
	return applied, nil
}

func applyCRD(ctx context.Context, c client.Client, crd *apiextensionsv1.CustomResourceDefinition, reason string, opts ApplyOptions) error {
	obj := crd.DeepCopy()
	obj.APIVersion, obj.Kind = apiextensionsv1.SchemeGroupVersion.String(), "CustomResourceDefinition"
	obj.ResourceVersion, obj.UID, obj.ManagedFields = "", "", nil
	obj.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	ann := obj.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[PreAppliedForAnnotation] = reason
	obj.SetAnnotations(ann)
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return fmt.Errorf("CustomResourceDefinition/%s: %w", crd.Name, err)
	}
	u := &unstructured.Unstructured{Object: raw}
	unstructured.RemoveNestedField(u.Object, "status")
	patchOpts := []client.PatchOption{client.FieldOwner(FieldManager)}
	if opts.ForceConflicts {
		patchOpts = append(patchOpts, client.ForceOwnership)
	}
	if opts.DryRun {
		patchOpts = append(patchOpts, client.DryRunAll)
	}
	if err := c.Patch(ctx, u, client.Apply, patchOpts...); err != nil {
		if apierrors.IsConflict(err) && !opts.ForceConflicts {
			return fmt.Errorf("CustomResourceDefinition/%s apply conflicts with another field manager (pass --force-conflicts to take the fields): %w", crd.Name, err)
		}
		return fmt.Errorf("CustomResourceDefinition/%s: %w", crd.Name, kube.Explain(err, "create", crdResource))
	}
	return nil
}
