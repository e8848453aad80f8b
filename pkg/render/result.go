package render

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render/kbuild"
	"github.com/kubestandup/standup/pkg/tiers"
)

// result assembles the Result, sorted.
func (l *loader) result(relPath string, root []Manifest) (*Result, error) {
	l.warnForeign()
	l.warnSOPS()
	res := &Result{
		RepoRoot:    l.root,
		Path:        relPath,
		Definitions: map[tiers.ID]Manifest{},
		Rendered:    l.rendered,
		Root:        root,
		Remote:      l.remote,
		Failed:      l.failed,
	}
	failed := map[tiers.ID]bool{}
	for _, f := range l.failed {
		failed[f.ID] = true
	}
	var ids []tiers.ID
	for id, e := range l.entries {
		if l.reported(e.kind) {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].Less(ids[j]) })
	objs, errs := l.objects(ids)
	for i, id := range ids {
		e, obj, err := l.entries[id], objs[i], errs[i]
		if err != nil {
			// What can be told of it without its spec: a node, its file
			// and who applies it.
			obj = flux.Object{Node: tiers.Node{ID: id}}
			if !failed[id] {
				l.failUndecodable(id, e, err)
			}
		}
		obj.File = e.manifest.File
		obj.AppliedBy = e.appliedBy
		res.Objects = append(res.Objects, obj)
		res.Definitions[id] = e.manifest
	}
	byID := make(map[tiers.ID]int, len(res.Objects))
	for i, o := range res.Objects {
		byID[o.ID] = i
	}
	l.inherit(res.Objects, byID)
	res.Failed = l.failed
	sort.Slice(res.Failed, func(i, j int) bool { return res.Failed[i].ID.Less(res.Failed[j].ID) })
	for w := range l.warnings {
		res.Warnings = append(res.Warnings, w)
	}
	sort.Strings(res.Warnings)
	return res, nil
}

// objects converts the discovered Flux objects ids, on every core: each
// conversion stands alone, and a render of thousands of Kustomizations
// spent a tenth of its time converting them one after the other.
func (l *loader) objects(ids []tiers.ID) ([]flux.Object, []error) {
	objs, errs := make([]flux.Object, len(ids)), make([]error, len(ids))
	workers := 1
	if len(ids) >= 64 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(ids); i = int(next.Add(1) - 1) {
				objs[i], errs[i] = l.object(l.entries[ids[i]])
			}
		})
	}
	wg.Wait()
	return objs, errs
}

// object converts a discovered Flux object into the node standup reasons
// about, from the Kustomization the walk decoded when it did.
func (l *loader) object(e *entry) (flux.Object, error) {
	if e.kind == KindKustomization && e.ks != nil {
		return flux.FromKustomization(e.ks), nil
	}
	if e.kind == KindResourceSet {
		return l.setObject(e)
	}
	return toObject(e.kind, e.manifest.Object)
}

// failUndecodable records a HelmRelease whose spec does not decode (a
// dependsOn that is not a list of names). The API server rejects it, so the
// apply of the Kustomization applying it fails: the failure names both.
func (l *loader) failUndecodable(id tiers.ID, e *entry, err error) {
	if e.appliedBy != nil {
		err = fmt.Errorf("%w: the API server rejects it, so the apply of %s fails", err, *e.appliedBy)
	}
	l.failed = append(l.failed, BuildFailure{ID: id, File: e.manifest.File, Err: fmt.Errorf("decode failed: %w", err)})
}

// sortManifests orders manifests by kind, namespace, name and apiVersion.
func sortManifests(ms []Manifest) {
	key := func(m Manifest) string {
		u := m.Object
		return strings.Join([]string{u.GetKind(), u.GetNamespace(), u.GetName(), u.GetAPIVersion()}, "\x00")
	}
	slices.SortStableFunc(ms, func(a, b Manifest) int { return strings.Compare(key(a), key(b)) })
}

// copyID returns a pointer to a copy of *id, or nil.
func copyID(id *tiers.ID) *tiers.ID {
	if id == nil {
		return nil
	}
	c := *id
	return &c
}

// warn records warnings; duplicates collapse.
func (l *loader) warn(msgs ...string) {
	for _, m := range msgs {
		l.warnings[m] = true
	}
}

// noteSkipped notes what a build left out: SOPS-encrypted documents and
// remote resources.
func (l *loader) noteSkipped(out *kbuild.Output) {
	l.warn(out.Warnings...)
	for _, r := range out.Remote {
		l.warn(r + " is not fetched offline; skipped")
	}
	for _, m := range out.SOPS {
		u := m.Object
		l.sops[tiers.ID{Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}] = true
		key := kbuild.OrUnknown(m.File) + ": " + u.GetKind() + "/" + u.GetName()
		if l.sopsNamespaces[key] == nil {
			l.sopsNamespaces[key] = map[string]bool{}
		}
		l.sopsNamespaces[key][u.GetNamespace()] = true
	}
}

// warnSOPS notes each SOPS-encrypted document skipped once, however many
// namespaces a component renders it into.
func (l *loader) warnSOPS() {
	for key, namespaces := range l.sopsNamespaces {
		file, obj, _ := strings.Cut(key, ": ")
		kind, name, _ := strings.Cut(obj, "/")
		where := kind + "/" + name
		if len(namespaces) == 1 {
			for ns := range namespaces {
				if ns != "" {
					where = kind + "/" + ns + "/" + name
				}
			}
		} else {
			where += fmt.Sprintf(" (in %d namespaces)", len(namespaces))
		}
		l.warn(fmt.Sprintf("%s: %s is SOPS-encrypted; skipped (not decrypted offline)", file, where))
	}
}
