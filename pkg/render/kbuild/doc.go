// Package kbuild emulates kustomize-controller's build of one Kustomization
// (v1.9) on a read-only checkout: Flux's kustomization generator
// (fluxcd/pkg/kustomize: targetNamespace, namePrefix/nameSuffix, patches,
// images, components), kustomize's krusty with Flux's options, and
// postBuild substitution (PostBuild). A Builder builds a directory of the
// checkout, or of an ExternalArtifact's tree (NewArtifactView), into an
// Output: every object with the file and line it came from (Manifest),
// and what was set aside or printed. It is the render's builder: package
// render, the loader, walks the Kustomization graph and calls it; nothing
// here knows of the loader.
//
// The kustomization file Flux would generate or rewrite lives in memory
// (overlayFS, a map over the read-only disk: kyaml's in-memory file system
// refuses paths with a space, "+", "@"...). Files source-controller leaves
// out of artifacts (fluxcd/pkg/sourceignore) are not seen.
//
// Where a build necessarily differs from Flux's:
//   - a reference to a variable that no variable defines is left as written
//     and reported, whatever its operator (${VAR}, ${VAR/./-}, ${VAR^^}...):
//     Flux would substitute an empty string, or the empty string
//     transformed, and its strict mode refuses the build; an operator that
//     supplies a value (${VAR:=default}, ${VAR:-default}...) works as in
//     Flux;
//   - SOPS-encrypted documents (a top-level sops key) are set aside
//     (Output.SOPS);
//   - nothing is fetched: remote kustomize resources and components (git or
//     HTTP URLs), and HTTP(S) generator files, env files and patches are left
//     out and reported (Output.Remote);
//   - an ExternalArtifact's tree is source-watcher's copy operations
//     (globs, excludes, Overwrite and Merge) replayed as a mapping of paths
//     onto the checkout (artifact*.go), so that spec.path, relative
//     references and Manifest.File all follow the artifact's layout and
//     name the checkout's files; Flux's generator, which reads only the
//     disk, is redone on it (artifactgen.go, held to Flux's by
//     TestGenerateKustomizationMatchesFlux).
//
// Input is bounded (internal/input): every file kustomize, Flux's generator
// or the builder reads is read through a file system (boundedFS) that
// refuses what is not a regular file (a named pipe would block the read
// forever), a file over 16 MiB, and YAML that explodes once its aliases are
// expanded, too deep or too wide; the files the generator and sourceignore
// open by themselves are checked before they run. A refused file is an
// *input.LimitError naming it; so is an object whose postBuild substitution
// would exceed the bounds of Flux's envsubst (references, escapes). A build
// that fails names the malformed file and document it read
// (*MalformedError, diagnose.go). What the disk answers is read once per
// render; below the root where no symlink leads, one lstat answers the
// secure file system's checks (statPlain).
//
// Builds run side by side once the render allows it (AllowParallel):
// kustomize's global OpenAPI schema is parsed before any two builds run
// together, and a build that would change it or log (a kustomization with
// openapi or vars) runs alone (buildlock.go). What kustomize prints itself
// (deprecations, its std logger) is captured while renders run
// (CapturePrints) and named by build (kustwarn.go).
//
// Shortcuts around kustomize and Flux's own code, each held to the path it
// short-cuts (Builder.Exact turns them all off):
//   - a directory Flux lists itself (no kustomization file) with nothing for
//     kustomize to transform is built without kustomize: its files are
//     parsed as kustomize's own resource factory parses them (listed.go,
//     TestListedBuildMatchesKustomize; listedparse.go: without kyaml's
//     de-anchoring where it is the identity,
//     TestParseResourcesMatchesKustomize), from 64 files on every core,
//     and without kustomize's OpenAPI schema, which such a build never
//     needs parsed; the listing Flux's generator makes for it is read as
//     it is, not printed and parsed back (TestListingIsItsFileParsed);
//   - each object's file is traced without kustomize's origin annotations,
//     which cost kustomize a seventh of a render (place.go), and taken from
//     the annotations where any object is in doubt (TestPlacedMatchesOrigin);
//     its line is where its document starts on disk, found by kind and name
//     once per file (lines.go; a generated object's line is its generator's
//     entry);
//   - a plain directory of more than 64 files is built in chunks
//     (chunked.go: kustomize is quadratic in one build's resources), and a
//     kustomization of eight or more directories under nothing but patches
//     that select their targets is built split, one kustomize run per
//     directory on every core, where the whole build could not differ
//     (split.go, TestSplitBuildMatchesKustomize);
//   - the build of Path is kept, as its objects' JSON, for the flux-system
//     Kustomization that repeats it (lastbuild.go), what a build makes of a
//     kustomization file is remembered for the render (kfileMemo), and so
//     is the listing of a directory (Builder.scanManifests);
//   - postBuild substitution skips an object without a "$", which it would
//     give back unchanged, and keeps an object whose text it leaves as it
//     was.
//
// TestShortcutsMatchExactRender, in package render, renders the fixtures and
// the corpus with and without the shortcuts and requires the same result.
package kbuild
