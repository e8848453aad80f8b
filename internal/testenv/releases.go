package testenv

import (
	"os"
	"strings"
)

// DefaultRelease is the kustomize-controller release every test runs against.
const DefaultRelease = KustomizeControllerVersion

// Releases returns the kustomize-controller releases the release-matrix
// tests run against: STANDUP_CONTROLLER_RELEASES (comma separated, as
// scripts/test.sh sets it), else the default release alone.
func Releases() []string {
	env := os.Getenv("STANDUP_CONTROLLER_RELEASES")
	if env == "" {
		return []string{DefaultRelease}
	}
	var out []string
	for _, r := range strings.Split(env, ",") {
		if r = strings.TrimSpace(r); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// ForRelease returns opts running the given kustomize-controller release,
// built by scripts/testenv.sh as kustomize-controller-<release> beside the
// default one.
func (opts Options) ForRelease(release string) Options {
	if release != DefaultRelease {
		opts.ControllerBinary = "kustomize-controller-" + release
	}
	return opts
}
