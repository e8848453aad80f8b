package check

import (
	"context"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/kube"
	"github.com/kubestandup/standup/pkg/tiers"
)

// Flux's own install: its namespace and the label its controllers carry (as

// Options says what Gather reads besides what every check needs.
type Options struct {
	// Namespace limits the Kustomizations read ("" for all namespaces).
	Namespace string
	// Ready names the Kustomizations (NAME or NAMESPACE/NAME) whose sources'
	// current revisions are read.
	Ready []string
	// BundleDir is the CRD bundle to validate, "" for none. The caller
	// resolves any default: Gather reads the directory it is given.
	BundleDir string
}

// Facts is everything check reads, gathered before any verdict.
type Facts struct {
	// CRDs are the cluster's CustomResourceDefinitions by name.
	CRDs map[string]*apiextensionsv1.CustomResourceDefinition
	// Controllers are Flux's Deployments in flux-system; ControllersErr is
	// why they could not be listed.
	Controllers    []unstructured.Unstructured
	ControllersErr error
	// Kustomizations is empty when Flux is not installed: there is nothing to list.
	Kustomizations []flux.Object
	// HelmReleases are listed when the cluster serves their API (its CRD
	// is in CRDs); HelmReleasesErr is why they could not be.
	HelmReleases    []flux.Object
	HelmReleasesErr error
	// Sources holds the current revision of every source a --ready
	// Kustomization builds from.
	Sources map[tiers.ID]SourceRevision
	// BundleDir is the bundle checked ("" for none), Bundle what it loaded,
	// BundleErr why not.
	BundleDir string
	Bundle    *crds.Bundle
	BundleErr error
}

// SourceRevision is a source's current artifact revision ("" for none yet),
// or Err, why it could not be read.
type SourceRevision struct {
	Revision string
	Err      error
}

// Gather reads the cluster through r and the bundle of opts. Only a failure
// to read CRDs or Kustomizations is an error; anything else becomes a fact
// that Evaluate turns into a failed check.
func Gather(ctx context.Context, r client.Reader, opts Options) (Facts, error) {
	f := Facts{Sources: map[tiers.ID]SourceRevision{}, BundleDir: opts.BundleDir}
	if f.BundleDir != "" {
		f.Bundle, f.BundleErr = crds.LoadBundle(f.BundleDir)
	}
	list, err := crds.ListCRDs(ctx, r)
	if err != nil {
		return f, err
	}
	f.CRDs = make(map[string]*apiextensionsv1.CustomResourceDefinition, len(list))
	for _, c := range list {
		f.CRDs[c.Name] = c
	}
	f.Controllers, f.ControllersErr = listControllers(ctx, r)
	if !fluxInstalled(f.CRDs[flux.KustomizationCRD]) {
		return f, nil
	}
	if f.Kustomizations, err = flux.ListKustomizations(ctx, r, opts.Namespace); err != nil {
		return f, err
	}
	if crds.Established(f.CRDs[flux.HelmReleaseResource]) {
		f.HelmReleases, f.HelmReleasesErr = flux.ListHelmReleases(ctx, r, opts.Namespace)
	}
	for _, o := range f.Kustomizations {
		if _, seen := f.Sources[o.SourceRef]; seen || !named(o.ID, opts.Ready) {
			continue
		}
		rev, err := flux.SourceRevision(ctx, r, o.SourceRef)
		f.Sources[o.SourceRef] = SourceRevision{Revision: rev, Err: err}
	}
	return f, nil
}

// listControllers lists Flux's Deployments as unstructured objects, so
// that kstatus computes their status exactly as it would for any object.
func listControllers(ctx context.Context, r client.Reader) ([]unstructured.Unstructured, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DeploymentList"})
	if err := r.List(ctx, list, client.InNamespace(flux.InstallNamespace), client.MatchingLabels{flux.PartOfLabel: flux.PartOfValue}); err != nil {
		return list.Items, kube.Explain(err, "list", "deployments.apps")
	}
	return list.Items, nil
}

// named reports whether any of names matches id.
func named(id tiers.ID, names []string) bool {
	for _, n := range names {
		if tiers.Matches(id, n) {
			return true
		}
	}
	return false
}
