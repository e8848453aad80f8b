package kbuild

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	securefs "github.com/fluxcd/pkg/kustomize/filesys"
	"github.com/fluxcd/pkg/sourceignore"
	"github.com/fluxcd/pkg/sourceignore/gitignore"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resource"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubestandup/standup/internal/input"
)

// Builder runs kustomize builds the way kustomize-controller does, against a
// read-only view of the repository: the kustomization.yaml that Flux would
// generate or rewrite lives in memory only. Every file is read bounded
// (boundedFS).
type Builder struct {
	root string
	disk *boundedFS
	// ignored matches what source-controller leaves out of the artifact:
	// its defaults (VCS and CI files, .sops.yaml, images and archives) and
	// every .sourceignore of the repository.
	ignored gitignore.Matcher
	domain  []string
	// last is the latest build, which the flux-system Kustomization of a
	// bootstrapped cluster repeats at once.
	last lastBuild
	// parallel lets shared builds run side by side (see runKustomize): the
	// walk sets it once it has made ParallelAfter builds.
	parallel atomic.Bool
	// resources parses manifests as kustomize does, for listedBuild.
	resources *resource.Factory
	// kustomizeAlways turns listedBuild off, so that tests can hold it
	// to kustomize's own build.
	kustomizeAlways bool
	// substituteAlways runs postBuild substitution on every object, even
	// one it would give back unchanged (unchangedBySubstitution).
	substituteAlways bool
	// lines indexes, by checkout file, where its documents start
	// (lines.go), once per render.
	linesMu sync.Mutex
	lines   map[string]*lineIndex
	// renamers remembers which replacement files may rename objects
	// (placeBuild), under linesMu.
	renamers map[string]bool
	// kfiles is what builds made of each kustomization file read.
	kfiles kfileMemo
	// scans are the manifests Flux's generator lists in each directory of
	// the checkout (scanManifests), under linesMu: the build of Path and
	// the flux-system Kustomization's list the same directory, of
	// thousands of files in a large repository.
	scans map[string]scanned
}

// scanned is a remembered scan of a directory.
type scanned struct {
	files []string
	err   error
}

// ParallelAfter is the number of builds after which a render's builds run
// side by side: a repository of a few Kustomizations renders faster one
// build at a time than it would parse kustomize's schema to run them
// together.
const ParallelAfter = 16

// New returns a Builder for the repository at root (absolute). It fails
// when root cannot be read securely or a .sourceignore of it is over a
// limit of bounded input.
func New(root string) (*Builder, error) {
	secure, err := securefs.MakeFsOnDiskSecure(root)
	if err != nil {
		return nil, fmt.Errorf("repository root %s: %w", root, err)
	}
	b := &Builder{root: root, disk: newBoundedFS(secure, root), domain: strings.Split(root, string(filepath.Separator)),
		resources: provider.NewDefaultDepProvider().GetResourceFactory(), lines: map[string]*lineIndex{}, renamers: map[string]bool{},
		scans: map[string]scanned{}}
	patterns, err := b.loadIgnorePatterns(root, b.domain)
	if lim, ok := input.IsLimit(err); ok {
		return nil, b.relLimit(lim)
	}
	if err != nil {
		return nil, fmt.Errorf("repository root %s: %s: %w", root, sourceignore.IgnoreFile, err)
	}
	b.ignored = sourceignore.NewDefaultMatcher(patterns, b.domain)
	return b, nil
}

// Build builds dir (absolute) of the checkout with the spec of the Flux
// Kustomization ks (nil for a plain directory): it generates or rewrites the
// kustomization file with fluxcd/pkg/kustomize's generator
// (targetNamespace, namePrefix, nameSuffix, patches, images, components),
// runs kustomize with Flux's options, and returns every object with the
// file it came from. Objects carrying a top-level `sops:` key are set
// aside, and remote resources are not fetched: both are reported in the
// result.
//
// The build is remembered (lastBuild): the flux-system Kustomization of a
// bootstrapped cluster repeats the build of Path.
func (b *Builder) Build(ks map[string]any, dir string) (*Output, error) {
	return b.build(b.Checkout(), ks, dir, true)
}

// BuildIn is Build of dir, an absolute path of v (the checkout or an
// ExternalArtifact's tree), for a Kustomization: the build is not
// remembered.
func (b *Builder) BuildIn(v View, ks map[string]any, dir string) (*Output, error) {
	return b.build(v, ks, dir, false)
}

// build is Build and BuildIn; remember says whether the build is
// remembered for the next.
func (b *Builder) build(v View, ks map[string]any, dir string, remember bool) (*Output, error) {
	if ks == nil {
		ks = map[string]any{}
	}
	gen, err := v.generate(ks, dir, false)
	if err != nil {
		return nil, err
	}
	kus, content, err := gen.parse()
	if err != nil {
		return nil, fmt.Errorf("kustomization generation failed: %w", err)
	}
	addedOrigin := !slices.Contains(kus.BuildMetadata, kustypes.OriginAnnotations)
	// The key holds the file before the origin annotations are added:
	// the file kustomize reads is a function of the two.
	key := buildKey{dir: dir, kfile: gen.path, data: content, addedOrigin: addedOrigin}
	if res := b.last.get(key); res != nil {
		return res, nil
	}
	if addedOrigin {
		kus.BuildMetadata = append(kus.BuildMetadata, kustypes.OriginAnnotations)
	}
	if gen.listed && addedOrigin {
		if res, ok := b.listedBuild(v, dir, &kus, b.parallel.Load()); ok {
			if remember {
				b.last.put(key, res)
			}
			return res, nil
		}
	}
	data, err := gen.bytes()
	if err != nil {
		return nil, fmt.Errorf("kustomization generation failed: %w", err)
	}
	res, err := b.buildWithKustomize(v, ks, dir, gen.path, data, &kus, gen.listed, addedOrigin)
	if err != nil {
		return nil, err
	}
	if remember {
		b.last.put(key, res)
	}
	return res, nil
}

