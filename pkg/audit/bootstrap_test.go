package audit

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// writeTree writes files (path: content) under a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// onedr0pCRDs is onedr0p/home-ops's bootstrap/helmfile/crds.yaml, trimmed:
// charts computed by a template from each app's ocirepository.yaml.
const onedr0pCRDs = `---
helmDefaults:
  args:
    - --include-crds
    - --no-hooks
bases:
  - default.yaml
defaultInherit: default
releases:
  - name: grafana-operator
    namespace: o11y
  - name: kube-prometheus-stack
    namespace: o11y
`

// xunholyHelmfile is a Go-templated helmfile, as xunholy/k8s-gitops keeps it.
const xunholyHelmfile = `---
{{- $rootDir := requiredEnv "ROOT_DIR" }}
{{- $certManager := readFile (printf "%s/kubernetes/apps/cert-manager/ocirepository.yaml" $rootDir) | fromYaml }}
releases:
  - name: cert-manager
    namespace: network-system
    chart: {{ $certManager.spec.url }}
    version: {{ $certManager.spec.ref.tag }}
    values: ['{{ $rootDir }}/values.yaml']
  - name: spare
    chart: oci://example.com/charts/spare
    installed: false
`

func TestDetectBootstrap(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"bootstrap/helmfile/crds.yaml":              onedr0pCRDs,
		"kubernetes/bootstrap/helmfile.yaml.gotmpl": xunholyHelmfile,
		"bootstrap/helmfile.d/01-apps.yaml":         "releases:\n  - name: cilium\n    namespace: kube-system\n    chart: oci://quay.io/cilium/charts/cilium\n    values:\n      - {ipam: {mode: kubernetes}}\n",
		"talos/cni/kustomization.yaml":              "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nhelmCharts:\n  - name: cilium\n    repo: https://helm.cilium.io\n    releaseName: cilium\n    namespace: kube-system\n",
		"bootstrap/crds/kustomization.yaml":         "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - widgets.yaml\n  - github.com/kubernetes-csi/external-snapshotter//client/config/crd?ref=v8.2.0\n",
		"bootstrap/crds/widgets.yaml":               "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec: {group: example.com, names: {kind: Widget}}\n",
		// A CRD bundle nothing applies (kept for standup resume --crds).
		"bootstrap/repair/gadgets.yaml": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: gadgets.example.com}\nspec: {group: example.com, names: {kind: Gadget}}\n",
		"bootstrap/mod.just":            "apply:\n    kubectl apply --server-side -f https://github.com/kubernetes-sigs/gateway-api/releases/download/v1.3.0/standard-install.yaml\n",
		// Not under a bootstrap directory: Flux's business.
		"kubernetes/apps/helmfile.yaml": "releases:\n  - name: nope\n    chart: nope/nope\n",
	})
	b, err := DetectBootstrap(context.Background(), dir, "kubernetes/flux/cluster")
	if err != nil {
		t.Fatal(err)
	}
	var releases []string
	for _, r := range b.Releases {
		releases = append(releases, r.File+" "+r.Namespace+"/"+r.Name+" chart="+r.Chart)
	}
	slices.Sort(releases)
	want := []string{
		"bootstrap/helmfile.d/01-apps.yaml kube-system/cilium chart=oci://quay.io/cilium/charts/cilium",
		"bootstrap/helmfile/crds.yaml o11y/grafana-operator chart=",
		"bootstrap/helmfile/crds.yaml o11y/kube-prometheus-stack chart=",
		"kubernetes/bootstrap/helmfile.yaml.gotmpl network-system/cert-manager chart=",
		"talos/cni/kustomization.yaml kube-system/cilium chart=cilium",
	}
	if !slices.Equal(releases, want) {
		t.Errorf("releases:\n got %q\nwant %q", releases, want)
	}
	for _, r := range b.Releases {
		if r.Name == "cilium" && strings.HasPrefix(r.File, "bootstrap/") && r.Values["ipam"] == nil {
			t.Errorf("inline values lost: %+v", r)
		}
	}
	if len(b.CRDs) != 1 || b.CRDs[0].Kind != (GroupKind{Group: "example.com", Kind: "Widget"}) {
		t.Errorf("CRDs %+v, want only the Widget a kustomization applies", b.CRDs)
	}
	var urls []string
	for _, m := range b.Manifests {
		urls = append(urls, m.URL)
	}
	for _, u := range []string{"github.com/kubernetes-csi/external-snapshotter//client/config/crd?ref=v8.2.0", "https://github.com/kubernetes-sigs/gateway-api/releases/download/v1.3.0/standard-install.yaml"} {
		if !slices.Contains(urls, u) {
			t.Errorf("manifest %s not found in %q", u, urls)
		}
	}
	for _, u := range urls {
		if strings.Contains(u, "keda") {
			t.Errorf("a README's URL taken as installed: %s", u)
		}
	}
}

