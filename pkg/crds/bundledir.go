package crds

import (
	"fmt"
	"os"
)

// DefaultBundleDir is where resume, crds and check look for the CRD bundle
// when --crds is not given, relative to the working directory.
const DefaultBundleDir = "bootstrap/crds"

// BundleDir returns the bundle directory a command uses: dir when given,
// else DefaultBundleDir when it exists, else "" (no bundle).
func BundleDir(dir string) string {
	if dir != "" {
		return dir
	}
	if st, err := os.Stat(DefaultBundleDir); err == nil && st.IsDir() {
		return DefaultBundleDir
	}
	return ""
}

// LoadBundleOrDefault loads the bundle in BundleDir(dir); it returns nil and
// no error when there is none. An invalid bundle is an error naming the
// directory, returned before anything is applied from it.
func LoadBundleOrDefault(dir string) (*Bundle, error) {
	dir = BundleDir(dir)
	if dir == "" {
		return nil, nil
	}
	b, err := LoadBundle(dir)
	if err != nil {
		return nil, fmt.Errorf("CRD bundle %s is invalid, nothing was applied: %w", dir, err)
	}
	return b, nil
}
