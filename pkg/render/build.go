package render

import (
	"bytes"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	securefs "github.com/fluxcd/pkg/kustomize/filesys"
	"github.com/fluxcd/pkg/sourceignore"
	"github.com/fluxcd/pkg/sourceignore/gitignore"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resource"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubestandup/standup/internal/input"
)

// builder runs kustomize builds the way kustomize-controller does, against a
// read-only view of the repository: the kustomization.yaml that Flux would
// generate or rewrite lives in memory only. Every file is read bounded
// (boundedFS).
type builder struct {
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
	// walk sets it once it has made parallelAfter builds.
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
}

// parallelAfter is the number of builds after which a render's builds run
// side by side: a repository of a few Kustomizations renders faster one
// build at a time than it would parse kustomize's schema to run them
// together.
const parallelAfter = 16

// newBuilder returns a builder for the repository at root (absolute).
func newBuilder(root string) (*builder, error) {
	secure, err := securefs.MakeFsOnDiskSecure(root)
	if err != nil {
		return nil, fmt.Errorf("repository root %s: %w", root, err)
	}
	b := &builder{root: root, disk: newBoundedFS(secure, root), domain: strings.Split(root, string(filepath.Separator)),
		resources: provider.NewDefaultDepProvider().GetResourceFactory(), lines: map[string]*lineIndex{}, renamers: map[string]bool{}}
	if lim := b.checkIgnoreFiles(); lim != nil {
		return nil, lim
	}
	patterns, err := sourceignore.LoadIgnorePatterns(root, b.domain)
	if err != nil {
		return nil, fmt.Errorf("repository root %s: %s: %w", root, sourceignore.IgnoreFile, err)
	}
	b.ignored = sourceignore.NewDefaultMatcher(patterns, b.domain)
	return b, nil
}

// build builds dir (absolute) of the checkout with the spec of the Flux
// Kustomization ks (nil for a plain directory): it generates or rewrites the
// kustomization file with fluxcd/pkg/kustomize's generator
// (targetNamespace, namePrefix, nameSuffix, patches, images, components),
// runs kustomize with Flux's options, and returns every object with the
// file it came from. Objects carrying a top-level `sops:` key are set
// aside, and remote resources are not fetched: both are reported in the
// result.
func (b *builder) build(ks map[string]any, dir string) (*buildResult, error) {
	return b.buildIn(checkoutView{b}, ks, dir)
}

// buildIn builds dir, an absolute path of v.
func (b *builder) buildIn(v view, ks map[string]any, dir string) (*buildResult, error) {
	if ks == nil {
		ks = map[string]any{}
	}
	data, kfile, listed, err := v.generate(ks, dir, false)
	if err != nil {
		return nil, err
	}
	var kus kustypes.Kustomization
	if err := sigsyaml.Unmarshal(data, &kus); err != nil {
		return nil, fmt.Errorf("kustomization generation failed: %w", err)
	}
	addedOrigin := !slices.Contains(kus.BuildMetadata, kustypes.OriginAnnotations)
	// The key holds the file before the origin annotations are added:
	// the file kustomize reads is a function of the two.
	key := buildKey{dir: dir, kfile: kfile, data: string(data), addedOrigin: addedOrigin}
	if res := b.last.get(key); res != nil {
		return res, nil
	}
	if addedOrigin {
		kus.BuildMetadata = append(kus.BuildMetadata, kustypes.OriginAnnotations)
	}
	if listed && addedOrigin {
		if res, ok := b.listedBuild(v, dir, &kus, b.parallel.Load()); ok {
			b.last.put(key, res)
			return res, nil
		}
	}
	// plain is the file without the origin annotations the builder adds,
	// for a build whose objects placeBuild can trace without them.
	var plain []byte
	if addedOrigin {
		if !b.kustomizeAlways {
			plain = data
		}
		if data, err = sigsyaml.Marshal(kus); err != nil {
			return nil, fmt.Errorf("kustomization generation failed: %w", err)
		}
	}
	mode := sharedBuild
	switch {
	case kus.OpenAPI != nil || len(kus.Crds) > 0:
		mode = exactBuild
	case len(kus.Vars) > 0:
		mode = exclusiveBuild
	}
	fs, rs, printed, err := b.kustomize(v, dir, kfile, plain, data, &kus, mode)
	if err != nil && fs == nil {
		return nil, err
	}
	if fs.limit != nil {
		// Whatever kustomize made of the refusal (it tries a file it cannot
		// read as a directory next), the file is the cause.
		return nil, b.relLimit(fs.limit)
	}
	if err != nil && listed {
		// A manifest it listed may not be Kubernetes YAML: Flux's
		// generator says so first.
		if _, _, _, genErr := v.generate(ks, dir, true); genErr != nil {
			return nil, genErr
		}
	}
	if err != nil {
		var reads []string
		for _, r := range fs.reads {
			if d := v.diskPath(r); d != "" {
				reads = append(reads, d)
			}
		}
		return nil, b.diagnose(v, dir, reads, fmt.Errorf("kustomize build failed: %w", err))
	}
	res, err := b.collect(rs, v, dir, addedOrigin, fs.placed)
	if err != nil {
		return nil, err
	}
	res.remote = fs.remote
	res.warnings = fs.warnings
	for _, line := range printed {
		res.warnings = append(res.warnings, v.name(dir)+": "+line+" (kustomize)")
	}
	b.last.put(key, res)
	return res, nil
}