// TestBootstrapScope: a bootstrap directory with one directory per cluster
// counts only the cluster --path names (haraldkoch/kochhaus-home).
func TestBootstrapScope(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"bootstrap/main/helmfile.d/00-crds.yaml":    "releases:\n  - name: keda\n    chart: oci://ghcr.io/kedacore/keda\n",
		"bootstrap/network/helmfile.d/00-crds.yaml": "releases:\n  - name: envoy-gateway\n    chart: oci://mirror.gcr.io/envoyproxy/gateway-helm\n",
		"bootstrap/README.md":                       "no releases here\n",
	})
	for _, tt := range []struct{ path, want string }{
		{"kubernetes/main/flux/cluster", "keda"},
		{"kubernetes/network/flux/cluster", "envoy-gateway"},
		{"kubernetes/flux/cluster", "envoy-gateway,keda"},
	} {
		b, err := DetectBootstrap(context.Background(), dir, tt.path)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range b.Releases {
			got = append(got, r.Name)
		}
		slices.Sort(got)
		if strings.Join(got, ",") != tt.want {
			t.Errorf("%s: releases %q, want %s", tt.path, got, tt.want)
		}
	}
}

func TestStripTemplates(t *testing.T) {
	in := "{{- $x := 1 }}\nchart: {{ $oci.spec.url }}\nname: '{{ .Release.Name }}'\n{{ if x }}\n{% for r in rs %}\nkeep: true\n{{- range $a := list\n  1 2 }}\nafter: yes\n"
	want := "chart: __templated__\nname: '__templated__'\nkeep: true\nafter: yes\n"
	if got := string(stripTemplates([]byte(in))); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestBootstrapKinds: the audit resolves bootstrap releases to kinds with
// the catalog, finding a templated chart from the repository's HelmRelease
// of the same name, and its values.
func TestBootstrapKinds(t *testing.T) {
	oci := obj("source.toolkit.fluxcd.io/v1", "OCIRepository", "cert-manager/cert-manager", "spec", map[string]any{"url": "oci://quay.io/jetstack/charts/cert-manager"})
	hr := func(values map[string]any) *unstructured.Unstructured {
		return obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "cert-manager/cert-manager", "spec", map[string]any{
			"chartRef": map[string]any{"kind": "OCIRepository", "name": "cert-manager"}, "values": values})
	}
	boot := &Bootstrap{Releases: []BootstrapRelease{{File: "bootstrap/helmfile/apps.yaml", Namespace: "cert-manager", Name: "cert-manager"}}}
	tests := []struct {
		name   string
		values map[string]any
		want   Origin
	}{
		{"the release's values install the CRDs", map[string]any{"crds": map[string]any{"enabled": true}}, OriginBootstrap},
		{"the release's values leave them out", map[string]any{"crds": map[string]any{"enabled": false}}, OriginChart},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := result(ks{name: "cert-manager", objects: objects(oci, hr(tt.values), issuer())})
			r, err := Audit(res, nil, Options{Bootstrap: boot})
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range r.Kinds {
				if u.Kind == "ClusterIssuer" && u.Origin != tt.want && !(tt.want == OriginChart && u.Origin == OriginUnknown) {
					t.Errorf("ClusterIssuer: %+v, want %s", u, tt.want)
				}
			}
			if tt.want == OriginBootstrap && (len(r.Hazards) != 0 || len(r.Bootstrap) != 1 || r.Bootstrap[0].Catalog != "cert-manager") {
				t.Errorf("hazards %+v, bootstrap %+v", r.Hazards, r.Bootstrap)
			}
		})
	}
}

// FuzzBootstrapFile: any file under a bootstrap directory is read without
// a panic, and every release it yields has a name.
func FuzzBootstrapFile(f *testing.F) {
	f.Add([]byte(onedr0pCRDs))
	f.Add([]byte(xunholyHelmfile))
	f.Add([]byte("kind: Kustomization\napiVersion: kustomize.config.k8s.io/v1beta1\nhelmCharts: [{name: a}, 3, {releaseName: b}]\nresources: [github.com/x/y]\n"))
	f.Add([]byte("{{ if\n}}\n{%\nreleases: {{ }}\n---\nkind: CustomResourceDefinition\napiVersion: apiextensions.k8s.io/v1\nspec: 7\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b := &Bootstrap{}
		b.add("bootstrap/f.yaml", data)
		for _, r := range b.Releases {
			if r.Name == "" {
				t.Fatalf("release without a name: %+v", r)
			}
		}
	})
}

// TestBootstrapIsTheLocalCluster: a bootstrap installs into the cluster
// Flux runs in, not into the spokes it applies to (spec.kubeConfig).
func TestBootstrapIsTheLocalCluster(t *testing.T) {
	boot := &Bootstrap{Releases: []BootstrapRelease{{File: "bootstrap/helmfile.yaml", Namespace: "cert-manager", Name: "cert-manager", Chart: "jetstack/cert-manager"}}}
	res := result(ks{name: "hub", objects: objects(issuer())}, ks{name: "spoke", kubeConfig: "spoke-kubeconfig", objects: objects(issuer())})
	r, err := Audit(res, nil, Options{Bootstrap: boot})
	if err != nil {
		t.Fatal(err)
	}
	origins := map[string]Origin{}
	for _, u := range r.Kinds {
		origins[u.Kustomization.Name] = u.Origin
	}
	if origins["hub"] != OriginBootstrap || origins["spoke"] != OriginUnknown {
		t.Errorf("origins %v: want the hub's from the bootstrap, the spoke's unknown", origins)
	}
}
