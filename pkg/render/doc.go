// Package render is standup's offline view of a cluster: it reads a Flux
// repository checkout and derives, from files only, the Flux objects the
// cluster would have and everything each Kustomization would apply.
//
// Load mirrors kustomize-controller v1.9: it builds the directory given as
// Path (generating a kustomization.yaml the way Flux does when there is none),
// then, for every Flux Kustomization found, builds spec.path relative to the
// repository root with fluxcd/pkg/kustomize's generator and kustomize's
// krusty (patches, images, targetNamespace, namePrefix/nameSuffix,
// components), runs postBuild substitution, and recurses into the
// Kustomizations that build produces. Each Kustomization is built once.
//
// The repository root is Options.RepoRoot, else the nearest directory at or
// above Path that holds .git or standup.yaml. A standup.yaml therefore makes
// a sub-directory of a larger checkout (such as examples/homelab) a
// repository of its own, whose spec.path values are relative to it.
//
// Where the offline view necessarily differs from a cluster:
//   - substituteFrom reads ConfigMaps and Secrets from the repository's own
//     rendered output (Path's build and every Kustomization's), not from a
//     cluster; a non-optional one that is absent is a warning, not an error;
//   - a reference to a variable that no variable defines is left as written
//     and reported, whatever its operator (${VAR}, ${VAR/./-}, ${VAR^^}...):
//     Flux would substitute an empty string, or the empty string
//     transformed, and its strict mode refuses the build; an operator that
//     supplies a value (${VAR:=default}, ${VAR:-default}...) works as in
//     Flux. Two Flux objects whose names are one only because an unknown
//     variable is shown as written are one node, with a warning naming
//     both and the variable;
//   - SOPS-encrypted documents (a top-level sops key) are skipped with a note;
//   - a Kustomization whose sourceRef is an ExternalArtifact that an
//     ArtifactGenerator of the checkout (source.extensions.fluxcd.io)
//     composes from the repository's sources builds from that artifact's
//     tree: the generator's copy operations (globs, excludes, Overwrite and
//     Merge) replayed as a mapping of paths onto the checkout, so that
//     spec.path, relative references and Manifest.File all follow the
//     artifact's layout and name the checkout's files. Such an artifact
//     never stands for the checkout itself: when Path's own Kustomizations
//     build from one, the checkout stands for the sources its generator
//     copies from. An ExternalArtifact whose generator is not in the
//     checkout, copies from another source or extracts tarballs is a
//     foreign source (below);
//   - a Kustomization that builds from another source than the repository's
//     is a node but is not rendered. The repository's sources are those of
//     the Kustomizations found at Path that build Path itself (flux-system);
//     when none does, the GitRepository sources of the Kustomizations found
//     at Path (a git checkout stands for a GitRepository, not for Flux's own
//     OCIRepository), or all their sources if none is a GitRepository. A
//     source the checkout does not define is named as such, with the
//     namespace to set when a sourceRef without one misses it;
//   - nothing is fetched: remote kustomize resources and components (git or
//     HTTP URLs), and HTTP(S) generator files, env files and patches are left
//     out with a warning naming the kustomization file;
//   - a namespaced Flux object left without a namespace is skipped with a
//     note, because kustomize-controller does not default it and fails the
//     apply with "namespace not specified".
//
// Never the whole repository for one Kustomization: what kustomize-controller
// would fail one Kustomization for fails that Kustomization alone
// (Result.Failed, naming it, the file at fault and the reason, relative to
// the repository root): a spec that does not decode, a spec.path its source
// lacks, a malformed file (*MalformedError, with the 1-based document
// index), a build kustomize refuses, a postBuild substitution Flux refuses.
// The rest is rendered, and the Kustomization stays a node. Only what
// concerns the whole input fails Load: Path or the root missing or
// unreadable, the build of Path itself, a .sourceignore over a limit.
//
// Input is bounded (internal/input): every file kustomize, Flux's generator
// or the loader reads is read through a file system that refuses what is not
// a regular file (a named pipe would block the read forever), a file over
// 16 MiB, and YAML that explodes once its aliases are expanded, too deep or
// too wide; the files the generator and sourceignore open by themselves are
// checked before they run. Such a file fails only the Kustomization whose
// build reads it (Result.Failed, naming the file); the rest of the repository
// is rendered. So does an object whose postBuild substitution would exceed
// the bounds of Flux's envsubst (references, escapes).
//
// The walk is sequential and its results do not depend on timing, but the
// builds of the Kustomizations queued next run ahead of it on the other
// cores (prefetch.go), side by side with each other: kustomize's global
// OpenAPI schema is parsed before any two builds run together, and a build
// that would change it or log (a kustomization with openapi or vars) runs
// alone (buildlock.go). What the disk answers is read once per render
// (boundedFS). A directory Flux builds with a kustomization file it
// generates, listing the manifests, with nothing for kustomize to transform
// (no targetNamespace, prefix, suffix, patches, images, components or
// buildMetadata), is built without kustomize: its files are parsed by
// kustomize's own resource factory (listed.go), which is what kustomize's
// build of such a file amounts to, without its fixed per-build cost;
// anything the bytes do not show to be plain builds the usual way. An
// object without a "$" skips postBuild substitution, which would give it
// back unchanged; TestShortcutsMatchExactRender holds these shortcuts to
// the render without them. The garbage collector runs less often while a
// render runs (GOGC 200 unless GOGC is set). Rendering is linear
// in the size of the input where standup's own code is concerned; what
// remains superlinear is kustomize's handling of a mapping, quadratic in its
// keys, which the width limit bounds.
package render
