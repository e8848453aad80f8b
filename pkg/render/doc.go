// Package render is standup's offline view of a cluster: it reads a Flux
// repository checkout and derives, from files only, the Flux objects the
// cluster would have and everything each Kustomization would apply.
//
// Load mirrors kustomize-controller v1.9: it builds the directory given as
// Path (generating a kustomization.yaml the way Flux does when there is none),
// then, for every Flux Kustomization found, builds spec.path relative to the
// repository root and runs its postBuild substitution, and recurses into the
// Kustomizations that build produces. Each Kustomization is built once. The
// build itself, kustomize-controller's emulated (fluxcd/pkg/kustomize's
// generator, kustomize's krusty, postBuild substitution, ExternalArtifact
// trees), is package kbuild's; this package is the loader: it finds the Flux
// objects, decides which source each Kustomization builds from and in what
// order, and assembles the Result. kbuild knows nothing of the loader.
//
// The repository root is Options.RepoRoot, else the nearest directory at or
// above Path that holds .git or standup.yaml. A standup.yaml therefore makes
// a sub-directory of a larger checkout (such as examples/homelab) a
// repository of its own, whose spec.path values are relative to it.
//
// Where the offline view necessarily differs from a cluster (kbuild's
// package documentation lists what a build leaves out):
//   - substituteFrom reads ConfigMaps and Secrets from the repository's own
//     rendered output (Path's build and every Kustomization's), not from a
//     cluster; a non-optional one that is absent is a warning, not an error.
//     Two Flux objects whose names are one only because an unknown variable
//     is shown as written are one node, with a warning naming both and the
//     variable;
//   - SOPS-encrypted documents (a top-level sops key) are skipped with a
//     note, once however many namespaces a component renders them into;
//   - a Kustomization whose sourceRef is an ExternalArtifact that an
//     ArtifactGenerator of the checkout (source.extensions.fluxcd.io)
//     composes from the repository's sources builds from that artifact's
//     tree (kbuild.ArtifactView). Such an artifact never stands for the
//     checkout itself: when Path's own Kustomizations build from one, the
//     checkout stands for the sources its generator copies from. An
//     ExternalArtifact whose generator is not in the checkout, copies from
//     another source or extracts tarballs is a foreign source (below);
//   - a Kustomization that builds from another source than the repository's
//     is a node but is not rendered. The repository's sources are those of
//     the Kustomizations found at Path that build Path itself (flux-system);
//     when none does, the GitRepository sources of the Kustomizations found
//     at Path (a git checkout stands for a GitRepository, not for Flux's own
//     OCIRepository), or all their sources if none is a GitRepository. A
//     source the checkout does not define is named as such, with the
//     namespace to set when a sourceRef without one misses it;
//   - a namespaced Flux object left without a namespace is skipped with a
//     note, because kustomize-controller does not default it and fails the
//     apply with "namespace not specified".
//
// Never the whole repository for one Kustomization: what kustomize-controller
// would fail one Kustomization for fails that Kustomization alone
// (Result.Failed, naming it, the file at fault and the reason, relative to
// the repository root): a spec that does not decode, a spec.path its source
// lacks, a malformed file (*kbuild.MalformedError, with the 1-based
// document index), a build kustomize refuses, a postBuild substitution Flux
// refuses, a file over a limit of bounded input (internal/input). The rest
// is rendered, and the Kustomization stays a node. Only what concerns the
// whole input fails Load: Path or the root missing or unreadable, the build
// of Path itself, a .sourceignore over a limit.
//
// The walk is sequential and its results do not depend on timing (the first
// ConfigMap of a name wins, a Kustomization waits for its substituteFrom
// objects), but the builds of the Kustomizations queued next run ahead of it
// on the other cores (prefetch.go), side by side with each other once the
// render has made kbuild.ParallelAfter builds; a build run ahead is used only
// if the walk then builds the same spec in the same directory. The garbage
// collector runs less often while a render runs (GOGC 200 unless GOGC is
// set), under a memory limit that follows what the heap keeps (gc.go,
// unless GOMEMLIMIT is set). Rendering is linear in the size of the input where standup's own
// code is concerned; what remains superlinear is kustomize's handling of a
// mapping, quadratic in its keys, which the width limit bounds.
package render
