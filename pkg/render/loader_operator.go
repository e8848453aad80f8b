package render

import (
	"fmt"
	"slices"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render/kbuild"
	"github.com/kubestandup/standup/pkg/render/operator"
	"github.com/kubestandup/standup/pkg/tiers"
)

// The Flux Operator's objects (docs/flux-operator.md). A ResourceSet is an
// applier: queued like a Kustomization, it is expanded rather than built
// (operator.Expand), what it generates is its Rendered entry, and the
// Kustomizations, HelmReleases and ResourceSets among that are nodes it
// applies. A FluxInstance with spec.sync makes the Kustomization that
// syncs the cluster, a starting point like the flux-system Kustomization
// of a bootstrapped cluster.

// setInfo is what the loader keeps of one ResourceSet.
type setInfo struct {
	deps []operator.Dependency
	wait bool
	// step is the step of each node the ResourceSet generates.
	step map[tiers.ID]int
}

// expandSet expands the ResourceSet id, indexes what it generates and
// queues the appliers among it. An expansion the Operator would stall on
// fails the ResourceSet alone.
func (l *loader) expandSet(id tiers.ID, e *entry) (bool, error) {
	file := kbuild.OrUnknown(e.manifest.File)
	deps, wait, err := operator.Dependencies(e.manifest.Object)
	if err != nil {
		return false, fmt.Errorf("%s: %s: %w", file, id, err)
	}
	e.set = &setInfo{deps: deps, wait: wait, step: map[tiers.ID]int{}}
	l.warnDeps(id, file, deps)
	x, err := operator.Expand(e.manifest.Object)
	if err != nil {
		return false, fmt.Errorf("%s: %s: %w", file, id, err)
	}
	for _, note := range x.Notes {
		l.warn(fmt.Sprintf("%s (%s): %s", id, file, note))
	}
	if len(x.Steps) > 1 {
		l.warn(fmt.Sprintf("%s (%s): the Operator applies its %d steps one after the other; the audit reads them as one apply", id, file, len(x.Steps)))
	}
	var manifests []Manifest
	for i, st := range x.Steps {
		for _, obj := range st.Objects {
			m := Manifest{Object: obj, File: e.manifest.File, Line: e.manifest.Line}
			manifests = append(manifests, m)
			if kind := fluxKind(obj); kind != "" {
				e.set.step[idOf(kind, obj)] = i
			}
		}
	}
	sortManifests(manifests)
	for _, m := range manifests {
		l.index(m)
	}
	l.rendered[id] = manifests
	e.done = true
	l.progressed = true
	l.queue = append(l.queue, l.discover(manifests, &id)...)
	return true, nil
}

// warnDeps notes the dependsOn entries of a ResourceSet that name a
// namespaced Flux object without its namespace: the Operator reads the
// object as written, not in the ResourceSet's namespace, and never finds
// it. And those with a readyExpr but not ready: true: the Operator
// evaluates the expression only with ready: true (api/v1 Dependency), so
// it waits for the object to exist, no more.
func (l *loader) warnDeps(id tiers.ID, file string, deps []operator.Dependency) {
	for _, d := range deps {
		if d.FluxKind() != "" && d.Namespace == "" {
			l.warn(fmt.Sprintf("%s (%s): dependsOn %s/%s has no namespace; the Flux Operator looks it up without one (not in the ResourceSet's namespace), finds nothing and never reconciles the ResourceSet",
				id, file, d.Kind, d.Name))
		}
		if d.ReadyExpr != "" && !d.Ready {
			l.warn(fmt.Sprintf("%s (%s): dependsOn %s/%s has a readyExpr without ready: true; the Flux Operator evaluates it only with ready: true, so it waits for the object to exist, not to be ready",
				id, file, d.Kind, d.Name))
		}
	}
}

// syncs returns the Kustomizations the FluxInstances among manifests make
// the Operator apply, and indexes their sources: sources of the checkout.
func (l *loader) syncs(manifests []Manifest) []Manifest {
	var out []Manifest
	for _, m := range manifests {
		if !operator.IsFluxInstance(m.Object) {
			continue
		}
		id := tiers.ID{Kind: operator.KindFluxInstance, Namespace: m.Object.GetNamespace(), Name: m.Object.GetName()}
		s, err := operator.SyncOf(m.Object)
		switch {
		case err != nil:
			l.warn(fmt.Sprintf("%s (%s): %v; the Operator does not sync it, not rendered", id, kbuild.OrUnknown(m.File), err))
			continue
		case s == nil:
			continue
		}
		for _, note := range s.Notes {
			l.warn(fmt.Sprintf("%s (%s): %s", id, kbuild.OrUnknown(m.File), note))
		}
		l.index(Manifest{Object: s.Source, File: m.File, Line: m.Line})
		out = append(out, Manifest{Object: s.Kustomization, File: m.File, Line: m.Line})
	}
	return out
}

