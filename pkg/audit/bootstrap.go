package audit

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kubestandup/standup/internal/input"
)

// Bootstrap is what a repository's own files say it installs before Flux
// starts: helmfile releases, CRD manifests and remote manifests under a
// directory named bootstrap (or a Talos configuration's extraManifests).
// DetectBootstrap reads it; Audit turns it into kinds with the catalog.
type Bootstrap struct {
	// Releases are helmfile releases: installed with their chart's CRDs
	// (helmfile sync), or rendered with --include-crds and applied.
	Releases []BootstrapRelease `json:"releases,omitempty"`
	// CRDs are CustomResourceDefinitions in bootstrap files.
	CRDs []BootstrapCRD `json:"crds,omitempty"`
	// Manifests are remote manifests a bootstrap file applies (a
	// kustomization's remote resource, a URL in a script).
	Manifests []BootstrapManifest `json:"manifests,omitempty"`
}

// BootstrapRelease is one helmfile release.
type BootstrapRelease struct {
	// File is the helmfile, relative to the repository root.
	File      string `json:"file"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Chart is the release's chart reference as written; empty when a
	// template computes it (the chart is then found from the repository's
	// HelmRelease of the same name).
	Chart string `json:"chart,omitempty"`
	// Values are the release's inline values, merged.
	Values map[string]any `json:"-"`
}

// BootstrapCRD is one CRD in a bootstrap file.
type BootstrapCRD struct {
	File string    `json:"file"`
	Kind GroupKind `json:"kind"`
}

// BootstrapManifest is one remote manifest a bootstrap file applies.
type BootstrapManifest struct {
	File string `json:"file"`
	URL  string `json:"url"`
	// applied is set when the file applies it for certain: a
	// kustomization's remote resource, or a URL of a manifest (.yaml,
	// .yml, .json) or on a kubectl line, outside comments and $schema
	// references. A URL the catalog does not know is reported unrecognised
	// only when applied: a chart repository or a link is not a manifest.
	applied bool
}

// empty reports whether b says nothing.
func (b *Bootstrap) empty() bool {
	return b == nil || len(b.Releases)+len(b.CRDs)+len(b.Manifests) == 0
}

// skipDirs are never walked.
var skipDirs = []string{".git", "node_modules", "vendor"}

// maxBootstrapFiles bounds the walk: a repository is not a file system.
const maxBootstrapFiles = 5000

// DetectBootstrap reads the files under every directory named bootstrap
// or talos below repoRoot (hidden ones too: .taskfiles/bootstrap) and
// reports what they install before Flux starts. clusterPath is --path relative to
// the repository root: when a bootstrap directory holds one directory per
// cluster (bootstrap/main, bootstrap/network), only the one that a segment
// of clusterPath names counts (selectScope, each bootstrap directory on its
// own). Files over the limits of bounded input are skipped: this is
// evidence gathering, and render reports what it refuses.
func DetectBootstrap(ctx context.Context, repoRoot, clusterPath string) (*Bootstrap, error) {
	return DetectBootstrapIn(ctx, repoRoot, repoRoot, clusterPath)
}

// DetectBootstrapIn is DetectBootstrap for a repository root inside a git
// repository (render.Result's GitRoot): it reads, besides the files below
// repoRoot, the bootstrap and talos directories at the top of gitRoot
// (gitRoot/talos, gitRoot/bootstrap, and those in a hidden directory
// there: gitRoot/.taskfiles/bootstrap), which the repository installs
// before Flux as much as its own. xunholy/k8s-gitops pushes an OCI artifact
// from kubernetes/, the repository root, and applies CRDs from talos/,
// beside it. Files there are named relative to repoRoot
// (../talos/controlplane.yaml). Deeper directories of gitRoot outside
// repoRoot are not read: they may be other repositories' (a fixture, a
// monorepo's other projects).
func DetectBootstrapIn(ctx context.Context, gitRoot, repoRoot, clusterPath string) (*Bootstrap, error) {
	files, err := bootstrapFiles(ctx, repoRoot)
	if err != nil {
		return nil, err
	}
	outer, err := topBootstrapFiles(ctx, gitRoot, repoRoot)
	if err != nil {
		return nil, err
	}
	files = append(files, outer...)
	b := &Bootstrap{}
	texts := map[string]string{}
	for _, rel := range selectScope(files, clusterPath) {
		data, _, err := input.ReadBounded(filepath.Join(repoRoot, filepath.FromSlash(rel)))
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			continue
		}
		texts[rel] = string(data)
		b.add(rel, data)
	}
	b.CRDs = referencedCRDs(b.CRDs, texts)
	return b, nil
}

// topBootstrapFiles lists the files of the bootstrap directories at the
// top of gitRoot (directly, or in a hidden directory there), outside
// repoRoot, relative to repoRoot. None when gitRoot is repoRoot or does
// not hold it.
func topBootstrapFiles(ctx context.Context, gitRoot, repoRoot string) ([]string, error) {
	up, err := filepath.Rel(gitRoot, repoRoot)
	if err != nil || up == "." || up == ".." || strings.HasPrefix(up, ".."+string(filepath.Separator)) {
		return nil, nil
	}
	inside := strings.Split(filepath.ToSlash(up), "/")[0] // the top directory holding repoRoot
	var dirs []string
	top, err := os.ReadDir(gitRoot)
	if err != nil {
		return nil, nil // unreadable: nothing to say about it
	}
	for _, d := range top {
		if !d.IsDir() || slices.Contains(skipDirs, d.Name()) {
			continue
		}
		switch {
		case slices.Contains(bootstrapDirs, strings.ToLower(d.Name())) && d.Name() != inside:
			dirs = append(dirs, filepath.Join(gitRoot, d.Name()))
		case strings.HasPrefix(d.Name(), ".") && d.Name() != inside:
			inner, err := os.ReadDir(filepath.Join(gitRoot, d.Name()))
			if err != nil {
				continue
			}
			for _, e := range inner {
				if e.IsDir() && slices.Contains(bootstrapDirs, strings.ToLower(e.Name())) {
					dirs = append(dirs, filepath.Join(gitRoot, d.Name(), e.Name()))
				}
			}
		}
	}
	var out []string
	for _, dir := range dirs {
		found, err := bootstrapFilesUnder(ctx, dir, repoRoot)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	return out, nil
}

// bootstrapFiles lists the bootstrap files below repoRoot, relative to it.
func bootstrapFiles(ctx context.Context, repoRoot string) ([]string, error) {
	return bootstrapFilesUnder(ctx, repoRoot, repoRoot)
}

// bootstrapFilesUnder lists the bootstrap files below dir, relative to
// repoRoot, at most maxBootstrapFiles.
func bootstrapFilesUnder(ctx context.Context, dir, repoRoot string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: nothing to say about it
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if slices.Contains(skipDirs, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, relErr := filepath.Rel(repoRoot, p)
		if relErr != nil || !d.Type().IsRegular() {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if bootstrapScope(rel) == nil || len(files) >= maxBootstrapFiles {
			return nil
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

// referencedCRDs keeps the CRD files that another bootstrap file names (a
// script that applies them, a kustomization that lists them), by file name
// or by their directory's name: a CRD file nothing applies may be a bundle
// kept for repairs (standup resume --crds), not something installed before
// Flux.
func referencedCRDs(crds []BootstrapCRD, texts map[string]string) []BootstrapCRD {
	var out []BootstrapCRD
	for _, c := range crds {
		dir, name := path.Split(c.File)
		names := []string{name}
		if d := path.Base(strings.TrimSuffix(dir, "/")); d != "." && d != "/" && !slices.Contains(bootstrapDirs, strings.ToLower(d)) {
			names = append(names, d+"/", d+" ", d+"\n")
		}
		referenced := false
		for file, text := range texts {
			if file == c.File {
				continue
			}
			for _, n := range names {
				referenced = referenced || strings.Contains(text, n)
			}
		}
		if referenced {
			out = append(out, c)
		}
	}
	return out
}

// add reads one bootstrap file: the YAML documents it holds (after its
// template actions are taken out), and the remote manifests it names.
func (b *Bootstrap) add(file string, data []byte) {
	seen := map[string]int{}
	addURL := func(u string, applied bool) {
		if i, ok := seen[u]; ok {
			b.Manifests[i].applied = b.Manifests[i].applied || applied
			return
		}
		seen[u] = len(b.Manifests)
		b.Manifests = append(b.Manifests, BootstrapManifest{File: file, URL: u, applied: applied})
	}
	for _, doc := range yamlDocuments(stripTemplates(data)) {
		switch {
		case doc["releases"] != nil:
			b.Releases = append(b.Releases, helmfileReleases(file, doc)...)
		case isCRDDocument(doc):
			spec, _ := doc["spec"].(map[string]any)
			names, _ := spec["names"].(map[string]any)
			group, _ := spec["group"].(string)
			kind, _ := names["kind"].(string)
			if kind != "" {
				b.CRDs = append(b.CRDs, BootstrapCRD{File: file, Kind: GroupKind{Group: group, Kind: kind}})
			}
		case doc["kind"] == "Kustomization" && strings.HasPrefix(str(doc["apiVersion"]), "kustomize.config.k8s.io/"):
			resources, _ := doc["resources"].([]any)
			for _, r := range resources {
				if s := str(r); isRemote(s) {
					addURL(s, true)
				}
			}
			// kustomize build --enable-helm inflates helmCharts, CRDs
			// included (talos/cni installing Cilium before Flux).
			b.Releases = append(b.Releases, kustomizeCharts(file, doc)...)
		}
	}
	if isProse(file) {
		return // a README's URLs are reading, not installing
	}
	for _, line := range strings.Split(string(data), "\n") {
		for _, u := range urlRE.FindAllString(line, -1) {
			u = strings.TrimRight(u, `.,;:)'"`)
			addURL(u, appliesURL(line, u))
		}
	}
}

