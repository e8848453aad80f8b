package kbuild

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"sigs.k8s.io/kustomize/api/konfig"
)

// diagnose looks for the malformed file behind a failed build: the
// kustomization file in dir (or, when there is none, the manifests Flux's
// generator would list), then every file the build read. It returns a
// *MalformedError naming the first malformed file and document, else cause.
func (b *Builder) diagnose(v View, dir string, reads []string, cause error) error {
	var candidates []string
	switch {
	case v.diskPath(dir) != dir:
		// An artifact's directory: the files read name its candidates.
	case kustomizationFile(dir) != "":
		candidates = append(candidates, kustomizationFile(dir))
	default:
		candidates = append(candidates, scanManifestFiles(dir)...)
	}
	candidates = append(candidates, reads...)
	seen := map[string]bool{}
	for _, path := range candidates {
		if seen[path] || !isManifestFile(path) {
			continue
		}
		seen[path] = true
		data, err := b.disk.ReadFile(path)
		if err != nil {
			continue
		}
		if _, err := ReadManifests(data); err != nil {
			var malformed *MalformedError
			if errors.As(err, &malformed) {
				malformed.File = b.Rel(path)
				return malformed
			}
		}
	}
	return cause
}

// kustomizationFile returns the kustomization file kustomize recognises in
// dir, or "" when there is none.
func kustomizationFile(dir string) string {
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		path := filepath.Join(dir, name)
		if info, err := os.Stat(path); err == nil && !info.IsDir() {
			return path
		}
	}
	return ""
}

// scanManifestFiles lists the YAML files under dir the way Flux's generator
// does when it writes a kustomization.yaml: a sub-directory that has its own
// kustomization file contributes that file and is not descended into.
func scanManifestFiles(dir string) []string {
	var files []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return nil
		}
		if d.IsDir() {
			if kfile := kustomizationFile(path); kfile != "" {
				files = append(files, kfile)
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(path); ext == ".yaml" || ext == ".yml" {
			files = append(files, path)
		}
		return nil
	})
	return files
}

// isManifestFile reports whether path is a file a build parses as YAML.
func isManifestFile(path string) bool {
	ext := filepath.Ext(path)
	return ext == ".yaml" || ext == ".yml" ||
		slices.Contains(konfig.RecognizedKustomizationFileNames(), filepath.Base(path))
}
