package render

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubestandup/standup/pkg/render/kbuild"
	"github.com/kubestandup/standup/pkg/tiers"
)

// discover records the Flux objects among manifests, applied by parent (nil
// for the build of Path), and returns the new Kustomizations and
// ResourceSets, sorted: the appliers to queue.
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
			applier := "kustomize-controller"
			if parent != nil && parent.Kind == KindResourceSet {
				applier = "the Flux Operator"
			}
			l.warn(fmt.Sprintf("%s: %s/%s has no namespace; %s would fail to apply it (namespace not specified); skipped",
				kbuild.OrUnknown(m.File), kind, id.Name, applier))
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
			if kind == KindKustomization || kind == KindResourceSet {
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
		id, kbuild.OrUnknown(first.manifest.File), by(first.appliedBy), kbuild.OrUnknown(m.File), by(parent), strings.Join(vars, ", ")))
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

// kustomization decodes a discovered Kustomization, once; any other kind
// is an error.
func (l *loader) kustomization(id tiers.ID) (*kustomizev1.Kustomization, error) {
	e := l.entries[id]
	if e.ks != nil {
		return e.ks, nil
	}
	if e.kind != KindKustomization {
		return nil, fmt.Errorf("%s is not a Kustomization", id)
	}
	ks, err := toKustomization(e.manifest.Object)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", kbuild.OrUnknown(e.manifest.File), id, err)
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
			return "", fmt.Errorf("%s: kustomization path not found: %s (defined in %s): a variable in it is not defined; define it in the postBuild of %s", id, ks.Spec.Path, kbuild.OrUnknown(file), parent)
		}
		return "", fmt.Errorf("%s: kustomization path not found: %s (defined in %s): %w", id, ks.Spec.Path, kbuild.OrUnknown(file), err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%s: kustomization path is not a directory: %s (defined in %s)", id, ks.Spec.Path, kbuild.OrUnknown(file))
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

// mayBuildPath reports whether the Kustomization id may build path
// (absolute), from its spec.path as written, without decoding it: a
// decoded spec.path is the one written.
func (l *loader) mayBuildPath(id tiers.ID, path string) bool {
	written, _, _ := unstructured.NestedString(l.entries[id].manifest.Object.Object, "spec", "path")
	return l.pathDir(written) == path
}

// specDir resolves spec.path against the repository root (pathDir).
func (l *loader) specDir(ks *kustomizev1.Kustomization) string {
	return l.pathDir(ks.Spec.Path)
}

// pathDir resolves a spec.path against the repository root the way
// kustomize-controller does (securejoin: the path cannot climb out of the
// root).
func (l *loader) pathDir(specPath string) string {
	return filepath.Join(l.root, filepath.Clean(string(filepath.Separator)+filepath.FromSlash(specPath)))
}