// buildWithKustomize is BuildIn's build by kustomize of dir, whose
// kustomization file kfile Flux's generator made as data (parsed as kus,
// with origin annotations when the builder added them).
func (b *Builder) buildWithKustomize(v View, ks map[string]any, dir, kfile string, data []byte, kus *kustypes.Kustomization, listed, addedOrigin bool) (*Output, error) {
	// plain is the file without the origin annotations the builder adds,
	// for a build whose objects placeBuild can trace without them; the file
	// with them is printed only for a build it cannot.
	var plain []byte
	withOrigin := knownBytes(data)
	if addedOrigin {
		if !b.kustomizeAlways {
			plain = data
		}
		withOrigin = printedLater(*kus)
	}
	fs, rs, printed, err := b.kustomize(v, dir, kfile, plain, withOrigin, kus, modeOf(kus))
	if err != nil && fs == nil {
		return nil, err
	}
	if err := b.buildFailure(v, ks, dir, fs, listed, err); err != nil {
		return nil, err
	}
	res, err := b.collect(rs, v, dir, addedOrigin, fs.placed)
	if err != nil {
		return nil, err
	}
	res.Remote = fs.remote
	res.Warnings = fs.warnings
	for _, line := range printed {
		res.Warnings = append(res.Warnings, v.name(dir)+": "+line+" (kustomize)")
	}
	return res, nil
}

// kfileBytes returns a kustomization file's bytes, printing them when
// first asked (printedLater).
type kfileBytes func() ([]byte, error)

// knownBytes is a kustomization file already printed.
func knownBytes(data []byte) kfileBytes {
	return func() ([]byte, error) { return data, nil }
}

// printedLater is kus printed when a build asks for it, once: a build
// that placeBuild traces without origin annotations never reads the file
// with them, and printing it was a fortieth of a render of kustomize
// builds.
func printedLater(kus kustypes.Kustomization) kfileBytes {
	return sync.OnceValues(func() ([]byte, error) { return sigsyaml.Marshal(kus) })
}

// modeOf says how a kustomization file may run beside other builds.
func modeOf(kus *kustypes.Kustomization) buildMode {
	switch {
	case kus.OpenAPI != nil || len(kus.Crds) > 0:
		return exactBuild
	case len(kus.Vars) > 0:
		return exclusiveBuild
	}
	return sharedBuild
}

// buildFailure words what made kustomize's build of dir fail (err, nil
// when it did not): a file refused by the bounds of input, a manifest
// Flux's generator would refuse first, else the malformed file the build
// read (diagnose).
func (b *Builder) buildFailure(v View, ks map[string]any, dir string, fs *recordingFS, listed bool, err error) error {
	if fs.limit != nil {
		// Whatever kustomize made of the refusal (it tries a file it cannot
		// read as a directory next), the file is the cause.
		return b.relLimit(fs.limit)
	}
	if err == nil {
		return nil
	}
	if listed {
		// A manifest it listed may not be Kubernetes YAML: Flux's
		// generator says so first.
		if _, genErr := v.generate(ks, dir, true); genErr != nil {
			return genErr
		}
	}
	var reads []string
	for _, r := range fs.reads {
		if d := v.diskPath(r); d != "" {
			reads = append(reads, d)
		}
	}
	return b.diagnose(v, dir, reads, fmt.Errorf("kustomize build failed: %w", err))
}

// Exact turns off every shortcut the builder takes around kustomize and
// Flux's own code (the listed build, the placement of objects without
// origin annotations, the substitution skipped for an object without a
// "$"), so that tests can hold the shortcuts to what they stand for.
func (b *Builder) Exact() {
	b.kustomizeAlways, b.substituteAlways = true, true
}

// AllowParallel lets shared builds run side by side from now on (see
// runKustomize): a render calls it once it has made ParallelAfter builds.
func (b *Builder) AllowParallel() {
	b.parallel.Store(true)
}

// Root returns the repository root (absolute).
func (b *Builder) Root() string { return b.root }

// Rel returns path relative to the repository root, slash-separated.
func (b *Builder) Rel(path string) string {
	rel, err := filepath.Rel(b.root, path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}

// Ignored reports whether source-controller leaves an absolute path of
// the checkout (a directory when dir is set) out of its artifact.
func (b *Builder) Ignored(abs string, dir bool) bool {
	return b.ignored.Match(strings.Split(abs, string(filepath.Separator)), dir)
}

// Checkout returns the View of the checkout itself.
func (b *Builder) Checkout() View { return checkoutView{b} }

// scanManifests is the package's scanManifests of a directory of the
// checkout, remembered for the render unless validate is set (the disk
// does not change while it is rendered).
func (b *Builder) scanManifests(fs filesys.FileSystem, dir string, validate bool) ([]string, error) {
	if validate {
		return scanManifests(fs, dir, true)
	}
	s := memo(&b.linesMu, b.scans, dir, func() scanned {
		files, err := scanManifests(fs, dir, false)
		return scanned{files: files, err: err}
	})
	return slices.Clone(s.files), s.err
}
