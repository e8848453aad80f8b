package flux

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/pkg/kube"
	"github.com/kubestandup/standup/pkg/tiers"
)

// ListKustomizations lists Kustomizations in namespace ("" for all) and
// converts them to Objects, sorted by namespace and name.
func ListKustomizations(ctx context.Context, c client.Reader, namespace string) ([]Object, error) {
	list := &kustomizev1.KustomizationList{}
	if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil, ExplainKustomizations(err, "list")
	}
	objs := make([]Object, 0, len(list.Items))
	for i := range list.Items {
		objs = append(objs, FromKustomization(&list.Items[i]))
	}
	sort.Slice(objs, func(i, j int) bool { return objs[i].ID.Less(objs[j].ID) })
	return objs, nil
}

// SourceRevision returns the current artifact revision of a Flux source
// ("" when it has no artifact yet).
func SourceRevision(ctx context.Context, c client.Reader, ref tiers.ID) (string, error) {
	var obj interface {
		client.Object
		GetArtifact() *meta.Artifact
	}
	switch ref.Kind {
	case sourcev1.GitRepositoryKind:
		obj = &sourcev1.GitRepository{}
	case sourcev1.OCIRepositoryKind:
		obj = &sourcev1.OCIRepository{}
	case sourcev1.BucketKind:
		obj = &sourcev1.Bucket{}
	case sourcev1.HelmChartKind:
		obj = &sourcev1.HelmChart{}
	default:
		return "", fmt.Errorf("%s: unsupported source kind %q", ref, ref.Kind)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, obj); err != nil {
		return "", fmt.Errorf("%s: %w", ref, kube.Explain(err, "get", sourceResource(ref.Kind)))
	}
	if a := obj.GetArtifact(); a != nil {
		return a.Revision, nil
	}
	return "", nil
}

func sourceResource(kind string) string {
	gvr, _ := SourceGVR(kind)
	return gvr.GroupResource().String()
}

// List lists the Flux objects of kinds (canonical, as ParseKinds returns
// them) in namespace ("" for all): Kustomizations first, then
// HelmReleases, then ResourceSets. A cluster without helm-controller lists
// no HelmReleases, and one without the Flux Operator no ResourceSets, and
// says so in a warning rather than failing.
func List(ctx context.Context, c client.Reader, namespace string, kinds []string) (objs []Object, warnings []string, err error) {
	if slices.Contains(kinds, KindKustomization) {
		if objs, err = ListKustomizations(ctx, c, namespace); err != nil {
			return nil, nil, err
		}
	}
	if slices.Contains(kinds, KindHelmRelease) {
		releases, err := ListHelmReleases(ctx, c, namespace)
		switch {
		case errors.Is(err, ErrHelmNotInstalled):
			warnings = append(warnings, err.Error()+": no HelmReleases listed")
		case err != nil:
			return nil, nil, err
		}
		objs = append(objs, releases...)
	}
	if slices.Contains(kinds, KindResourceSet) {
		sets, err := ListResourceSets(ctx, c, namespace)
		switch {
		case errors.Is(err, ErrOperatorNotInstalled):
			warnings = append(warnings, err.Error()+": no ResourceSets listed")
		case err != nil:
			return nil, nil, err
		}
		objs = append(objs, sets...)
	}
	return objs, warnings, nil
}

// SourceRevisions returns the current artifact revision of every source
// objs are compared with (RevisionSource), each read once.
func SourceRevisions(ctx context.Context, c client.Reader, objs []Object) (map[tiers.ID]string, error) {
	revs := map[tiers.ID]string{}
	for _, o := range objs {
		src := o.RevisionSource()
		if _, ok := revs[src]; ok || src.Name == "" {
			continue
		}
		if _, ok := SourceGVR(src.Kind); !ok && o.ID.Kind == KindHelmRelease {
			continue // a chartRef kind whose revision is not compared
		}
		rev, err := SourceRevision(ctx, c, src)
		if err != nil {
			return nil, err
		}
		revs[src] = rev
	}
	return revs, nil
}