// buildResult is what one build produces.
type buildResult struct {
	objects []built
	// sops holds the SOPS-encrypted objects set aside.
	sops []Manifest
	// remote lists the remote resources not fetched, as "file: remote resource URL".
	remote []string
	// warnings are what kustomize printed during the build, naming the file.
	warnings []string
}

// built is one object of a build: the manifest and the JSON kustomize
// rendered for it, from which toYAML makes the very text kustomize-controller
// runs postBuild substitution on (so that an unquoted "${PORT}" turns into a
// number exactly when it does in Flux).
type built struct {
	Manifest
	json []byte
}

// toYAML returns the YAML of the object as kustomize renders it (r.AsYAML(),
// without a second MarshalJSON). Only postBuild needs it: converting every
// object of every build took a fifth of the time of a repository without
// postBuild.
func (b built) toYAML() ([]byte, error) {
	data, err := sigsyaml.JSONToYAML(b.json)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", orUnknown(b.File), err)
	}
	return data, nil
}

// collect turns a build result into manifests, mirroring the checks that
// kustomize-controller makes on every resource, and sets SOPS documents aside.
func (b *builder) collect(rs []*resource.Resource, v view, dir string, stripOrigin bool, placed placement) (*buildResult, error) {
	return b.collectNamed(rs, func(_ int, r *resource.Resource) (string, int) {
		if origin := placed[r]; origin != nil {
			return b.placeOf(v, dir, origin, r)
		}
		if origin, err := r.GetOrigin(); err == nil && origin != nil {
			return b.placeOf(v, dir, origin, r)
		}
		return "", 0
	}, stripOrigin)
}

// collectNamed is collect with the file and line of each resource (the
// i-th of rs) given by placeOf.
func (b *builder) collectNamed(rs []*resource.Resource, placeOf func(i int, r *resource.Resource) (string, int), stripOrigin bool) (*buildResult, error) {
	res := &buildResult{}
	for i, r := range rs {
		file, line := placeOf(i, r)
		if stripOrigin {
			if err := r.SetOrigin(nil); err != nil {
				return nil, fmt.Errorf("kustomize build failed: %w", err)
			}
		}
		if r.GetName() == "" || r.GetKind() == "" || r.GetApiVersion() == "" {
			return nil, fmt.Errorf("%s: failed to decode Kubernetes apiVersion, kind and name from: %s", orUnknown(file), r.String())
		}
		js, err := resourceJSON(r)
		obj, err := decodeJSON(js, err)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", orUnknown(file), err)
		}
		u := &unstructured.Unstructured{Object: obj}
		if isKustomizeConfig(u) {
			continue
		}
		if _, encrypted := obj["sops"]; encrypted {
			res.sops = append(res.sops, Manifest{Object: u, File: file, Line: line})
			continue
		}
		res.objects = append(res.objects, built{Manifest: Manifest{Object: u, File: file, Line: line}, json: js})
	}
	return res, nil
}

