package kbuild

import (
	"bytes"
	"path/filepath"
	"slices"
	"sync"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubestandup/standup/internal/input"
)

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
