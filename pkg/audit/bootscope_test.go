package audit

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubestandup/standup/pkg/catalog"
	"github.com/kubestandup/standup/pkg/render"
)

// TestSelectScope: issue 35. Each bootstrap directory is scoped on its
// own; the per-cluster choice applies only to a folder named by a segment
// of --path that is not a generic word, never inside the cluster's own
// folder, and keeps the shared (generic) folders beside it.
func TestSelectScope(t *testing.T) {
	tests := []struct {
		name  string
		path  string
		files []string
		// dropped are the files selectScope leaves out; all others stay.
		dropped []string
	}{
		{
			name: "one folder per cluster (haraldkoch/kochhaus-home)",
			path: "kubernetes/main/flux/cluster",
			files: []string{"bootstrap/main/helmfile.d/00-crds.yaml", "bootstrap/network/helmfile.d/00-crds.yaml",
				"bootstrap/registry/helmfile.d/00-crds.yaml", "bootstrap/README.md"},
			dropped: []string{"bootstrap/network/helmfile.d/00-crds.yaml", "bootstrap/registry/helmfile.d/00-crds.yaml"},
		},
		{
			name:  "no cluster named: everything counts",
			path:  "kubernetes/flux/cluster",
			files: []string{"bootstrap/main/helmfile.yaml", "bootstrap/network/helmfile.yaml"},
		},
		{
			name: "talos/<cluster> does not scope bootstrap/helmfile",
			path: "kubernetes/main/flux/cluster",
			files: []string{"talos/main/talconfig.yaml", "talos/lab/talconfig.yaml", "talos/README.md",
				"bootstrap/helmfile/helmfile.yaml", "bootstrap/crds/kustomization.yaml"},
			dropped: []string{"talos/lab/talconfig.yaml"},
		},
		{
			name: "bootstrap steps in the cluster's own folder are not clusters",
			path: "kubernetes/main/flux/cluster",
			files: []string{"kubernetes/main/bootstrap/crds/kustomization.yaml", "kubernetes/main/bootstrap/crds/silences.yaml",
				"kubernetes/main/bootstrap/flux/kustomization.yaml", "kubernetes/main/bootstrap/talos/talconfig.yaml"},
		},
		{
			name: "nor when a step is named like a segment of --path below the cluster",
			path: "clusters/main/platform/ingress",
			files: []string{"clusters/main/bootstrap/ingress/helmfile.yaml", "clusters/main/bootstrap/crds/kustomization.yaml",
				"clusters/main/bootstrap/certs/helmfile.yaml"},
		},
		{
			name: "a talos/<cluster> folder elsewhere leaves the rest of the repository alone",
			path: "clusters/main",
			files: []string{"infrastructure/talos/main/talconfig.yaml", "infrastructure/talos/lab/talconfig.yaml",
				"bootstrap/resources.yaml", "bootstrap/crds/kustomization.yaml", "bootstrap/apps/helmfile.yaml"},
			dropped: []string{"infrastructure/talos/lab/talconfig.yaml"},
		},
		{
			name:  "a generic word in --path names no cluster",
			path:  "kubernetes/flux/cluster",
			files: []string{"bootstrap/flux/kustomization.yaml", "bootstrap/crds/kustomization.yaml", "bootstrap/helmfile/apps.yaml"},
		},
		{
			name: "cluster main beside the shared flux and crds folders",
			path: "kubernetes/main/flux/cluster",
			files: []string{"bootstrap/main/helmfile.yaml", "bootstrap/staging/helmfile.yaml",
				"bootstrap/flux/kustomization.yaml", "bootstrap/crds/kustomization.yaml"},
			dropped: []string{"bootstrap/staging/helmfile.yaml"},
		},
		{
			name:    "whole names only",
			path:    "kubernetes/main-eu/flux",
			files:   []string{"bootstrap/main/helmfile.yaml", "bootstrap/main-eu/helmfile.yaml"},
			dropped: []string{"bootstrap/main/helmfile.yaml"},
		},
		{
			name:  "--path at the root",
			path:  ".",
			files: []string{"bootstrap/main/helmfile.yaml", "talconfig.yaml"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := selectScope(tt.files, tt.path)
			var want []string
			for _, f := range tt.files {
				if !slices.Contains(tt.dropped, f) {
					want = append(want, f)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("kept:\n %s\nwant:\n %s", strings.Join(got, "\n "), strings.Join(want, "\n "))
			}
		})
	}
}

// TestBootstrapLayouts: issue 35. Each fixture under
// testdata/bootstrap-layouts is a small repository laid out as real ones
// are, whose cold start is safe only through its bootstrap (cert-manager's
// ClusterIssuer beside its HelmRelease, Silences, PrometheusRules and
// Gateways whose CRDs nothing in Flux applies). Every bootstrap file of
// the cluster is found, none of another cluster's, and the audit finds
// nothing: before, each layout lost bootstrap files and gave false errors
// or notices.
func TestBootstrapLayouts(t *testing.T) {
	tests := []struct {
		fixture, path string
		// files are the bootstrap files that say something (a release, a
		// CRD, a manifest URL) for the cluster: all and only these.
		files []string
	}{
		{"talos-helmfile", "kubernetes/main/flux/cluster",
			[]string{"bootstrap/helmfile/helmfile.yaml", "talos/main/talconfig.yaml"}},
		{"cluster-folder", "kubernetes/main/flux/cluster",
			[]string{"kubernetes/main/bootstrap/crds/silences.yaml", "kubernetes/main/bootstrap/flux/kustomization.yaml",
				"kubernetes/main/bootstrap/helmfile.yaml", "kubernetes/main/bootstrap/talos/talconfig.yaml"}},
		{"talos-elsewhere", "clusters/main",
			[]string{"bootstrap/apps/helmfile.yaml", "bootstrap/crds/silences.yaml", "infrastructure/talos/main/talconfig.yaml"}},
		{"generic-flux", "kubernetes/flux/cluster",
			[]string{"bootstrap/crds/kustomization.yaml", "bootstrap/crds/silences.yaml", "bootstrap/flux/kustomization.yaml",
				"bootstrap/helmfile/helmfile.yaml"}},
		{"cluster-main", "kubernetes/main/flux/cluster",
			[]string{"bootstrap/crds/silences.yaml", "bootstrap/flux/kustomization.yaml", "bootstrap/main/helmfile.yaml",
				"bootstrap/main/talconfig.yaml"}},
		{"kubebuilder-url", "kubernetes/flux/cluster", []string{"bootstrap/mod.just"}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			root := filepath.Join("testdata", "bootstrap-layouts", tt.fixture)
			b, err := DetectBootstrap(context.Background(), root, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			var files []string
			add := func(f string) {
				if !slices.Contains(files, f) {
					files = append(files, f)
				}
			}
			for _, r := range b.Releases {
				add(r.File)
			}
			for _, c := range b.CRDs {
				add(c.File)
			}
			for _, m := range b.Manifests {
				add(m.File)
			}
			slices.Sort(files)
			if !slices.Equal(files, tt.files) {
				t.Errorf("bootstrap files:\n got %q\nwant %q", files, tt.files)
			}
			r := auditDir(t, root, tt.path)
			for _, f := range r.Findings {
				t.Errorf("false finding %s %s %s: %s", f.Severity, f.Code, f.Kind, f.Places[0].Message)
			}
		})
	}
}

// TestKubebuilderURLs: issue 35. A bootstrap step that applies one CRD
// by the file name controller-gen gives it (config/crd/bases/<group>_<plural>.yaml)
// installs that CRD; a URL applied that nothing recognises is listed as
// unrecognised; links, comments and prose are not manifests.
func TestKubebuilderURLs(t *testing.T) {
	r := auditDir(t, filepath.Join("testdata", "bootstrap-layouts", "kubebuilder-url"), "kubernetes/flux/cluster")
	got := map[string]string{}
	for _, u := range r.Bootstrap {
		var kinds []string
		for _, k := range u.Kinds {
			kinds = append(kinds, k.String())
		}
		v := strings.Join(kinds, ",")
		if u.Unrecognised {
			v = "unrecognised"
		}
		got[u.What] = v
	}
	const raw = "https://raw.githubusercontent.com/"
	want := map[string]string{
		"CRD dragonflies.dragonflydb.io (manifest " + raw + "dragonflydb/dragonfly-operator/v1.1.11/config/crd/bases/dragonflydb.io_dragonflies.yaml)":                  "Dragonfly.dragonflydb.io",
		"CRD talosupgrades.tuppr.home-operations.com (manifest " + raw + "home-operations/tuppr/v0.0.40/config/crd/bases/tuppr.home-operations.com_talosupgrades.yaml)": "TalosUpgrade.tuppr.home-operations.com",
		"CRD widgetpolicies.widgets.example.io (manifest " + raw + "example-org/widget-operator/v0.3.0/config/crds/widgets.example.io_widgetpolicies.yaml)":             "WidgetPolicy.widgets.example.io",
		"manifest https://example.com/releases/v2.0.0/operator-install.yaml":                                                                                            "unrecognised",
	}
	if len(got) != len(want) {
		t.Errorf("bootstrap: got %d uses %v, want %d", len(got), got, len(want))
	}
	for what, kinds := range want {
		if got[what] != kinds {
			t.Errorf("%s: got %q, want %q", what, got[what], kinds)
		}
	}
}

func TestKubebuilderCRD(t *testing.T) {
	tests := []struct {
		url, group, plural string
	}{
		{"https://raw.githubusercontent.com/org/op/v1.0.0/config/crd/bases/cache.example.com_memcacheds.yaml", "cache.example.com", "memcacheds"},
		{"https://raw.githubusercontent.com/org/op/main/config/crds/apps.example.io_widgetpolicies.yml?ref=x", "apps.example.io", "widgetpolicies"},
		{"github.com/org/op/charts/op/crds/dragonflydb.io_dragonflies.yaml", "dragonflydb.io", "dragonflies"},
		// Not one CRD by controller-gen's name.
		{"https://raw.githubusercontent.com/org/op/v1/config/crd/bases/bundle.yaml", "", ""},
		{"https://example.com/releases/cache.example.com_memcacheds.yaml", "", ""},                   // no crd folder
		{"https://raw.githubusercontent.com/org/op/v1/config/crds/apps_v1beta1_widget.yaml", "", ""}, // kubebuilder v1: no full group
		{"github.com/org/op//config/crd?ref=v1", "", ""},
	}
	for _, tt := range tests {
		group, plural, ok := kubebuilderCRD(tt.url)
		if ok != (tt.group != "") || group != tt.group || plural != tt.plural {
			t.Errorf("%s: got %q %q %v, want %q %q", tt.url, group, plural, ok, tt.group, tt.plural)
		}
	}
}

func TestPluralMatches(t *testing.T) {
	tests := []struct {
		kind, plural string
		want         bool
	}{
		{"Dragonfly", "dragonflies", true},
		{"Gateway", "gateways", true},
		{"Gateway", "gatewaies", true}, // UnsafeGuessKindToResource's guess
		{"Ingress", "ingresses", true},
		{"Certificate", "certificates", true},
		{"Match", "matches", true},
		{"Box", "boxes", true},
		{"WidgetPolicy", "widgetpolicies", true},
		{"Octopus", "octopi", false}, // irregular: only the CRD can say
		{"Widget", "gadgets", false},
		{"", "s", false},
	}
	for _, tt := range tests {
		if got := pluralMatches(tt.kind, tt.plural); got != tt.want {
			t.Errorf("pluralMatches(%q, %q) = %v, want %v", tt.kind, tt.plural, got, tt.want)
		}
	}
}

// TestKindsOfPlural: a CRD the repository renders says its plural; else
// the catalog's and the rendered objects' kinds match by the plural rules.
func TestKindsOfPlural(t *testing.T) {
	octopus := obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "octopi.sea.example.com",
		"spec", map[string]any{"group": "sea.example.com", "names": map[string]any{"kind": "Octopus", "plural": "octopi"}})
	res := result(ks{name: "sea", objects: objects(octopus, obj("sea.example.com/v1", "Octopus", "default/paul"),
		obj("dragonflydb.io/v1alpha1", "Dragonfly", "db/cache"))})
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	ix := newIndex(res, &Config{}, nil, cat)
	tests := []struct{ group, plural, want string }{
		{"sea.example.com", "octopi", "Octopus.sea.example.com"},
		{"dragonflydb.io", "dragonflies", "Dragonfly.dragonflydb.io"},
		{"tuppr.home-operations.com", "kubernetesupgrades", "KubernetesUpgrade.tuppr.home-operations.com"}, // the catalog's
		{"dragonflydb.io", "backups", ""},
	}
	for _, tt := range tests {
		var got []string
		for _, gk := range ix.kindsOfPlural(tt.group, tt.plural) {
			got = append(got, gk.String())
		}
		if strings.Join(got, ",") != tt.want {
			t.Errorf("%s_%s: got %q, want %q", tt.group, tt.plural, got, tt.want)
		}
	}
}

