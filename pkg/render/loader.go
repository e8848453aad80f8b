package render

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"

	"github.com/kubestandup/standup/internal/input"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// entry is one discovered Flux object.
type entry struct {
	kind      string
	manifest  Manifest
	appliedBy *tiers.ID
	done      bool
	// ks caches the decoded manifest of a Kustomization.
	ks *kustomizev1.Kustomization
}

// loader walks the Kustomization graph of one repository.
type loader struct {
	b     *builder
	kinds map[string]bool

	entries  map[tiers.ID]*entry
	queue    []tiers.ID
	deferred []tiers.ID
	// progressed is true when a Kustomization was built since the deferred
	// ones were last retried.
	progressed bool
	// local holds the sources that Path's own Kustomizations build from:
	// the sources this checkout stands for.
	local map[tiers.ID]bool
	vars  varIndex
	// sops holds the Kind/namespace/name of the SOPS documents skipped.
	sops map[tiers.ID]bool

	rendered map[tiers.ID][]Manifest
	warnings map[string]bool
	// sources holds the Flux sources the checkout defines; foreign, the
	// Kustomizations left unrendered because they build from another source.
	sources map[tiers.ID]bool
	foreign map[tiers.ID]flux.Object
	// foreignWhy says why a foreign Kustomization's ExternalArtifact is not
	// rendered although a generator of the checkout produces it.
	foreignWhy map[tiers.ID]string
	// generators holds the ArtifactGenerators of the rendered output;
	// artifacts, the ExternalArtifacts resolved so far.
	generators map[tiers.ID]*artifactGenerator
	artifacts  map[tiers.ID]artifactSource
	// ahead holds the ExternalArtifacts resolved for builds run ahead.
	ahead  map[tiers.ID]aheadArtifact
	remote map[tiers.ID][]string
	// futures holds the builds run ahead of the walk (prefetch.go); nil
	// once used. waiting counts those not yet used (counting them in the
	// map was quadratic in a repository's Kustomizations). builds counts
	// the builds the walk made.
	futures map[tiers.ID]*future
	waiting int
	builds  int
	// failed holds the Kustomizations whose build read a file over a limit.
	failed []BuildFailure
	// sopsNamespaces maps "file: Kind/name" of a skipped SOPS document to
	// the namespaces it was rendered into.
	sopsNamespaces map[string]map[string]bool
}

func newLoader(b *builder, kinds map[string]bool) *loader {
	return &loader{
		b:        b,
		kinds:    kinds,
		entries:  map[tiers.ID]*entry{},
		local:    map[tiers.ID]bool{},
		vars:     varIndex{},
		sops:     map[tiers.ID]bool{},
		rendered: map[tiers.ID][]Manifest{},
		warnings: map[string]bool{},
		sources:  map[tiers.ID]bool{},
		foreign:  map[tiers.ID]flux.Object{},
		remote:   map[tiers.ID][]string{},

		foreignWhy: map[tiers.ID]string{},
		generators: map[tiers.ID]*artifactGenerator{},
		artifacts:  map[tiers.ID]artifactSource{},
		ahead:      map[tiers.ID]aheadArtifact{},
		futures:    map[tiers.ID]*future{},

		sopsNamespaces: map[string]map[string]bool{},
	}
}

// index records what later builds look up in a rendered object: postBuild
// variables, the Flux sources the checkout defines and the
// ArtifactGenerators that compose ExternalArtifacts from them.
func (l *loader) index(m Manifest) {
	l.vars.add(m)
	u := m.Object
	switch {
	case strings.HasPrefix(u.GetAPIVersion(), sourceGroup+"/"):
		l.sources[tiers.ID{Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}] = true
	case isArtifactGenerator(u):
		l.indexGenerator(m)
	}
}

// sourceGroup is the API group of Flux's sources.
const sourceGroup = "source.toolkit.fluxcd.io"

