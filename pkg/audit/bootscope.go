package audit

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// bootstrapDirs are the directory names whose files run before Flux.
var bootstrapDirs = []string{"bootstrap", "talos"}

// genericDirs are directory names that say what a folder is for, never
// which cluster it is: a segment of --path that is one of them is not the
// cluster's name, and a folder of a per-cluster bootstrap directory that is
// one of them holds a step every cluster shares (bootstrap/flux beside
// bootstrap/main). Compared lower-cased.
var genericDirs = []string{
	"addons", "app", "apps", "base", "bases", "bootstrap", "charts", "cluster", "clusters",
	"cni", "common", "components", "config", "configs", "core", "crd", "crds", "deploy",
	"flux", "flux-system", "fluxcd", "gitops", "global", "helm", "helmfile", "helmfile.d",
	"infra", "infrastructure", "k8s", "kube", "kubernetes", "kustomize", "manifests",
	"overlays", "platform", "resources", "scripts", "secrets", "shared", "sops", "sync",
	"system", "talos", "templates", "tools",
}

// isGeneric reports whether a directory name is one of genericDirs.
func isGeneric(name string) bool {
	return slices.Contains(genericDirs, strings.ToLower(name))
}

// bootstrapScope returns the path segments of rel below its bootstrap (or
// talos) directory, directories only; nil when rel is not under one.
func bootstrapScope(rel string) []string {
	_, scope, ok := bootstrapDir(rel)
	if !ok {
		return nil
	}
	return scope
}

// bootstrapDir splits rel at the innermost bootstrap (or talos) directory
// holding it: that directory, relative to the repository root, and the
// directories between it and the file. A talconfig.yaml elsewhere is its
// own directory's. ok is false when rel is under none.
func bootstrapDir(rel string) (dir string, scope []string, ok bool) {
	segs := strings.Split(rel, "/")
	for i := len(segs) - 2; i >= 0; i-- {
		if slices.Contains(bootstrapDirs, strings.ToLower(segs[i])) {
			return strings.Join(segs[:i+1], "/"), append([]string{}, segs[i+1:len(segs)-1]...), true
		}
	}
	if strings.EqualFold(segs[len(segs)-1], "talconfig.yaml") {
		return path.Dir(rel), []string{}, true
	}
	return "", nil, false
}

// clusterPathSegments splits --path, relative to the repository root, into
// its directory names.
func clusterPathSegments(clusterPath string) []string {
	p := path.Clean(filepath.ToSlash(clusterPath))
	if p == "." || p == "/" {
		return nil
	}
	return strings.Split(strings.Trim(p, "/"), "/")
}

// selectScope keeps the bootstrap files that install into the cluster
// clusterPath (--path, relative to the repository root) belongs to. Each
// bootstrap directory is scoped on its own: it holds one folder per
// cluster when one of its first-level folders has the name of a segment of
// clusterPath that is not a generic word (genericDirs: bootstrap/main for
// kubernetes/main/flux/cluster, not bootstrap/flux), and the directory does
// not lie inside that cluster's own folder (kubernetes/main/bootstrap/flux
// is a step of cluster main, not a cluster). Only then are its other
// first-level folders dropped, except those with generic names, which every
// cluster shares; its own files, and the files of every other bootstrap
// directory, are kept.
func selectScope(files []string, clusterPath string) []string {
	segs := clusterPathSegments(clusterPath)
	chosen := map[string][]string{} // bootstrap directory -> its cluster folders
	for _, f := range files {
		dir, scope, ok := bootstrapDir(f)
		if ok && len(scope) > 0 && isClusterFolder(dir, scope[0], segs) && !slices.Contains(chosen[dir], scope[0]) {
			chosen[dir] = append(chosen[dir], scope[0])
		}
	}
	var out []string
	for _, f := range files {
		dir, scope, _ := bootstrapDir(f)
		if keep, perCluster := chosen[dir]; perCluster && len(scope) > 0 && !slices.Contains(keep, scope[0]) && !isGeneric(scope[0]) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// isClusterFolder reports whether folder, a first-level folder of the
// bootstrap directory dir, is the folder of the cluster segs (--path)
// names: folder is a segment of segs, not a generic word, and dir is not
// inside the folder of a cluster segs names.
func isClusterFolder(dir, folder string, segs []string) bool {
	if isGeneric(folder) || !slices.Contains(segs, folder) {
		return false
	}
	for i, s := range segs {
		if !isGeneric(s) && strings.HasPrefix(dir+"/", strings.Join(segs[:i+1], "/")+"/") {
			return false // the bootstrap steps of the cluster's own folder
		}
	}
	return true
}
