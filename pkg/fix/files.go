package fix

import (
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kubestandup/standup/internal/input"
	"github.com/kubestandup/standup/pkg/render"
)

// fileSet reads the files that define the Kustomizations to edit, once,
// and tries each edit on them in turn.
type fileSet struct {
	res   *render.Result
	files map[string]*fileState
	// uses counts the Kustomizations each file:line defines.
	uses map[string]int
}

// fileState is one file: as read, and with the edits tried so far.
type fileState struct {
	name, path string
	mode       fs.FileMode
	before     []byte
	trial      []byte
	// refused says why the file cannot be edited at all; "" when it can.
	refused string
}

func newFileSet(res *render.Result) *fileSet {
	s := &fileSet{res: res, files: map[string]*fileState{}, uses: map[string]int{}}
	for id, def := range res.Definitions {
		if id.Kind == render.KindKustomization && def.File != "" {
			s.uses[fmt.Sprintf("%s:%d", def.File, def.Line)]++
		}
	}
	return s
}

// try tries e on the file defining its Kustomization, on top of the edits
// tried before it, and returns why it cannot be made ("" when it can).
func (s *fileSet) try(e Edit) string {
	def, ok := s.res.Definitions[e.Kustomization]
	if !ok {
		return "the render does not hold it"
	}
	if reason := s.generated(def); reason != "" {
		return reason
	}
	f := s.file(def.File)
	if f.refused != "" {
		return f.refused
	}
	t := targetOf(def)
	// What the file said before any edit is what the render read.
	d, err := locate(f.before, t)
	if err != nil {
		return err.Error()
	}
	if reason := patched(d, def, e.Change); reason != "" {
		return reason
	}
	out, _, err := applyOne(f.trial, t, e.Change)
	if err != nil {
		return err.Error()
	}
	f.trial = out
	return ""
}

// generated says why def is not a document of a file of the repository
// that --fix may edit: no file records it, a remote, a file Flux or an
// ArtifactGenerator makes, one document that makes several Kustomizations.
func (s *fileSet) generated(def render.Manifest) string {
	switch {
	case def.File == "":
		return "no file of the repository defines it (a generator or a template makes it)"
	case strings.Contains(def.File, "//"):
		return fmt.Sprintf("it comes from a remote (%s)", def.File)
	case filepath.IsAbs(def.File) || !filepath.IsLocal(filepath.FromSlash(def.File)):
		return fmt.Sprintf("%s is outside the repository", def.File)
	case isTemplateFile(def.File):
		return fmt.Sprintf("%s is a template a tool renders (its name says so)", def.File)
	case def.Line == 0:
		return fmt.Sprintf("%s does not hold its document as written (a file Flux generates, or one an ArtifactGenerator merges)", def.File)
	}
	if n := s.uses[fmt.Sprintf("%s:%d", def.File, def.Line)]; n > 1 {
		return fmt.Sprintf("%s:%d is a template: that one document makes %d Kustomizations (an overlay or a component builds it more than once)", def.File, def.Line, n)
	}
	return ""
}

// templateSuffixes name the files a template engine renders into YAML.
var templateSuffixes = []string{".j2", ".jinja", ".jinja2", ".tmpl", ".tpl", ".gotmpl"}

func isTemplateFile(name string) bool {
	return slices.ContainsFunc(templateSuffixes, func(s string) bool { return strings.HasSuffix(name, s) })
}

// file reads the file name (relative to the repository root) once.
func (s *fileSet) file(name string) *fileState {
	if f, ok := s.files[name]; ok {
		return f
	}
	f := &fileState{name: name}
	s.files[name] = f
	root := s.res.RepoRoot
	real, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil {
		f.refused = fmt.Sprintf("%s cannot be read: %v", name, err)
		return f
	}
	if rel, err := filepath.Rel(root, real); err != nil || !filepath.IsLocal(rel) {
		f.refused = fmt.Sprintf("%s is outside the repository (it leads to %s)", name, real)
		return f
	}
	data, info, err := input.ReadBounded(real)
	if err != nil {
		f.refused = fmt.Sprintf("%s cannot be read: %v", name, err)
		return f
	}
	f.path, f.mode, f.before, f.trial = real, info.Mode().Perm(), data, data
	return f
}

// targetOf is the Target of a Kustomization's definition.
func targetOf(def render.Manifest) Target {
	return Target{Line: def.Line, Name: def.Object.GetName(), Namespace: def.Object.GetNamespace()}
}

// patched says why the field c edits cannot be edited in d: the file does
// not say what Flux applies (a patch, a component or substitution of the
// Kustomization that applies it changes the field), so an edit of the file
// would not reach the cluster, or would undo the change.
func patched(d *document, def render.Manifest, c Change) string {
	var spec map[string]any
	if err := d.spec.Decode(&spec); err != nil {
		return fmt.Sprintf("its spec does not decode: %v", err)
	}
	rendered, _ := def.Object.Object["spec"].(map[string]any)
	field := c.Field()
	written, applied := entries(spec[field], def.Object.GetNamespace()), entries(rendered[field], def.Object.GetNamespace())
	if field == "wait" {
		written, applied = []string{fmt.Sprint(spec["wait"] == true)}, []string{fmt.Sprint(rendered["wait"] == true)}
	}
	if slices.ContainsFunc(written, func(s string) bool { return strings.Contains(s, "$") }) || slices.Equal(written, applied) {
		return ""
	}
	return fmt.Sprintf("spec.%s in %s is not what Flux applies (a patch or a component changes it): edit the patch", field, def.File)
}

// entries are a dependsOn or healthChecks list as sorted keys, an entry's
// namespace defaulting to own.
func entries(list any, own string) []string {
	items, _ := list.([]any)
	out := make([]string, 0, len(items))
	for _, it := range items {
		m, _ := it.(map[string]any)
		ns, _ := m["namespace"].(string)
		if ns == "" {
			ns = own
		}
		out = append(out, fmt.Sprintf("%v %v %v/%v", groupOf(fmt.Sprint(m["apiVersion"])), m["kind"], ns, m["name"]))
	}
	slices.Sort(out)
	return out
}

// final applies the accepted edits to each file as read, and returns the
// files that change, sorted by name, and the edits that failed.
func (s *fileSet) final(accepted []Edit) ([]File, []Skipped) {
	byFile := map[string][]Edit{}
	for _, e := range accepted {
		name := s.res.Definitions[e.Kustomization].File
		byFile[name] = append(byFile[name], e)
	}
	out := []File{}
	var failed []Skipped
	for _, name := range slices.Sorted(maps.Keys(byFile)) {
		f := s.files[name]
		file := File{Name: name, Path: f.path, Mode: f.mode, Before: f.before, After: f.before}
		for _, e := range byFile[name] {
			next, changed, err := applyOne(file.After, targetOf(s.res.Definitions[e.Kustomization]), e.Change)
			if err != nil {
				failed = append(failed, Skipped{Edit: e, File: name, Reason: err.Error()})
				continue
			}
			if changed {
				file.After = next
				file.Edits = append(file.Edits, e)
			}
		}
		if len(file.Edits) > 0 {
			slices.SortStableFunc(file.Edits, func(a, b Edit) int { return compareIDs(a.Kustomization, b.Kustomization) })
			out = append(out, file)
		}
	}
	return out, failed
}
