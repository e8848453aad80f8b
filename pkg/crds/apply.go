package crds

import (
	"context"
	"fmt"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/kube"
)

const (
	// FieldManager is the field manager of every CRD standup creates.
	FieldManager = "standup"
	// PreAppliedForAnnotation records which Kustomization's deadlock a CRD was created for.
	PreAppliedForAnnotation = "standup.kubestandup.io/pre-applied-for"
	crdResource             = "customresourcedefinitions.apiextensions.k8s.io"
)

// ApplyOptions tune a pre-apply.
type ApplyOptions struct {
	// DryRun asks the API server to validate the creates without persisting.
	DryRun bool
	// Reason is the pre-applied-for annotation (PreApply defaults it to the
	// diagnosed Kustomization).
	Reason string
}

// Result reports a pre-apply.
type Result struct {
	// Created names the CRDs standup created, sorted.
	Created []string
	// Existing names the CRDs left alone, sorted: on the cluster when it was
	// listed, or created by someone else (an operator) between that list
	// and standup's create, which the API server refused as AlreadyExists.
	Existing []string
}

// PreApply creates the bundle CRDs for d's missing kinds that the cluster
// lacks. It fails before any write when the bundle lacks a kind
// (*UnresolvedError) or a CRD conflicts with one on the cluster
// (*ConflictError). See CreateAbsent.
func PreApply(ctx context.Context, c client.Client, bundle *Bundle, d Diagnosis, opts ApplyOptions) (Result, error) {
	entries, err := PlanPreApply(d, bundle)
	if err != nil {
		return Result{}, err
	}
	if opts.Reason == "" {
		opts.Reason = d.Kustomization.String()
	}
	return CreateAbsent(ctx, c, entries, opts)
}

// CreateAbsent is the one path by which standup writes a CRD: one fresh
// list of the cluster's CRDs, PlanCreate (which refuses a name conflict,
// creating nothing), then Create. It never modifies a CRD that exists.
func CreateAbsent(ctx context.Context, c client.Client, entries []BundleEntry, opts ApplyOptions) (Result, error) {
	plan, err := PlanAbsent(ctx, c, entries)
	if err != nil {
		return Result{}, err
	}
	return Create(ctx, c, plan, opts)
}

// PlanAbsent is CreateAbsent without the creates, for a dry run: one fresh
// list of the cluster's CRDs, then PlanCreate.
func PlanAbsent(ctx context.Context, c client.Reader, entries []BundleEntry) (Plan, error) {
	existing, err := ListCRDs(ctx, c)
	if err != nil {
		return Plan{}, err
	}
	return PlanCreate(entries, existing)
}

// ListCRDs reads every CRD fresh from the API server (never from a cache).
func ListCRDs(ctx context.Context, c client.Reader) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	list := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := c.List(ctx, list); err != nil {
		return nil, kube.Explain(err, "list", crdResource)
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}

// Create creates each CRD of plan with a plain create (never an apply or
// an update) under FieldManager, annotated with opts.Reason. Create is
// atomic: a CRD created by someone else since the plan was made is refused
// as AlreadyExists, left alone and reported in Existing. On an error, the
// result holds what was done before it.
func Create(ctx context.Context, c client.Writer, plan Plan, opts ApplyOptions) (Result, error) {
	res := Result{Existing: append([]string{}, plan.Existing...)}
	for _, e := range plan.Create {
		createOpts := []client.CreateOption{client.FieldOwner(FieldManager)}
		if opts.DryRun {
			createOpts = append(createOpts, client.DryRunAll)
		}
		err := c.Create(ctx, forCreate(e.CRD, opts.Reason), createOpts...)
		switch {
		case apierrors.IsAlreadyExists(err):
			res.Existing = append(res.Existing, e.CRD.Name)
		case err != nil:
			sort.Strings(res.Existing)
			return res, fmt.Errorf("CustomResourceDefinition/%s (from %s): %w", e.CRD.Name, e.File, kube.Explain(err, "create", crdResource))
		default:
			res.Created = append(res.Created, e.CRD.Name)
		}
	}
	sort.Strings(res.Existing)
	return res, nil
}

// forCreate copies a bundle CRD for a create: no server-set fields, no
// status, and the pre-applied-for annotation.
func forCreate(crd *apiextensionsv1.CustomResourceDefinition, reason string) *apiextensionsv1.CustomResourceDefinition {
	obj := crd.DeepCopy()
	obj.ResourceVersion, obj.UID, obj.ManagedFields, obj.Generation = "", "", nil, 0
	obj.CreationTimestamp = metav1.Time{}
	obj.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	ann := obj.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[PreAppliedForAnnotation] = reason
	obj.SetAnnotations(ann)
	return obj
}