// rel returns path relative to the repository root, slash-separated.
func (b *builder) rel(path string) string {
	rel, err := filepath.Rel(b.root, path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}

// isKustomizeConfig reports whether u is kustomize's own Kustomization
// (kustomize.config.k8s.io), which kustomize-controller never applies.
func isKustomizeConfig(u *unstructured.Unstructured) bool {
	return strings.EqualFold(u.GetKind(), "Kustomization") &&
		strings.HasPrefix(u.GetAPIVersion(), "kustomize.config.k8s.io/")
}

// describe renders an object as Kind/namespace/name (Kind/name when cluster-scoped).
func describe(u *unstructured.Unstructured) string {
	if ns := u.GetNamespace(); ns != "" {
		return u.GetKind() + "/" + ns + "/" + u.GetName()
	}
	return u.GetKind() + "/" + u.GetName()
}

// decodeJSON decodes a JSON object the way unstructured objects hold it
// (whole numbers as int64).
func decodeJSON(data []byte, err error) (map[string]any, error) {
	if err != nil {
		return nil, err
	}
	obj := map[string]any{}
	if err := utiljson.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	return obj, nil
}

func orUnknown(file string) string {
	if file == "" {
		return "(generated)"
	}
	return file
}

// recordingFS records the files a build reads, so that a failed build can be
// traced back to the malformed file. It also keeps kustomize off the network:
// what a kustomization file would fetch (remote resources and components,
// HTTP(S) generator files and patches) is taken out
// of it as it is read, and recorded.
type recordingFS struct {
	filesys.FileSystem
	// name names a path relative to the repository root.
	name   func(string) string
	mu     sync.Mutex
	reads  []string
	remote []string
	// warnings are the deprecation warnings of the kustomization files read.
	warnings []string
	// limit is the first file refused by boundedFS.
	limit *input.LimitError
	// kfiles remembers what is made of the kustomization files read;
	// nil to remember nothing.
	kfiles *kfileMemo
	// shared is set while the build runs as a sharedBuild; exclusive, when
	// a kustomization file it read needs an exclusiveBuild.
	shared, exclusive bool
	// global is set when a kustomization file it read adds transformer
	// configurations or CRDs, which act on the whole build (splitBuild).
	global bool
	// kfilesRead are the kustomization files it read, in order.
	kfilesRead []readKfile
	// placed is where placeBuild traced the objects of a build made
	// without origin annotations; nil when they carry kustomize's.
	placed placement
}

// ReadFile reads a file and records its path, and the first file refused.
func (fs *recordingFS) ReadFile(path string) ([]byte, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.reads = append(fs.reads, path)
	data, err := fs.FileSystem.ReadFile(path)
	if lim, ok := input.IsLimit(err); ok && fs.limit == nil {
		fs.limit = lim
	}
	if err != nil || !slices.Contains(konfig.RecognizedKustomizationFileNames(), filepath.Base(path)) {
		return data, err
	}
	if fs.shared && needsExclusive(data) {
		fs.exclusive = true
		return nil, errExclusive
	}
	rel := fs.name(path)
	k := fs.kfiles.read(rel, data)
	fs.kfilesRead = append(fs.kfilesRead, readKfile{path: path, k: k})
	fs.global = fs.global || k.global
	fs.warnings = append(fs.warnings, k.warnings...)
	for _, r := range k.remote {
		fs.remote = append(fs.remote, rel+": "+r)
	}
	return slices.Clone(k.local), nil
}

// kfileMemo remembers, for a render, what recordingFS makes of each
// kustomization file it reads (its deprecations, the file without what
// would be fetched): the bases and components that many of a repository's
// builds include were parsed twice more by each.
type kfileMemo struct {
	mu    sync.Mutex
	files map[string]*kfile
}

// kfile is what recordingFS makes of one kustomization file.
type kfile struct {
	warnings, remote []string
	local            []byte
	// global: it adds transformer configurations or CRDs.
	global bool
	// parsed is its layout (placeBuild), parsed once when first asked.
	layoutOnce sync.Once
	parsed     *kfileLayout
}

// read returns what recordingFS makes of the kustomization file rel whose
// content is data; m may be nil.
func (m *kfileMemo) read(rel string, data []byte) *kfile {
	compute := func() *kfile {
		local, remote := withoutRemote(data)
		return &kfile{warnings: deprecations(rel, data), remote: remote, local: local, global: addsConfig(data)}
	}
	if m == nil {
		return compute()
	}
	key := rel + "\x00" + string(data)
	m.mu.Lock()
	k, ok := m.files[key]
	m.mu.Unlock()
	if ok {
		return k
	}
	k = compute()
	m.mu.Lock()
	if m.files == nil {
		m.files = map[string]*kfile{}
	}
	m.files[key] = k
	m.mu.Unlock()
	return k
}

// addsConfig reports whether a kustomization file adds transformer
// configurations or CRDs (which kustomize merges into the whole build's),
// or does not parse.
func addsConfig(data []byte) bool {
	if !bytes.Contains(data, []byte("configurations")) && !bytes.Contains(data, []byte("crds")) {
		return false
	}
	var k struct {
		Configurations []any `json:"configurations"`
		Crds           []any `json:"crds"`
	}
	if err := sigsyaml.Unmarshal(data, &k); err != nil {
		return true
	}
	return len(k.Configurations) > 0 || len(k.Crds) > 0
}

// needsExclusive reports whether a kustomization file uses what only an
// exclusive build may: vars (their expansion logs) or an OpenAPI schema of
// its own (kustomize sets it process-wide).
func needsExclusive(data []byte) bool {
	if !bytes.Contains(data, []byte("vars")) && !bytes.Contains(data, []byte("openapi")) {
		return false
	}
	var k struct {
		Vars    []any          `json:"vars"`
		OpenAPI map[string]any `json:"openapi"`
	}
	if err := sigsyaml.Unmarshal(data, &k); err != nil {
		return true
	}
	return len(k.Vars) > 0 || k.OpenAPI != nil
}

// withoutRemote returns a kustomization file without what kustomize would
// fetch over the network: remote (git or HTTP) resources and components, and
// HTTP(S) URLs among generator files and env files and patch paths. The
// second result describes each entry taken out ("remote resource URL",
// "remote file URL (configMapGenerator NAME)"). The file is returned
// unchanged when it has none, or when it does not parse (kustomize then
// reports it).
func withoutRemote(data []byte) ([]byte, []string) {
	var kus map[string]any
	if err := sigsyaml.Unmarshal(data, &kus); err != nil || kus == nil {
		return data, nil
	}
	var remote []string
	for _, field := range []string{"resources", "components", "bases"} {
		kus[field] = dropStrings(kus[field], func(r string) bool {
			if fluxkustomize.IsLocalRelativePath(r) || filepath.IsAbs(r) {
				return false
			}
			remote = append(remote, "remote resource "+r)
			return true
		})
	}
	for _, field := range []string{"configMapGenerator", "secretGenerator"} {
		gens, _ := kus[field].([]any)
		for _, g := range gens {
			gen, ok := g.(map[string]any)
			if !ok {
				continue
			}
			where := fmt.Sprintf(" (%s %v)", field, gen["name"])
			for _, key := range []string{"files", "envs"} {
				gen[key] = dropStrings(gen[key], func(f string) bool {
					// files entries may be "key=path".
					_, path, _ := strings.Cut(f, "=")
					if !strings.Contains(f, "=") {
						path = f
					}
					if !isRemoteFile(path) {
						return false
					}
					remote = append(remote, "remote file "+path+where)
					return true
				})
			}
			if env, ok := gen["env"].(string); ok && isRemoteFile(env) {
				delete(gen, "env")
				remote = append(remote, "remote file "+env+where)
			}
		}
	}
	kus["patchesStrategicMerge"] = dropStrings(kus["patchesStrategicMerge"], func(p string) bool {
		if !isRemoteFile(p) {
			return false
		}
		remote = append(remote, "remote patch "+p)
		return true
	})
	for _, field := range []string{"patches", "patchesJson6902"} {
		kus[field] = dropMaps(kus[field], func(m map[string]any) bool {
			p, _ := m["path"].(string)
			if !isRemoteFile(p) {
				return false
			}
			remote = append(remote, "remote patch "+p)
			return true
		})
	}
	if len(remote) == 0 {
		return data, nil
	}
	for k, v := range kus {
		if v == nil {
			delete(kus, k)
		}
	}
	out, err := sigsyaml.Marshal(kus)
	if err != nil {
		return data, nil
	}
	return out, remote
}

// isRemoteFile reports whether kustomize would fetch path over HTTP(S), as
// its file loader does for generator files and patches.
func isRemoteFile(path string) bool {
	u, err := url.Parse(path)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https")
}

// dropStrings removes the string entries of a YAML list for which drop
// returns true; anything that is not a list is returned as it is.
func dropStrings(v any, drop func(string) bool) any {
	return dropEntries(v, func(e any) bool {
		s, ok := e.(string)
		return ok && drop(s)
	})
}

// dropMaps removes the mapping entries of a YAML list for which drop
// returns true.
func dropMaps(v any, drop func(map[string]any) bool) any {
	return dropEntries(v, func(e any) bool {
		m, ok := e.(map[string]any)
		return ok && drop(m)
	})
}

func dropEntries(v any, drop func(any) bool) any {
	entries, ok := v.([]any)
	if !ok {
		return v
	}
	kept := entries[:0:0]
	for _, e := range entries {
		if !drop(e) {
			kept = append(kept, e)
		}
	}
	return kept
}
