package kbuild

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	sigsyaml "sigs.k8s.io/yaml"
)

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
