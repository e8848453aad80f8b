package render

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render/kbuild"
	"github.com/kubestandup/standup/pkg/tiers"
)

// ConfigFile is the name of standup's repository configuration file. Its
// presence marks a repository root, like .git does.
const ConfigFile = "standup.yaml"

// ErrNoRepoRoot is returned when no repository root was given and none was
// found above the path.
var ErrNoRepoRoot = errors.New("no repository root found")

// Options says what Load reads.
type Options struct {
	// Path is the directory holding the cluster's Flux Kustomization
	// objects, for example clusters/prod. A relative path is resolved
	// against the working directory.
	Path string
	// RepoRoot is the directory that spec.path values are relative to: the
	// root of the source artifact. When empty, it is the nearest directory
	// at or above Path that holds .git or standup.yaml (see FindRepoRoot).
	RepoRoot string
	// Kinds selects the Flux kinds reported in Result.Objects:
	// KindKustomization (the default when empty) and KindHelmRelease.
	// Kustomizations are followed whatever Kinds says.
	Kinds []string
}

// Manifest is one rendered object and the file it came from: the builder's
// (kbuild.Manifest), which every field of Result holds.
type Manifest = kbuild.Manifest

// Result is the offline view of a cluster: the Flux objects it would have and
// everything each Kustomization would apply.
type Result struct {
	// RepoRoot is the absolute repository root used.
	RepoRoot string
	// GitRoot is the root of the git repository holding RepoRoot: the
	// nearest directory at or above it with .git, RepoRoot itself when
	// there is none. Code-scanning UIs name files from there.
	GitRoot string
	// Path is Options.Path relative to RepoRoot, slash-separated.
	Path string
	// Objects are the Flux objects discovered, sorted by ID (namespace,
	// name, kind), with File and AppliedBy set. AppliedBy is nil for an
	// object that only the build of Path produces, and never points at the
	// object itself.
	Objects []flux.Object
	// Definitions holds each object of Objects as it was rendered (after its
	// parent's build and substitution), with its file. Callers read spec
	// fields the node does not carry (postBuild, healthChecks) from it.
	Definitions map[tiers.ID]Manifest
	// Rendered holds, for each Kustomization built from this repository,
	// every object its build produces after patches, images,
	// targetNamespace, namePrefix/nameSuffix, components and postBuild
	// substitution, sorted by kind, namespace, name and apiVersion.
	// Kustomizations that build from another source have no entry.
	Rendered map[tiers.ID][]Manifest
	// Root holds the objects of the build of Path itself.
	Root []Manifest
	// Remote lists, for each Kustomization whose build left something out
	// because it would be fetched over the network, what it left out
	// ("file: remote resource URL"). Its output may lack objects (CRDs
	// among them) that Flux would apply.
	Remote map[tiers.ID][]string
	// Warnings are the notes of an incomplete offline view (unresolved
	// variables, SOPS documents skipped, foreign sources), sorted.
	Warnings []string
	// Failed lists the Kustomizations that kustomize-controller would fail
	// alone, sorted by ID (see BuildFailure). They are among Objects but
	// have no Rendered entry, and what they would apply (Kustomizations
	// included) is missing from the result.
	Failed []BuildFailure
}

// BuildFailure is a Kustomization left unrendered for a reason of its own,
// which kustomize-controller would fail it for too while the rest of the
// repository reconciles: it does not decode (a label that is not a
// string, a spec of the wrong shape); its spec.path is not in its source;
// its build fails (a malformed file, a Component listed as a resource) or
// reads a file over a limit of bounded input (see internal/input: not a
// regular file, larger than 16 MiB, YAML that explodes once its aliases
// are expanded); its postBuild substitution fails or would exceed the
// bounds of Flux's envsubst. With Options.Kinds holding HelmRelease, a
// HelmRelease whose spec does not decode is one too (the API server
// rejects it, failing the apply of the Kustomization applying it). The
// rest of the repository is rendered without it. An object that does not
// decode is a node of Objects with its ID alone.
type BuildFailure struct {
	// ID is the Kustomization (or the HelmRelease).
	ID tiers.ID
	// File is the file at fault, relative to the repository root: the file
	// refused or malformed, else the file defining the Kustomization.
	File string
	// Line is where in File: the malformed document, or the Kustomization's
	// own; 0 for the whole file (one refused).
	Line int
	// Err says why.
	Err error
}

// Error renders the failure on one line as `Kind/namespace/name not
// rendered: reason`, naming the file when the reason does not.
func (f BuildFailure) Error() string {
	reason := strings.Join(strings.Fields(f.Err.Error()), " ")
	if f.File != "" && !strings.Contains(reason, f.File) {
		return fmt.Sprintf("%s not rendered (%s): %s", f.ID, f.File, reason)
	}
	return fmt.Sprintf("%s not rendered: %s", f.ID, reason)
}