// manifestExtRE is the file name of a manifest: YAML or JSON.
var manifestExtRE = regexp.MustCompile(`(?i)\.(ya?ml|json)$`)

// kubectlRE is a kubectl command that applies what it is given.
var kubectlRE = regexp.MustCompile(`\bkubectl\b.*\b(apply|create|replace)\b`)

// appliesURL reports whether line applies the URL u it holds: u names a
// manifest (.yaml, .yml, .json) or line runs kubectl apply, create or
// replace, and line is neither a comment nor a $schema reference (an
// editor's yaml-language-server schema, a helmfile's schema).
func appliesURL(line, u string) bool {
	trimmed := strings.TrimSpace(line)
	if strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "//") || strings.Contains(line, "$schema") {
		return false
	}
	p := u
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	return manifestExtRE.MatchString(p) || kubectlRE.MatchString(line)
}

// isProse reports whether a file is documentation, whose URLs nothing runs.
func isProse(file string) bool {
	ext := strings.ToLower(path.Ext(file))
	return ext == ".md" || ext == ".txt" || ext == ".rst" || ext == ".adoc"
}

// urlRE finds URLs in scripts and configuration (kubectl apply -f URL,
// Talos extraManifests).
var urlRE = regexp.MustCompile(`https?://[^\s'"<>{}\x60]+`)

