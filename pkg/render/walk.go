package render

import (
	"context"
	"errors"
	"fmt"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"

	"github.com/kubestandup/standup/internal/input"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render/kbuild"
	"github.com/kubestandup/standup/pkg/tiers"
)

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

// process builds one Kustomization, or expands one ResourceSet, and queues
// the appliers it applies. It returns false when the build must wait for
// substituteFrom objects.
func (l *loader) process(ctx context.Context, id tiers.ID, force bool) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	e := l.entries[id]
	if e.done {
		return true, nil
	}
	if e.kind == KindResourceSet {
		return l.expandSet(id, e)
	}
	ks, err := l.kustomization(id)
	if err != nil {
		return false, err
	}
	v, done := l.source(id, e, ks, force)
	if v == nil {
		return done, nil
	}
	var dir string
	if a, ok := v.(*kbuild.ArtifactView); ok {
		dir, err = l.artifactDir(id, a, ks, e.manifest.File)
	} else {
		dir, err = l.resolvePath(id, ks, e.manifest.File)
	}
	if err != nil {
		return false, err
	}
	return l.render(id, e, ks, v, dir)
}

// source returns the View the Kustomization id builds in: the checkout,
// or the tree of the ExternalArtifact it builds from. It returns nil and
// true, the entry done, when it is not rendered: it has no sourceRef, or
// a source the checkout does not stand for (noted). It returns nil and
// false while it must wait: for the generator of its ExternalArtifact or
// for its substituteFrom objects, which a build still to come may hold.
func (l *loader) source(id tiers.ID, e *entry, ks *kustomizev1.Kustomization, force bool) (kbuild.View, bool) {
	if ks.Spec.SourceRef.Kind == "" || ks.Spec.SourceRef.Name == "" {
		by := "the Kustomization that applies it"
		if e.appliedBy != nil {
			by = e.appliedBy.String()
		}
		l.warn(fmt.Sprintf("%s (%s): spec.sourceRef is missing; the API server rejects the object (the field is required), so the apply of %s fails; not rendered",
			id, kbuild.OrUnknown(e.manifest.File), by))
		e.done = true
		return nil, true
	}
	var v kbuild.View = l.b.Checkout()
	src := flux.KustomizationSource(ks)
	if src.Kind == kbuild.KindExternalArtifact {
		a, known := l.artifact(src)
		if !known && !force {
			return nil, false // its generator may be in a build still to come
		}
		if a.view == nil {
			l.foreign[id], l.foreignWhy[id] = flux.FromKustomization(ks), a.why
			e.done = true
			return nil, true
		}
		v = a.view
	} else if !l.local[src] {
		l.foreign[id] = flux.FromKustomization(ks)
		e.done = true
		return nil, true
	}
	if !force && !l.vars.RefsPresent(ks) {
		return nil, false
	}
	return v, false
}

// render builds the Kustomization id in dir of v, substitutes its
// variables, indexes what it renders and queues the Kustomizations it
// applies. A file over a limit of bounded input fails it alone.
func (l *loader) render(id tiers.ID, e *entry, ks *kustomizev1.Kustomization, v kbuild.View, dir string) (bool, error) {
	if l.builds++; l.builds == kbuild.ParallelAfter {
		l.b.AllowParallel()
	}
	out, err := l.build(id, v, e.manifest.Object, dir)
	if lim, ok := input.IsLimit(err); ok {
		return l.fail(id, lim)
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", id, err)
	}
	l.noteSkipped(out)
	if len(out.Remote) > 0 {
		l.remote[id] = out.Remote
	}
	warnings, err := l.b.PostBuild(id, ks, l.vars, l.sops, out)
	l.warn(warnings...)
	if lim, ok := input.IsLimit(err); ok {
		return l.fail(id, lim)
	}
	if err != nil {
		return false, err
	}
	manifests := out.Manifests()
	sortManifests(manifests)
	for _, m := range manifests {
		l.index(m)
	}
	l.rendered[id] = manifests
	e.done = true
	l.queue = append(l.queue, l.discover(manifests, &id)...)
	l.queue = append(l.queue, l.discover(l.syncs(manifests), nil)...)
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
	var malformed *kbuild.MalformedError
	if errors.As(err, &malformed) && malformed.File != "" {
		file, line = malformed.File, l.b.DocumentLine(malformed.File, malformed.Index)
	}
	// The failure names the Kustomization and its file already.
	name := id.String() + ": "
	l.failed = append(l.failed, BuildFailure{ID: id, File: file, Line: line, Err: withoutPrefix(err, kbuild.OrUnknown(e.manifest.File)+": "+name, name)})
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
