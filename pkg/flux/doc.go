// Package flux is what standup knows of Flux itself.
//
// names.go writes Flux's names once: API groups, kinds, resources (the
// Kustomization resource is also the name of its CRD), the reconcile request
// annotation, and the names of a Flux install (namespace flux-system, label
// app.kubernetes.io/part-of=flux). client.go adds Flux's types to
// pkg/kube's scheme (NewScheme, NewClient) and explains a cluster without
// Flux (ErrNotInstalled, ExplainKustomizations), so pkg/kube stays free of
// Flux.
//
// Object is one Flux object as standup reasons about it, whether read live
// (FromKustomization, ListKustomizations, FromHelmRelease and
// ListHelmReleases in helm.go, List for several kinds) or rendered from a
// checkout; RevisionSource is the source its revision is compared with (a
// HelmRelease's HelmChart). kinds.go reads kinds as users
// type them (ks, hr, plurals, any case). inventory.go parses status.inventory ids as
// kustomize-controller and helm-controller write them, and names the CRDs
// and the child Kustomizations and HelmReleases an inventory holds. target.go
// reads spec.kubeConfig.secretRef: Target names the remote cluster an object
// applies to (its Secret's name), TargetSecret the Secret. SourceRevision reads a source's current
// artifact revision (SourceRevisions, every source of a set of objects once), and RequestReconcile asks a Kustomization or a
// HelmRelease for a reconcile with the one merge patch `flux reconcile` and
// `flux resume` send.
//
// resourceset.go reads the Flux Operator's ResourceSets live
// (ListResourceSets, FromResourceSet): nodes of the graph (kind word rset)
// whose dependsOn on Flux objects are edges and on any other object
// Requirements, the appliers of what their inventory lists and of the
// objects carrying the Operator's owner labels; RequestReconcile asks
// them with the same annotation, which the Operator honours.
package flux
