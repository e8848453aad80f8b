package kbuild

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/kubestandup/standup/internal/input"
	"github.com/kubestandup/standup/pkg/tiers"
)

// View is the files one build reads: the checkout itself
// (Builder.Checkout), or the tree of an ExternalArtifact mapped onto it
// (NewArtifactView). Only this package implements it.
type View interface {
	// base is the read-only file system kustomize reads.
	base() filesys.FileSystem
	// name names an absolute path in messages and in Manifest.File,
	// relative to the repository root.
	name(path string) string
	// diskPath returns the checkout file behind an absolute path of base,
	// or "" when there is none.
	diskPath(path string) string
	// generate returns the kustomization file Flux makes for dir from the
	// Kustomization ks (see generateKustomization for validate).
	generate(ks map[string]any, dir string, validate bool) (*fluxKfile, error)
}

// checkoutView is the checkout, where fluxcd/pkg/kustomize's generator
// reads the disk itself.
type checkoutView struct{ b *Builder }

func (v checkoutView) base() filesys.FileSystem { return v.b.disk }
func (v checkoutView) name(p string) string     { return v.b.Rel(p) }
func (v checkoutView) diskPath(p string) string { return p }

func (v checkoutView) generate(ks map[string]any, dir string, validate bool) (*fluxKfile, error) {
	gen, err := generateKustomization(sourceView{FileSystem: v.b.disk, b: v.b}, ks, dir, validate, v.b.scanManifests)
	if lim, ok := input.IsLimit(err); ok {
		return nil, v.b.relLimit(lim)
	}
	if err != nil {
		return nil, v.b.diagnose(v, dir, nil, fmt.Errorf("kustomization generation failed: %w", err))
	}
	return gen, nil
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
	b *Builder
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

// ArtifactView is an ExternalArtifact's tree (NewArtifactView). Flux's
// generator reads only the disk, so the artifact's kustomization file is
// generated the same way by generateKustomization, on artifactFS.
type ArtifactView struct {
	fs *artifactFS
	b  *Builder
}

func (v ArtifactView) base() filesys.FileSystem { return v.fs }
func (v ArtifactView) name(p string) string     { return v.fs.name(p) }
func (v ArtifactView) diskPath(p string) string { return v.fs.diskPath(p) }

func (v ArtifactView) generate(ks map[string]any, dir string, validate bool) (*fluxKfile, error) {
	gen, err := generateKustomization(v.fs, ks, dir, validate, scanManifests)
	if lim, ok := input.IsLimit(err); ok {
		return nil, v.b.relLimit(lim)
	}
	if err != nil {
		return nil, fmt.Errorf("kustomization generation failed: %w", err)
	}
	return gen, nil
}

// NewArtifactView returns the tree of the ExternalArtifact src that out
// describes, each source alias it copies from mapped to a directory of the
// checkout (dirs). The error says why source-watcher would fail to
// generate it.
func (b *Builder) NewArtifactView(src tiers.ID, out OutputArtifact, dirs map[string]string) (*ArtifactView, error) {
	tree, err := buildArtifactTree(out, dirs, b.Ignored, b.disk.ReadFile)
	if err != nil {
		return nil, err
	}
	return &ArtifactView{fs: newArtifactFS(src, b.root, tree, b.disk, b.Rel), b: b}, nil
}

// Resolve resolves a Kustomization's spec.path inside the artifact the way
// kustomize-controller does inside the extracted artifact: the directory
// (an absolute path of the view), whether anything is there, and whether
// it is a directory.
func (v *ArtifactView) Resolve(specPath string) (dir string, exists, isDir bool) {
	dir = v.fs.path(cleanArtifactPath(specPath))
	return dir, v.fs.Exists(dir), v.fs.IsDir(dir)
}

// Artifact returns the ExternalArtifact whose tree v is.
func (v *ArtifactView) Artifact() tiers.ID { return v.fs.id }
