package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

// entry is one discovered Flux object.
type entry struct {
	kind      string
	manifest  Manifest
	appliedBy *tiers.ID
	done      bool
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

	rendered map[tiers.ID][]Manifest
	warnings map[string]bool
}

func newLoader(b *builder, kinds map[string]bool) *loader {
	return &loader{
		b:        b,
		kinds:    kinds,
		entries:  map[tiers.ID]*entry{},
		local:    map[tiers.ID]bool{},
		vars:     varIndex{},
		rendered: map[tiers.ID][]Manifest{},
		warnings: map[string]bool{},
	}
}

// run builds path (absolute), then every Kustomization reachable from it.
func (l *loader) run(ctx context.Context, path string) (*Result, error) {
	relPath := l.b.rel(path)
	root, notes, err := l.b.build(nil, path)
	if err != nil {
		return nil, fmt.Errorf("path %s: %w", relPath, err)
	}
	l.warn(notes...)
	sortManifests(root)
	for _, m := range root {
		l.vars.add(m)
	}
	seeds := l.discover(root, nil)
	if len(seeds) == 0 {
		l.warn(fmt.Sprintf("path %s: no Flux Kustomization found", relPath))
	}
	for _, id := range seeds {
		ks, err := l.kustomization(id)
		if err != nil {
			return nil, err
		}
		l.local[flux.FromKustomization(ks).SourceRef] = true
	}
	// The Kustomization that builds Path itself (flux-system) goes first, so
	// that the versions of the others it applies (substituted, patched)
	// replace the ones read from Path before they are built.
	sort.SliceStable(seeds, func(i, j int) bool {
		return l.buildsPath(seeds[i], path) && !l.buildsPath(seeds[j], path)
	})
	l.queue = seeds
	if err := l.drain(ctx); err != nil {
		return nil, err
	}
	return l.result(relPath, root)
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
		if err := ctx.Err(); err != nil {
			return err
		}
		id := l.queue[0]
		l.queue = l.queue[1:]
		done, err := l.process(id, force)
		if err != nil {
			return err
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
func (l *loader) process(id tiers.ID, force bool) (bool, error) {
	e := l.entries[id]
	if e.done {
		return true, nil
	}
	ks, err := l.kustomization(id)
	if err != nil {
		return false, err
	}
	if src := flux.FromKustomization(ks).SourceRef; !l.local[src] {
		l.warn(fmt.Sprintf("%s: builds from %s, not from the source of the path; not rendered", id, src))
		e.done = true
		return true, nil
	}
	if !force && !refsPresent(ks, l.vars) {
		return false, nil
	}
	dir, err := l.resolvePath(id, ks, e.manifest.File)
	if err != nil {
		return false, err
	}
	out, notes, err := l.b.build(e.manifest.Object.Object, dir)
	if err != nil {
		return false, fmt.Errorf("%s: %w", id, err)
	}
	l.warn(notes...)
	if err := l.postBuild(id, ks, out); err != nil {
		return false, err
	}
	sortManifests(out)
	for _, m := range out {
		l.vars.add(m)
	}
	l.rendered[id] = out
	e.done = true
	l.queue = append(l.queue, l.discover(out, &id)...)
	return true, nil
}

// postBuild runs variable substitution on a Kustomization's output when the
// Kustomization declares spec.postBuild, as kustomize-controller does.
func (l *loader) postBuild(id tiers.ID, ks *kustomizev1.Kustomization, out []Manifest) error {
	if ks.Spec.PostBuild == nil {
		return nil
	}
	vars, missing := postBuildVars(ks, l.vars)
	for _, ref := range missing {
		l.warn(fmt.Sprintf("%s: substituteFrom %s not found in the repository", id, ref))
	}
	always := ks.GetSubstituteStrategy() == kustomizev1.SubstituteStrategyAlways
	if len(vars) == 0 && !always {
		return nil
	}
	for _, m := range out {
		unresolved, err := substitute(m.Object, vars)
		if err != nil {
			return fmt.Errorf("%s: post build failed for %s (%s): %w", id, describe(m.Object), orUnknown(m.File), err)
		}
		for _, name := range unresolved {
			l.warn(fmt.Sprintf("%s: variable ${%s} is not defined; left as-is", id, name))
		}
	}
	return nil
}

// discover records the Flux objects among manifests, applied by parent (nil
// for the build of Path), and returns the new Kustomizations, sorted.
func (l *loader) discover(manifests []Manifest, parent *tiers.ID) []tiers.ID {
	var added []tiers.ID
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
		switch {
		case !known:
			l.entries[id] = &entry{kind: kind, manifest: m, appliedBy: copyID(parent)}
			if kind == KindKustomization {
				added = append(added, id)
			}
		case parent == nil:
		case e.appliedBy == nil:
			e.appliedBy = copyID(parent)
			if !e.done {
				e.manifest = m
			}
		case *e.appliedBy != *parent:
			l.warn(fmt.Sprintf("%s: applied by both %s and %s", id, *e.appliedBy, *parent))
		}
	}
	sort.Slice(added, func(i, j int) bool { return added[i].Less(added[j]) })
	return added
}

// kustomization decodes a discovered Kustomization.
func (l *loader) kustomization(id tiers.ID) (*kustomizev1.Kustomization, error) {
	e := l.entries[id]
	ks, err := toKustomization(e.manifest.Object)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", orUnknown(e.manifest.File), id, err)
	}
	return ks, nil
}