// run builds path (absolute), then every Kustomization reachable from it.
func (l *loader) run(ctx context.Context, path string) (*Result, error) {
	relPath := l.b.rel(path)
	out, err := l.b.build(nil, path)
	if err != nil {
		return nil, fmt.Errorf("path %s: %w", relPath, err)
	}
	root := manifestsOf(out.objects)
	l.noteSkipped(out)
	sortManifests(root)
	for _, m := range root {
		l.index(m)
	}
	if err := l.seed(ctx, root, path, relPath); err != nil {
		return nil, err
	}
	defer l.drainFutures()
	if err := l.drain(ctx); err != nil {
		return nil, err
	}
	return l.result(relPath, root)
}

// seed records the Flux objects of Path's build and queues the
// Kustomizations to start from. When some of them build Path itself (the
// flux-system Kustomization of a bootstrapped cluster), the cluster's objects
// are what those build: they are the only starting points, and the others are
// dropped, to be found again, patched and substituted, in their build. The
// sources of the starting points are the sources this checkout stands for.
// When every one of those fails alone, the others are what is left to know:
// they start from Path's build, as written there.
func (l *loader) seed(ctx context.Context, root []Manifest, path, relPath string) error {
	seeds := l.discover(root, nil)
	if len(seeds) == 0 {
		l.warn(fmt.Sprintf("path %s: no Flux Kustomization found", relPath))
	}
	var self []tiers.ID
	undecodable := map[tiers.ID]error{}
	for _, id := range seeds {
		builds, err := l.buildsPath(id, path)
		if err != nil {
			undecodable[id] = err
			continue
		}
		if builds {
			self = append(self, id)
		}
	}
	if len(self) == 0 {
		for _, id := range seeds {
			if err, ok := undecodable[id]; ok {
				l.failAlone(id, err)
			}
		}
		l.markLocal(seeds, false)
		l.queue = seeds
		return nil
	}
	dropped := map[tiers.ID]*entry{}
	for id, e := range l.entries {
		if !slices.Contains(self, id) && e.appliedBy == nil {
			dropped[id] = e
			delete(l.entries, id)
		}
	}
	l.markLocal(self, true)
	failed := 0
	for _, id := range self {
		// Their substituteFrom objects can only come from Path's build,
		// which is indexed already: build them now; they queue the rest.
		if _, err := l.process(ctx, id, true); err != nil {
			if ctx.Err() != nil {
				return err
			}
			l.failAlone(id, err)
			failed++
		}
	}
	if failed == len(self) {
		l.restore(dropped, self)
	}
	return nil
}

// restore starts from the objects of Path's build that the Kustomizations
// building Path would have applied, had they not all failed: unpatched and
// unsubstituted, they are still the best view of the rest.
func (l *loader) restore(dropped map[tiers.ID]*entry, self []tiers.ID) {
	var rest []tiers.ID
	for id, e := range dropped {
		if _, found := l.entries[id]; found {
			continue
		}
		l.entries[id] = e
		if e.kind == KindKustomization {
			rest = append(rest, id)
		}
	}
	if len(rest) == 0 {
		return
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i].Less(rest[j]) })
	l.markLocal(rest, false)
	l.queue = append(l.queue, rest...)
	names := make([]string, len(self))
	for i, id := range self {
		names[i] = id.String()
	}
	l.warn(fmt.Sprintf("%s failed: the Kustomizations of the path are rendered as its files hold them, without the patches and substitutions it would apply",
		strings.Join(names, ", ")))
}

// markLocal records the sources of the starting points as the sources this
// checkout stands for. When none of them builds Path itself, the checkout is
// anchored by nothing but its being a git checkout: only GitRepository
// sources stand for it, and a Kustomization of the same directory that builds
// from an OCIRepository or Bucket (Flux's own manifests, another team's
// artifact) is left unrendered rather than built from the wrong files. A
// directory whose Kustomizations build from no GitRepository at all (an OCI
// artifact pushed from this checkout) keeps them all. An ExternalArtifact
// never stands for the checkout: the sources its generator copies from do,
// when Path's build holds that generator.
func (l *loader) markLocal(seeds []tiers.ID, anchored bool) {
	sources := map[tiers.ID]bool{}
	fromGit := false
	for _, id := range seeds {
		ks, err := l.kustomization(id)
		if err != nil {
			continue // failed alone already, in seed
		}
		for _, src := range l.seedSources(flux.KustomizationSource(ks)) {
			sources[src] = true
			fromGit = fromGit || src.Kind == sourceGitRepository
		}
	}
	for src := range sources {
		if anchored || !fromGit || src.Kind == sourceGitRepository {
			l.local[src] = true
		}
	}
}