// isRemote reports whether a kustomization resource is fetched over the
// network (a URL, or a git repository such as github.com/org/repo//path).
func isRemote(r string) bool {
	return strings.Contains(r, "://") || strings.HasPrefix(r, "github.com/") || strings.HasPrefix(r, "git@")
}

func isCRDDocument(doc map[string]any) bool {
	return doc["kind"] == crdKind && strings.HasPrefix(str(doc["apiVersion"]), crdGroup+"/")
}

// helmfileReleases reads the releases of one helmfile document. A release
// with installed: false is left out.
func helmfileReleases(file string, doc map[string]any) []BootstrapRelease {
	list, _ := doc["releases"].([]any)
	var out []BootstrapRelease
	for _, item := range list {
		r, ok := item.(map[string]any)
		if !ok || str(r["name"]) == "" || r["installed"] == false {
			continue
		}
		rel := BootstrapRelease{File: file, Namespace: str(r["namespace"]), Name: str(r["name"]), Chart: str(r["chart"])}
		if strings.Contains(rel.Chart, templated) {
			rel.Chart = ""
		}
		values, _ := r["values"].([]any)
		for _, v := range values {
			if m, ok := v.(map[string]any); ok {
				if rel.Values == nil {
					rel.Values = map[string]any{}
				}
				mergeValues(rel.Values, m)
			}
		}
		out = append(out, rel)
	}
	return out
}

