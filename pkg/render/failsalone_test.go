package render

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/render/kbuild"
	"github.com/kubestandup/standup/pkg/tiers"
)

// failsAloneCase is a case of TestLoadFailsAlone.
type failsAloneCase struct {
	name string
	// failed is the object that fails; file and line, the place its
	// failure names.
	failed tiers.ID
	file   string
	line   int
	// reason is what the failure says, past its name.
	reason   string
	kinds    []string
	notExist bool
	// malformedIndex is the malformed document, when the reason is one.
	malformedIndex int
}

// failsAloneCases are the fixtures of testdata/fails-alone, each with the
// one failure it must give.
var failsAloneCases = []failsAloneCase{{
	name:   "missing-path",
	failed: ksID("flux-system", "gone"), file: "clusters/c/root.yaml", line: 1,
	reason:   "Kustomization/flux-system/gone not rendered: kustomization path not found: ./does-not-exist (defined in clusters/c/root.yaml)",
	notExist: true,
}, {
	name:   "unset-var-path",
	failed: ksID("flux-system", "web"), file: "apps/ks.yaml", line: 1,
	reason: "Kustomization/flux-system/web not rendered: kustomization path not found: ./clusters/${CLUSTER_NAME}/web (defined in apps/ks.yaml): a variable in it is not defined; define it in the postBuild of Kustomization/flux-system/apps",
}, {
	name:   "malformed",
	failed: ksID("flux-system", "tier"), file: "tier/bad.yaml", line: 8,
	reason:         "Kustomization/flux-system/tier not rendered: tier/bad.yaml: document 3: ",
	malformedIndex: 3,
}, {
	// kustomize's own message names the directory it could not build.
	name:   "empty-kustomization",
	failed: ksID("flux-system", "apps"), file: "clusters/c/root.yaml",
	reason: "Kustomization/flux-system/apps not rendered (clusters/c/root.yaml): kustomize build failed: accumulating resources: accumulation err='accumulating resources from 'base': read apps/base: is a directory': couldn't make target for path 'apps/base': kustomization.yaml is empty",
}, {
	name:   "component-as-resource",
	failed: ksID("flux-system", "apps"), file: "clusters/c/root.yaml",
	reason: "Kustomization/flux-system/apps not rendered (clusters/c/root.yaml): kustomize build failed: ",
}, {
	name:   "bool-label",
	failed: ksID("flux-system", "apps"), file: "clusters/c/root.yaml",
	reason: `Kustomization/flux-system/apps not rendered (clusters/c/root.yaml): decode failed: metadata.labels["substitution.flux/enabled"] is true (bool): label and annotation values must be strings`,
}, {
	name:   "bad-spec",
	failed: ksID("flux-system", "bad"), file: "clusters/c/root.yaml",
	reason: "Kustomization/flux-system/bad not rendered (clusters/c/root.yaml): decode failed:",
}, {
	name:   "postbuild-error",
	failed: ksID("flux-system", "apps"), file: "clusters/c/root.yaml",
	reason: "Kustomization/flux-system/apps not rendered (clusters/c/root.yaml): post build failed for ConfigMap/default/apps (apps/cm.yaml): 'cluster-name' var name is invalid",
}, {
	// The Kustomization building the path fails: the rest starts from
	// the path's build, as its files hold it.
	name:   "self-postbuild",
	failed: ksID("flux-system", "flux-system"), file: "clusters/c/flux-system.yaml", line: 4,
	reason: "Kustomization/flux-system/flux-system not rendered: post build failed for Kustomization/flux-system/flux-system (clusters/c/flux-system.yaml): 'cluster-name' var name is invalid",
}, {
	name:   "helmrelease-spec",
	failed: hrID("default", "web"), file: "apps/hr.yaml", kinds: []string{KindKustomization, KindHelmRelease},
	reason: "HelmRelease/default/web not rendered (apps/hr.yaml): decode failed: spec.dependsOn[0]: name is empty: the API server rejects it, so the apply of Kustomization/flux-system/apps fails",
}}

// TestLoadFailsAlone: a Kustomization that kustomize-controller would fail
// alone fails alone in the render too (testdata/fails-alone): one
// Result.Failed entry naming it, its file and the reason, on one line,
// while the rest is rendered. In each fixture, Kustomization ok depends on
// the one that fails: it is still rendered, and still ordered after it.
func TestLoadFailsAlone(t *testing.T) {
	for _, tt := range failsAloneCases {
		t.Run(tt.name, func(t *testing.T) {
			res, err := fixture(t, filepath.Join("fails-alone", tt.name), "clusters/c", tt.kinds...)
			if err != nil {
				t.Fatalf("Load = %v; want the Kustomization to fail alone", err)
			}
			if len(res.Failed) != 1 {
				t.Fatalf("Failed = %v, want one failure", res.Failed)
			}
			f := res.Failed[0]
			if f.ID != tt.failed || f.File != tt.file || !strings.HasPrefix(f.Error(), tt.reason) {
				t.Errorf("failure %s at %s:\n %q\nwant %s at %s:\n %q...", f.ID, f.File, f.Error(), tt.failed, tt.file, tt.reason)
			}
			if tt.line != 0 && f.Line != tt.line {
				t.Errorf("failure at line %d, want %d", f.Line, tt.line)
			}
			if strings.Contains(f.Error(), "\n") {
				t.Errorf("failure %q is not one line", f.Error())
			}
			if abs, _ := filepath.Abs("testdata"); strings.Contains(f.Error(), abs) {
				t.Errorf("failure %q names files by absolute path, want them relative to the repository root", f.Error())
			}
			if tt.notExist && !errors.Is(f.Err, fs.ErrNotExist) {
				t.Errorf("failure %q does not wrap fs.ErrNotExist", f.Err)
			}
			if tt.malformedIndex > 0 {
				var malformed *kbuild.MalformedError
				if !errors.As(f.Err, &malformed) || malformed.File != tt.file || malformed.Index != tt.malformedIndex {
					t.Errorf("failure %q is not a *kbuild.MalformedError at %s document %d", f.Err, tt.file, tt.malformedIndex)
				}
			}
			// The failed object is a node; the rest is rendered and ordered.
			objectByID(t, res, tt.failed)
			if tt.failed.Kind == KindKustomization {
				if _, rendered := res.Rendered[tt.failed]; rendered {
					t.Errorf("%s failed but has a Rendered entry", tt.failed)
				}
			}
			ok := ksID("flux-system", "ok")
			if ms := res.Rendered[ok]; len(ms) != 1 || ms[0].Object.GetName() != "ok" {
				t.Errorf("Kustomization ok rendered %v, want its ConfigMap", ms)
			}
			if deps := objectByID(t, res, ok).DependsOn; len(deps) != 1 || !slices.ContainsFunc(res.Objects, func(o flux.Object) bool { return o.ID == deps[0].ID }) {
				t.Errorf("ok depends on %v, want a node of the result", deps)
			}
		})
	}
}