// sourceGitRepository is the source kind a git checkout stands for.
const sourceGitRepository = "GitRepository"

// warnForeign explains each Kustomization left unrendered. A source the
// checkout does not define at all is worth a closer look: the common slip is
// a sourceRef without namespace, which Flux resolves in the Kustomization's
// own namespace.
func (l *loader) warnForeign() {
	for id, obj := range l.foreign {
		src := obj.SourceRef
		if why := l.foreignWhy[id]; why != "" {
			l.warn(fmt.Sprintf("%s: builds from %s, %s; not rendered", id, src, why))
			continue
		}
		if l.sources[src] {
			l.warn(fmt.Sprintf("%s: builds from %s, not from the source of the path; not rendered", id, src))
			continue
		}
		msg := fmt.Sprintf("%s: builds from %s, which the checkout does not define; not rendered", id, src)
		if ks, err := l.kustomization(id); err == nil && ks.Spec.SourceRef.Namespace == "" {
			var namespaces []string
			for other := range l.sources {
				if other.Kind == src.Kind && other.Name == src.Name && other.Namespace != src.Namespace && l.local[other] {
					namespaces = append(namespaces, other.Namespace)
				}
			}
			if len(namespaces) > 0 {
				ns := slices.Min(namespaces) // the same message on every run
				msg += fmt.Sprintf(" (its sourceRef has no namespace, so Flux looks in %s; the checkout's %s is in %s: set sourceRef.namespace: %s)",
					src.Namespace, src.Name, ns, ns)
			}
		}
		l.warn(msg)
	}
}

// drain processes the queue. A Kustomization whose substituteFrom objects
// have not been rendered yet waits until the others have been built; when
// nothing else can make progress, the first waiting one is built without them.
func (l *loader) drain(ctx context.Context) error {
	force := false
	for {
		if len(l.queue) == 0 {
			if len(l.deferred) == 0 {
				return nil
			}
			l.queue, l.deferred = l.deferred, nil
			force = !l.progressed
			l.progressed = false
		}
		id := l.queue[0]
		l.queue = l.queue[1:]
		l.prefetch()
		done, err := l.process(ctx, id, force)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			// Flux fails this Kustomization alone: so does the render.
			done = l.failAlone(id, err)
		}
		force = false
		if done {
			l.progressed = true
		} else {
			l.deferred = append(l.deferred, id)
		}
	}
}

// process builds one Kustomization and queues the Kustomizations it applies.
// It returns false when the build must wait for substituteFrom objects.
func (l *loader) process(ctx context.Context, id tiers.ID, force bool) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	e := l.entries[id]
	if e.done {
		return true, nil
	}
	ks, err := l.kustomization(id)
	if err != nil {
		return false, err
	}
	if ks.Spec.SourceRef.Kind == "" || ks.Spec.SourceRef.Name == "" {
		by := "the Kustomization that applies it"
		if e.appliedBy != nil {
			by = e.appliedBy.String()
		}
		l.warn(fmt.Sprintf("%s (%s): spec.sourceRef is missing; the API server rejects the object (the field is required), so the apply of %s fails; not rendered",
			id, orUnknown(e.manifest.File), by))
		e.done = true
		return true, nil
	}
	var v view = checkoutView{l.b}
	src := flux.KustomizationSource(ks)
	if src.Kind == kindExternalArtifact {
		a, known := l.artifact(src)
		if !known && !force {
			return false, nil // its generator may be in a build still to come
		}
		if a.view == nil {
			l.foreign[id], l.foreignWhy[id] = flux.FromKustomization(ks), a.why
			e.done = true
			return true, nil
		}
		v = a.view
	} else if !l.local[src] {
		l.foreign[id] = flux.FromKustomization(ks)
		e.done = true
		return true, nil
	}
	if !force && !refsPresent(ks, l.vars) {
		return false, nil
	}
	var dir string
	if a, ok := v.(*artifactView); ok {
		dir, err = l.artifactDir(id, a, ks, e.manifest.File)
	} else {
		dir, err = l.resolvePath(id, ks, e.manifest.File)
	}
	if err != nil {
		return false, err
	}
	if l.builds++; l.builds == parallelAfter {
		l.b.parallel.Store(true)
	}
	out, err := l.build(id, v, e.manifest.Object, dir)
	if lim, ok := input.IsLimit(err); ok {
		return l.fail(id, lim)
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", id, err)
	}
	l.noteSkipped(out)
	if len(out.remote) > 0 {
		l.remote[id] = out.remote
	}
	err = l.postBuild(id, ks, out.objects)
	if lim, ok := input.IsLimit(err); ok {
		return l.fail(id, lim)
	}
	if err != nil {
		return false, err
	}
	manifests := manifestsOf(out.objects)
	sortManifests(manifests)
	for _, m := range manifests {
		l.index(m)
	}
	l.rendered[id] = manifests
	e.done = true
	l.queue = append(l.queue, l.discover(manifests, &id)...)
	return true, nil
}