// setObject is the node of a ResourceSet: its dependsOn on Flux objects,
// its wait.
func (l *loader) setObject(e *entry) (flux.Object, error) {
	id := idOf(KindResourceSet, e.manifest.Object)
	deps, wait := []operator.Dependency(nil), false
	if e.set != nil {
		deps, wait = e.set.deps, e.set.wait
	} else {
		var err error
		if deps, wait, err = operator.Dependencies(e.manifest.Object); err != nil {
			return flux.Object{}, err
		}
	}
	return flux.Object{Node: tiers.Node{ID: id, DependsOn: l.setDeps(deps)}, Wait: wait}, nil
}

// setDeps are the edges of a ResourceSet's dependsOn: one per Flux object
// it names (a readyExpr kept when ready says the Operator evaluates it),
// but for an object the render holds that Result.Objects leaves out (a
// HelmRelease when only Kustomizations are asked for).
func (l *loader) setDeps(deps []operator.Dependency) []tiers.Dependency {
	var out []tiers.Dependency
	for _, d := range deps {
		kind := d.FluxKind()
		if kind == "" {
			continue
		}
		dep := tiers.Dependency{ID: tiers.ID{Kind: kind, Namespace: d.Namespace, Name: d.Name}}
		if _, known := l.entries[dep.ID]; known && !l.reported(kind) {
			continue
		}
		if d.Ready {
			dep.ReadyExpr = d.ReadyExpr
		}
		out = append(out, dep)
	}
	return out
}

// reported reports whether Result.Objects holds the nodes of kind.
func (l *loader) reported(kind string) bool {
	return l.kinds[kind] || kind == KindResourceSet
}

// inherit gives each node a ResourceSet generates the ResourceSet's edges
// (it does not exist before the Operator reconciles the ResourceSet, which
// waits for them), those of the ResourceSets that generate that one, and,
// in a step after the first, an edge to each node of the steps before (the
// Operator applies a step once those are ready).
func (l *loader) inherit(objs []flux.Object, byID map[tiers.ID]int) {
	for i := range objs {
		o := &objs[i]
		if o.AppliedBy == nil || o.AppliedBy.Kind != KindResourceSet {
			continue
		}
		seen := map[tiers.ID]bool{o.ID: true}
		for _, d := range o.DependsOn {
			seen[d.ID] = true
		}
		add := func(d tiers.Dependency) {
			if !seen[d.ID] {
				seen[d.ID] = true
				o.DependsOn = append(o.DependsOn, d)
			}
		}
		child, visited := o.ID, map[tiers.ID]bool{}
		for by := o.AppliedBy; by != nil && by.Kind == KindResourceSet && !visited[*by]; by = l.entries[*by].appliedBy {
			visited[*by] = true
			j, ok := byID[*by]
			if !ok {
				break
			}
			for _, d := range objs[j].DependsOn {
				add(d)
			}
			l.stepDeps(*by, child, byID, add)
			child = *by
		}
	}
}

// stepDeps adds to child, generated by the ResourceSet set, an edge to each
// node of set's earlier steps.
func (l *loader) stepDeps(set, child tiers.ID, byID map[tiers.ID]int, add func(tiers.Dependency)) {
	info := l.entries[set].set
	if info == nil || info.step[child] == 0 {
		return
	}
	var earlier []tiers.ID
	for id, s := range info.step {
		if _, node := byID[id]; node && s < info.step[child] {
			earlier = append(earlier, id)
		}
	}
	slices.SortFunc(earlier, compareID)
	for _, id := range earlier {
		add(tiers.Dependency{ID: id})
	}
}

// compareID is the three-way form of tiers.ID.Less.
func compareID(a, b tiers.ID) int {
	switch {
	case a == b:
		return 0
	case a.Less(b):
		return -1
	}
	return 1
}
