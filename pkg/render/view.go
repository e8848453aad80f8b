package render

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/kubestandup/standup/internal/input"
)

// view is the files one build reads: the checkout itself, or the tree of
// an ExternalArtifact mapped onto it (artifactFS).
type view interface {
	// base is the read-only file system kustomize reads.
	base() filesys.FileSystem
	// name names an absolute path in messages and in Manifest.File,
	// relative to the repository root.
	name(path string) string
	// diskPath returns the checkout file behind an absolute path of base,
	// or "" when there is none.
	diskPath(path string) string
	// generate returns the kustomization file Flux makes for dir from the
	// Kustomization ks, that file's path, and whether it listed the
	// manifests of dir (see generateKustomization for validate).
	generate(ks map[string]any, dir string, validate bool) ([]byte, string, bool, error)
}

// checkoutView is the checkout, where fluxcd/pkg/kustomize's generator
// reads the disk itself.
type checkoutView struct{ b *builder }

func (v checkoutView) base() filesys.FileSystem { return v.b.disk }
func (v checkoutView) name(p string) string     { return v.b.rel(p) }
func (v checkoutView) diskPath(p string) string { return p }

func (v checkoutView) generate(ks map[string]any, dir string, validate bool) ([]byte, string, bool, error) {
	data, kfile, listed, err := generateKustomization(sourceView{FileSystem: v.b.disk, b: v.b}, ks, dir, validate)
	if lim, ok := input.IsLimit(err); ok {
		return nil, "", listed, v.b.relLimit(lim)
	}
	if err != nil {
		return nil, "", listed, v.b.diagnose(v, dir, nil, fmt.Errorf("kustomization generation failed: %w", err))
	}
	return data, kfile, listed, nil
}

// sourceView is the checkout as Flux's generator scans it when it lists
// the manifests of a directory without a kustomization file: without the
// files source-controller leaves out of the artifact (its defaults, such as
// .sops.yaml, and every .sourceignore), which are not Kubernetes objects
// and must not be listed. As fluxcd/pkg/kustomize does with ignore
// patterns, directories are still walked (one holding a kustomization file
// is listed); only files are hidden, those matched and those under a
// matched directory.
type sourceView struct {
	filesys.FileSystem
	b *builder
}

func (v sourceView) Walk(root string, walkFn filepath.WalkFunc) error {
	var hidden []string
	return v.FileSystem.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil || info == nil || path == root {
			return walkFn(path, info, err)
		}
		matched := v.b.ignored.Match(strings.Split(path, string(filepath.Separator)), info.IsDir())
		under := slices.ContainsFunc(hidden, func(dir string) bool { return strings.HasPrefix(path, dir+string(filepath.Separator)) })
		if info.IsDir() {
			if matched && !under {
				hidden = append(hidden, path)
			}
			return walkFn(path, info, err)
		}
		if matched || under {
			return nil
		}
		return walkFn(path, info, err)
	})
}

// artifactView is an ExternalArtifact's tree. Flux's generator reads only
// the disk, so the artifact's kustomization file is generated the same way
// by generateKustomization, on artifactFS.
type artifactView struct {
	fs *artifactFS
	b  *builder
}

func (v artifactView) base() filesys.FileSystem { return v.fs }
func (v artifactView) name(p string) string     { return v.fs.name(p) }
func (v artifactView) diskPath(p string) string { return v.fs.diskPath(p) }

func (v artifactView) generate(ks map[string]any, dir string, validate bool) ([]byte, string, bool, error) {
	data, kfile, listed, err := generateKustomization(v.fs, ks, dir, validate)
	if lim, ok := input.IsLimit(err); ok {
		return nil, "", listed, v.b.relLimit(lim)
	}
	if err != nil {
		return nil, "", listed, fmt.Errorf("kustomization generation failed: %w", err)
	}
	return data, kfile, listed, nil
}