// fail records that the build of id read a file over a limit: the
// Kustomization fails alone, and nothing it would apply is known.
func (l *loader) fail(id tiers.ID, lim *input.LimitError) (bool, error) {
	l.failed = append(l.failed, BuildFailure{ID: id, File: lim.File, Err: lim})
	l.entries[id].done = true
	return true, nil
}

// failAlone records that the Kustomization id cannot be rendered for a
// reason of its own, as kustomize-controller would fail it alone: it does
// not decode, its spec.path is missing, its build or its postBuild
// substitution fails. The file named is the malformed file when one is
// found, else the file defining the Kustomization. It returns true: the
// Kustomization is done with.
func (l *loader) failAlone(id tiers.ID, err error) bool {
	e := l.entries[id]
	file, line := e.manifest.File, e.manifest.Line
	var malformed *MalformedError
	if errors.As(err, &malformed) && malformed.File != "" {
		file, line = malformed.File, l.b.documentLine(malformed.File, malformed.Index)
	}
	// The failure names the Kustomization and its file already.
	name := id.String() + ": "
	l.failed = append(l.failed, BuildFailure{ID: id, File: file, Line: line, Err: withoutPrefix(err, orUnknown(e.manifest.File)+": "+name, name)})
	e.done = true
	return true
}

// prefixedError is an error whose message drops the first of its prefixes
// it starts with, which the caller says already (the Kustomization's name
// and file); errors.Is and errors.As see the error underneath.
type prefixedError struct {
	err      error
	prefixes []string
}

func withoutPrefix(err error, prefixes ...string) error {
	return &prefixedError{err: err, prefixes: prefixes}
}

func (e *prefixedError) Error() string {
	msg := e.err.Error()
	for _, p := range e.prefixes {
		if rest, ok := strings.CutPrefix(msg, p); ok {
			return rest
		}
	}
	return msg
}

func (e *prefixedError) Unwrap() error { return e.err }

// discover records the Flux objects among manifests, applied by parent (nil
// for the build of Path), and returns the new Kustomizations, sorted.
func (l *loader) discover(manifests []Manifest, parent *tiers.ID) []tiers.ID {
	var added []tiers.ID
	seen := map[tiers.ID]bool{}
	for _, m := range manifests {
		kind := fluxKind(m.Object)
		if kind == "" {
			continue
		}
		id := idOf(kind, m.Object)
		if id.Namespace == "" {
			l.warn(fmt.Sprintf("%s: %s/%s has no namespace; kustomize-controller would fail to apply it (namespace not specified); skipped",
				orUnknown(m.File), kind, id.Name))
			continue
		}
		if parent != nil && id == *parent {
			continue
		}
		e, known := l.entries[id]
		twice := seen[id]
		seen[id] = true
		switch {
		case !known:
			l.entries[id] = &entry{kind: kind, manifest: m, appliedBy: copyID(parent)}
			if kind == KindKustomization {
				added = append(added, id)
			}
		case twice:
			// Twice in one build: their names differed before substitution.
			l.warnCollision(id, e, m, parent)
		case parent == nil:
		case e.appliedBy == nil:
			e.appliedBy = copyID(parent)
			if !e.done {
				e.manifest, e.ks = m, nil
			}
		case *e.appliedBy != *parent && len(unknownVars(id)) > 0:
			l.warnCollision(id, e, m, parent)
		case *e.appliedBy != *parent:
			l.warn(fmt.Sprintf("%s: applied by both %s and %s", id, *e.appliedBy, *parent))
		}
	}
	sort.Slice(added, func(i, j int) bool { return added[i].Less(added[j]) })
	return added
}

