package crds

import (
	"fmt"
	"os"
	"path/filepath"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// WriteCaptured writes each CRD, stripped for capture (StripForCapture,
// MarshalCRD), into dir as NAME.yaml, creating dir when needed. It returns
// the paths written, in order; on an error, those written before it.
func WriteCaptured(dir string, list []*apiextensionsv1.CustomResourceDefinition) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	var written []string
	for _, crd := range list {
		data, err := MarshalCRD(StripForCapture(crd))
		if err != nil {
			return written, fmt.Errorf("CustomResourceDefinition/%s: %w", crd.Name, err)
		}
		path := filepath.Join(dir, crd.Name+".yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return written, fmt.Errorf("capture: %w", err)
		}
		written = append(written, path)
	}
	return written, nil
}