// TestBootstrapBesideTheRepositoryRoot: issue 35. A repository root inside
// a git repository (xunholy/k8s-gitops pushes kubernetes/ as its artifact)
// may have its bootstrap beside it, at the top of the git repository: a
// talos/ whose extraManifests apply CRDs before Flux. DetectBootstrapIn
// reads it, so onedr0p's cert-manager deadlock (ClusterIssuer beside its
// HelmRelease) is no deadlock when ../talos applies cert-manager's CRDs;
// without the .git that makes that directory the git root, nor above a
// deeper directory, it is not read and the deadlock stands.
func TestBootstrapBesideTheRepositoryRoot(t *testing.T) {
	const talos = "cluster:\n  extraManifests:\n    - https://github.com/cert-manager/cert-manager/releases/download/v1.19.1/cert-manager.crds.yaml\n"
	tests := []struct {
		name      string
		git       bool
		talosDir  string // relative to the top
		wantFiles []string
		wantErrs  int
	}{
		{"talos beside the root, at the git root", true, "talos", []string{"../talos/controlplane.yaml"}, 0},
		{"in a hidden directory of the git root", true, ".taskfiles/bootstrap", []string{"../.taskfiles/bootstrap/controlplane.yaml"}, 0},
		{"no git repository", false, "talos", nil, 1},
		{"deeper in the git repository", true, "other/talos", nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := t.TempDir()
			repo := filepath.Join(top, "repo")
			copyTree(t, "testdata/onedr0p-cert-manager", repo)
			writeFile(t, filepath.Join(top, tt.talosDir, "controlplane.yaml"), talos)
			if tt.git {
				writeFile(t, filepath.Join(top, ".git", "HEAD"), "ref: refs/heads/main\n")
			}
			ctx := context.Background()
			res, err := render.Load(ctx, render.Options{Path: filepath.Join(repo, "kubernetes/flux/cluster"), RepoRoot: repo})
			if err != nil {
				t.Fatal(err)
			}
			b, err := DetectBootstrapIn(ctx, res.GitRoot, res.RepoRoot, res.Path)
			if err != nil {
				t.Fatal(err)
			}
			var files []string
			for _, m := range b.Manifests {
				files = append(files, m.File)
			}
			if !slices.Equal(files, tt.wantFiles) {
				t.Errorf("bootstrap manifests from %q, want %q", files, tt.wantFiles)
			}
			r, err := Audit(res, nil, Options{Bootstrap: b})
			if err != nil {
				t.Fatal(err)
			}
			if r.Errors() != tt.wantErrs {
				t.Errorf("%d errors, want %d: %+v", r.Errors(), tt.wantErrs, r.Findings)
			}
		})
	}
}

// writeFile writes text at path, making its directories.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