// warnCollision notes two objects that are one node here. When an unknown
// variable, shown as written, is all their names share, Flux may well see
// two; that is said, naming both and the variable. Any other collision of
// one build is kustomize-controller's to report, as before.
func (l *loader) warnCollision(id tiers.ID, first *entry, m Manifest, parent *tiers.ID) {
	vars := unknownVars(id)
	if len(vars) == 0 {
		return
	}
	by := func(applier *tiers.ID) string {
		if applier == nil {
			return "the build of the path"
		}
		return applier.String()
	}
	l.warn(fmt.Sprintf("%s: %s (applied by %s) and %s (applied by %s) are one node here only because %s has no value offline",
		id, orUnknown(first.manifest.File), by(first.appliedBy), orUnknown(m.File), by(parent), strings.Join(vars, ", ")))
}

// unknownVars returns the references shown as written in an ID's
// namespace and name: variables without a value offline (an object's
// name cannot hold "${" otherwise).
func unknownVars(id tiers.ID) []string {
	var out []string
	for _, s := range []string{id.Namespace, id.Name} {
		for _, ref := range writtenRef.FindAllString(s, -1) {
			if !slices.Contains(out, ref) {
				out = append(out, ref)
			}
		}
	}
	return out
}

// writtenRef matches a ${...} reference left as written.
var writtenRef = regexp.MustCompile(`\$\{[^}]*\}`)

// kustomization decodes a discovered Kustomization, once.
func (l *loader) kustomization(id tiers.ID) (*kustomizev1.Kustomization, error) {
	e := l.entries[id]
	if e.ks != nil {
		return e.ks, nil
	}
	ks, err := toKustomization(e.manifest.Object)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", orUnknown(e.manifest.File), id, err)
	}
	e.ks = ks
	return ks, nil
}

// resolvePath resolves spec.path and checks that it exists.
func (l *loader) resolvePath(id tiers.ID, ks *kustomizev1.Kustomization, file string) (string, error) {
	dir := l.specDir(ks)
	info, err := os.Stat(dir)
	if err != nil {
		if cause := errors.Unwrap(err); cause != nil {
			err = cause
		}
		if strings.Contains(ks.Spec.Path, "${") {
			parent := "the Kustomization that applies it"
			if by := l.entries[id].appliedBy; by != nil {
				parent = by.String()
			}
			return "", fmt.Errorf("%s: kustomization path not found: %s (defined in %s): a variable in it is not defined; define it in the postBuild of %s", id, ks.Spec.Path, orUnknown(file), parent)
		}
		return "", fmt.Errorf("%s: kustomization path not found: %s (defined in %s): %w", id, ks.Spec.Path, orUnknown(file), err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%s: kustomization path is not a directory: %s (defined in %s)", id, ks.Spec.Path, orUnknown(file))
	}
	return dir, nil
}

// buildsPath reports whether the Kustomization id builds path (absolute).
func (l *loader) buildsPath(id tiers.ID, path string) (bool, error) {
	ks, err := l.kustomization(id)
	if err != nil {
		return false, err
	}
	return l.specDir(ks) == path, nil
}

// specDir resolves spec.path against the repository root the way
// kustomize-controller does (securejoin: the path cannot climb out of the root).
func (l *loader) specDir(ks *kustomizev1.Kustomization) string {
	return filepath.Join(l.b.root, filepath.Clean(string(filepath.Separator)+filepath.FromSlash(ks.Spec.Path)))
}