// kustomizeCharts reads the helmCharts of a kustomization.
func kustomizeCharts(file string, doc map[string]any) []BootstrapRelease {
	list, _ := doc["helmCharts"].([]any)
	var out []BootstrapRelease
	for _, item := range list {
		c, ok := item.(map[string]any)
		if !ok || str(c["name"]) == "" {
			continue
		}
		name := str(c["releaseName"])
		if name == "" {
			name = str(c["name"])
		}
		rel := BootstrapRelease{File: file, Namespace: str(c["namespace"]), Name: name, Chart: str(c["name"])}
		if v, ok := c["valuesInline"].(map[string]any); ok {
			rel.Values = v
		}
		out = append(out, rel)
	}
	return out
}

// mergeValues merges src into dst, maps deeply, as Helm merges values files.
func mergeValues(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergeValues(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

// templated replaces each template action of a bootstrap file.
const templated = "__templated__"

var (
	// actionRE is one template action on a line: Go templates (helmfile
	// .gotmpl) and Jinja ({% %}, {# #}).
	actionRE = regexp.MustCompile(`\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}`)
	// lineActionRE is a line that is only template actions.
	lineActionRE = regexp.MustCompile(`^\s*((\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\})\s*)+$`)
)

// stripTemplates takes the template actions out of a helmfile or Jinja
// template so that what remains parses as YAML: a line that is only actions
// goes, an action within a line becomes a placeholder, and a line where an
// action spans lines goes.
func stripTemplates(data []byte) []byte {
	if !bytes.Contains(data, []byte("{{")) && !bytes.Contains(data, []byte("{%")) {
		return data
	}
	var out bytes.Buffer
	open := false
	lines := strings.Split(string(data), "\n")
	for i, line := range lines {
		if open {
			open = !strings.Contains(line, "}}") && !strings.Contains(line, "%}")
			continue
		}
		if lineActionRE.MatchString(line) {
			continue
		}
		line = actionRE.ReplaceAllString(line, templated)
		if strings.Contains(line, "{{") || strings.Contains(line, "{%") {
			open = true
			continue
		}
		out.WriteString(line)
		if i < len(lines)-1 {
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

// yamlDocuments decodes the documents of data that are YAML mappings. Each
// document is decoded on its own, so one that does not parse (a template
// the placeholders could not save) costs only itself; YAML over the limits
// of input.CheckYAML yields nothing.
func yamlDocuments(data []byte) []map[string]any {
	if input.CheckYAML("bootstrap", data) != nil {
		return nil
	}
	var docs []map[string]any
	for _, part := range docSeparatorRE.Split(string(data), -1) {
		var doc map[string]any
		if yaml.Unmarshal([]byte(part), &doc) == nil && doc != nil {
			docs = append(docs, doc)
		}
	}
	return docs
}

// docSeparatorRE splits a YAML stream into documents.
var docSeparatorRE = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

// str is v when it is a string, else "".
func str(v any) string {
	s, _ := v.(string)
	return s
}