// resolvePath resolves spec.path against the repository root the way
// kustomize-controller does (securejoin: the path cannot climb out of the
// root) and checks that it exists.
func (l *loader) resolvePath(id tiers.ID, ks *kustomizev1.Kustomization, file string) (string, error) {
	dir := filepath.Join(l.b.root, filepath.Clean(string(filepath.Separator)+filepath.FromSlash(ks.Spec.Path)))
	info, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("%s: kustomization path not found: %s (defined in %s): %w", id, ks.Spec.Path, orUnknown(file), err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%s: kustomization path is not a directory: %s (defined in %s)", id, ks.Spec.Path, orUnknown(file))
	}
	return dir, nil
}

// buildsPath reports whether the Kustomization id builds path (absolute).
func (l *loader) buildsPath(id tiers.ID, path string) bool {
	ks, err := l.kustomization(id)
	if err != nil {
		return false
	}
	dir := filepath.Join(l.b.root, filepath.Clean(string(filepath.Separator)+filepath.FromSlash(ks.Spec.Path)))
	return dir == path
}

// copyID returns a pointer to a copy of *id, or nil.
func copyID(id *tiers.ID) *tiers.ID {
	if id == nil {
		return nil
	}
	c := *id
	return &c
}

func (l *loader) warn(msgs ...string) {
	for _, m := range msgs {
		l.warnings[m] = true
	}
}

// result assembles the Result, sorted.
func (l *loader) result(relPath string, root []Manifest) (*Result, error) {
	res := &Result{
		RepoRoot:    l.b.root,
		Path:        relPath,
		Definitions: map[tiers.ID]Manifest{},
		Rendered:    l.rendered,
		Root:        root,
	}
	for id, e := range l.entries {
		if !l.kinds[e.kind] {
			continue
		}
		obj, err := toObject(e.kind, e.manifest.Object)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", orUnknown(e.manifest.File), id, err)
		}
		obj.File = e.manifest.File
		obj.AppliedBy = e.appliedBy
		res.Objects = append(res.Objects, obj)
		res.Definitions[id] = e.manifest
	}
	sort.Slice(res.Objects, func(i, j int) bool { return res.Objects[i].ID.Less(res.Objects[j].ID) })
	for w := range l.warnings {
		res.Warnings = append(res.Warnings, w)
	}
	sort.Strings(res.Warnings)
	return res, nil
}

// sortManifests orders manifests by kind, namespace, name and apiVersion.
func sortManifests(ms []Manifest) {
	key := func(m Manifest) string {
		u := m.Object
		return strings.Join([]string{u.GetKind(), u.GetNamespace(), u.GetName(), u.GetAPIVersion()}, "\x00")
	}
	slices.SortStableFunc(ms, func(a, b Manifest) int { return strings.Compare(key(a), key(b)) })
}
