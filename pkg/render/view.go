package render

import (
	"fmt"

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
	// Kustomization ks, and that file's path.
	generate(ks map[string]any, dir string) ([]byte, string, error)
}

// checkoutView is the checkout, where fluxcd/pkg/kustomize's generator
// reads the disk itself.
type checkoutView struct{ b *builder }

func (v checkoutView) base() filesys.FileSystem { return v.b.disk }
func (v checkoutView) name(p string) string     { return v.b.rel(p) }
func (v checkoutView) diskPath(p string) string { return p }

func (v checkoutView) generate(ks map[string]any, dir string) ([]byte, string, error) {
	if lim := v.b.precheck(dir); lim != nil {
		return nil, "", lim
	}
	data, kfile, _, err := v.b.generator(ks, dir).GenerateManifest(dir)
	if err != nil {
		return nil, "", v.b.diagnose(v, dir, nil, fmt.Errorf("kustomization generation failed: %w", err))
	}
	return data, kfile, nil
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

func (v artifactView) generate(ks map[string]any, dir string) ([]byte, string, error) {
	data, kfile, err := generateKustomization(v.fs, ks, dir)
	if lim, ok := input.IsLimit(err); ok {
		return nil, "", v.b.relLimit(lim)
	}
	if err != nil {
		return nil, "", fmt.Errorf("kustomization generation failed: %w", err)
	}
	return data, kfile, nil
}