// Load derives, from files only, the Flux objects a cluster would have:
// it builds Path, then follows every Kustomization it finds the way
// kustomize-controller would, recursively. A Kustomization that Flux would
// fail alone (it does not decode, its spec.path is missing, its build or
// substitution fails) fails alone here too, in Result.Failed, and the rest
// is rendered. Only what concerns the whole input fails the load: Path or
// the repository root missing or unreadable, a build of Path itself that
// fails (the file it names is a *kbuild.MalformedError or an *input.LimitError),
// a .sourceignore over a limit, a cancelled ctx.
func Load(ctx context.Context, opts Options) (*Result, error) {
	return load(ctx, opts, false)
}

// load is Load; exact turns off every shortcut the render takes around
// kustomize and Flux's own code (kbuild.Builder.Exact), so that tests can
// hold the shortcuts to what they stand for.
func load(ctx context.Context, opts Options, exact bool) (*Result, error) {
	kinds, err := normalizeKinds(opts.Kinds)
	if err != nil {
		return nil, err
	}
	path, root, err := resolvePaths(opts.Path, opts.RepoRoot)
	if err != nil {
		return nil, err
	}
	b, err := kbuild.New(root)
	if err != nil {
		return nil, err
	}
	if exact {
		b.Exact()
	}
	defer lessGC()()
	stopCapture := kbuild.CapturePrints()
	res, err := newLoader(b, kinds).run(ctx, path)
	loose := stopCapture()
	if err != nil {
		return nil, &relativeError{err: err, root: root + string(filepath.Separator)}
	}
	for _, line := range loose {
		res.Warnings = append(res.Warnings, line+" (kustomize)")
	}
	for i := range res.Failed {
		res.Failed[i].Err = &relativeError{err: res.Failed[i].Err, root: root + string(filepath.Separator)}
	}
	res.GitRoot = gitRoot(root)
	sort.Strings(res.Warnings)
	return res, nil
}

// relativeError words err with paths relative to the repository root, as
// every other message names files; kustomize's own errors carry absolute
// paths. errors.Is and errors.As see the error underneath.
type relativeError struct {
	err  error
	root string
}

func (e *relativeError) Error() string { return strings.ReplaceAll(e.err.Error(), e.root, "") }
func (e *relativeError) Unwrap() error { return e.err }

// FindRepoRoot returns the nearest directory at or above dir that holds .git
// (a directory or a file) or standup.yaml. It wraps ErrNoRepoRoot when there
// is none.
func FindRepoRoot(dir string) (string, error) {
	abs, err := canonical(dir)
	if err != nil {
		return "", err
	}
	for current := abs; ; {
		for _, marker := range []string{".git", ConfigFile} {
			if _, err := os.Stat(filepath.Join(current, marker)); err == nil {
				return current, nil
			}
		}
		parent := filepath.Dir(current)
		if parent == current {
			return "", fmt.Errorf("%w: no .git or %s in or above %s; give the repository root explicitly (--repo-root)",
				ErrNoRepoRoot, ConfigFile, abs)
		}
		current = parent
	}
}

// gitRoot returns the nearest directory at or above root (absolute) that
// holds .git, or root when none does.
func gitRoot(root string) string {
	for dir := root; ; {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return root
		}
		dir = parent
	}
}

// resolvePaths returns Path and the repository root as absolute paths with
// symlinks resolved, and checks that Path is a directory inside the root.
func resolvePaths(path, root string) (string, string, error) {
	if path == "" {
		return "", "", errors.New("path is empty")
	}
	absPath, err := canonical(path)
	if err != nil {
		return "", "", err
	}
	if info, err := os.Stat(absPath); err != nil || !info.IsDir() {
		return "", "", fmt.Errorf("path %s: not a directory", path)
	}
	if root == "" {
		root, err = FindRepoRoot(absPath)
	} else {
		root, err = canonical(root)
	}
	if err != nil {
		return "", "", err
	}
	rel, err := filepath.Rel(root, absPath)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", "", fmt.Errorf("path %s is outside the repository root %s", path, root)
	}
	return absPath, root, nil
}

// canonical returns path as an absolute path with symlinks resolved.
func canonical(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("path %s: %w", path, err)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		// The *PathError would repeat the path, absolute; name it as given.
		var pathErr *iofs.PathError
		if errors.As(err, &pathErr) {
			err = pathErr.Err
		}
		return "", fmt.Errorf("path %s: %w", path, err)
	}
	return resolved, nil
}
