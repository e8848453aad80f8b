package catalog

import (
	"strings"
	"testing"
	"time"
)

// builtinCatalog is Default for a test, which fails if the embedded
// catalog does not parse.
func builtinCatalog(t *testing.T) *Catalog {
	t.Helper()
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestBuiltinCatalog checks every entry of catalog.yaml: it parses, through
// Default as every caller reads it, names its source, and no chart or
// manifest pattern is claimed twice.
func TestBuiltinCatalog(t *testing.T) {
	c := builtinCatalog(t)
	if len(c.Entries) < 30 {
		t.Errorf("%d entries; the catalog covers the charts the corpus uses most", len(c.Entries))
	}
	patterns := map[string]string{}
	for _, e := range c.Entries {
		for _, gk := range e.ClusterScoped {
			if e.Installs(gk) == nil && e.Creates(gk) == nil {
				t.Errorf("%s: cluster-scoped %s is none of its kinds", e.Name, gk)
			}
		}
		for _, p := range e.Manifests {
			if prev, dup := patterns[p]; dup {
				t.Errorf("manifest pattern %q in %s and %s", p, prev, e.Name)
			}
			patterns[p] = e.Name
			if strings.Contains(p, "://") || strings.Contains(p, "?") {
				t.Errorf("%s: pattern %q is not normalized (NormalizeURL drops schemes and queries)", e.Name, p)
			}
		}
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"unknown field", "entries: [{name: a, sourc: x}]", "field sourc not found"},
		{"no source", "entries: [{name: a, charts: [a], install: [{groups: [a.io]}]}]", "source is not an https URL"},
		{"no identity", "entries: [{name: a, source: https://x, install: [{groups: [a.io]}]}]", "no charts, manifests, packages or platform"},
		{"no kinds", "entries: [{name: a, source: https://x, charts: [a]}]", "provides no kinds"},
		{"empty install", "entries: [{name: a, source: https://x, charts: [a], install: [{from: crds}]}]", "without groups or kinds"},
		{"bad from", "entries: [{name: a, source: https://x, charts: [a], install: [{groups: [a.io], from: helm}]}]", `install from "helm"`},
		{"trigger missing", "entries: [{name: a, source: https://x, charts: [a], runtime: [{groups: [a.io]}]}]", "without a trigger"},
		{"operator timeout no duration", "entries: [{name: a, source: https://x, charts: [a], runtime: [{trigger: {group: a.io, kind: A}, groups: [b.io], operatorTimeout: soon}]}]", `"soon" is not a positive duration`},
		{"operator without a deployment", "entries: [{name: a, source: https://x, charts: [a], runtime: [{trigger: {group: a.io, kind: A}, groups: [b.io]}], operator: {namespace: a}}]", "an operator without a namespace, a deployment or runtime CRDs"},
		{"chart twice", "entries: [{name: a, source: https://x, charts: [a], install: [{groups: [a.io]}]}, {name: b, source: https://x, charts: [a], install: [{groups: [b.io]}]}]", `chart "a" is named by a and b`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

func TestChart(t *testing.T) {
	tests := []struct{ ref, want string }{
		{"cert-manager", "cert-manager"},
		{"jetstack/cert-manager", "cert-manager"},
		{"oci://quay.io/jetstack/charts/cert-manager", "cert-manager"},
		{"oci://quay.io/jetstack/charts/cert-manager:v1.19.0", "cert-manager"},
		{"oci://ghcr.io/home-operations/charts-mirror/volsync-perfectra1n", "volsync"},
		{"oci://mirror.gcr.io/envoyproxy/gateway-helm", "envoy-gateway"},
		{"oci://ghcr.io/bjw-s-labs/helm/app-template", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got := ""
		if e := builtinCatalog(t).Chart(tt.ref); e != nil {
			got = e.Name
		}
		if got != tt.want {
			t.Errorf("Chart(%q) = %q, want %q", tt.ref, got, tt.want)
		}
	}
}

func TestManifest(t *testing.T) {
	tests := []struct{ url, want string }{
		{"https://github.com/cert-manager/cert-manager/releases/download/v1.8.2/cert-manager.crds.yaml", "cert-manager"},
		{"github.com/kubernetes-csi/external-snapshotter//client/config/crd?ref=v6.0.1", "snapshot-controller"},
		{"https://github.com/kubernetes-csi/external-snapshotter/client/config/crd?ref=v8.2.0", "snapshot-controller"},
		{"github.com/kyverno/kyverno//config/crds?ref=kyverno-chart-v2.5.2", "kyverno"},
		// A GitRepository of the chart's own repository (toboshii/home-ops).
		{"https://github.com/prometheus-community/helm-charts.git/charts/kube-prometheus-stack/crds", "kube-prometheus-stack"},
		{"https://github.com/rook/rook.git/deploy/examples/crds.yaml", "rook-ceph"},
		{"https://raw.githubusercontent.com/movetokube/postgres-operator/1.1.1/deploy/crds/db.movetokube.com_postgres_crd.yaml", "ext-postgres-operator"},
		{"https://raw.githubusercontent.com/dragonflydb/dragonfly-operator/v1.6.1/manifests/crd.yaml", "dragonfly-operator"},
		{"https://infra.tekton.dev/tekton-releases/operator/previous/v0.79.0/release.yaml", "tekton-operator"},
		{"https://github.com/kubernetes-sigs/gateway-api/releases/download/v1.3.0/standard-install.yaml", "gateway-api"},
		{"https://github.com/kubevirt/containerized-data-importer/releases/download/v1.61.0/cdi-operator.yaml", "containerized-data-importer"},
		{"git@github.com:prometheus-operator/prometheus-operator.git//example/prometheus-operator-crd?ref=v0.80.0", "prometheus-operator"},
		// A dashboard is not a CRD manifest.
		{"https://raw.githubusercontent.com/fluxcd/flux2/v0.31.4/manifests/monitoring/monitoring-config/dashboards/cluster.json", ""},
	}
	for _, tt := range tests {
		got := ""
		if e := builtinCatalog(t).Manifest(tt.url); e != nil {
			got = e.Name
		}
		if got != tt.want {
			t.Errorf("Manifest(%q) = %q, want %q (normalized %q)", tt.url, got, tt.want, NormalizeURL(tt.url))
		}
	}
}

func TestProvides(t *testing.T) {
	c := builtinCatalog(t)
	issuer := GroupKind{Group: "cert-manager.io", Kind: "ClusterIssuer"}
	if e := c.Chart("cert-manager"); e == nil || e.Installs(issuer) == nil || e.Creates(issuer) != nil {
		t.Fatalf("cert-manager does not install ClusterIssuer: %+v", e)
	}
	cdi := c.Manifest("https://github.com/kubevirt/containerized-data-importer/releases/download/v1.61.0/cdi-operator.yaml")
	trigger := GroupKind{Group: "cdi.kubevirt.io", Kind: "CDI"}
	profile := GroupKind{Group: "cdi.kubevirt.io", Kind: "StorageProfile"}
	if cdi.Installs(trigger) == nil || cdi.Creates(trigger) != nil {
		t.Errorf("CDI's own CRD comes with the operator manifest, not at runtime")
	}
	if r := cdi.Creates(profile); r == nil || r.Trigger != trigger || cdi.Installs(profile) != nil {
		t.Errorf("StorageProfile is created at runtime once a CDI is reconciled: %+v", r)
	}
	if op := cdi.Operator; op == nil || *op != (Operator{Namespace: "cdi", Deployment: "cdi-operator"}) {
		t.Errorf("CDI's operator Deployment: %+v, want cdi/cdi-operator", op)
	}
	withTimeout, err := Parse([]byte("entries: [{name: a, source: https://x, charts: [a], runtime: [{trigger: {group: a.io, kind: A}, groups: [b.io], operatorTimeout: 5m}]}]"))
	if err != nil || withTimeout.Entries[0].Runtime[0].Timeout() != 5*time.Minute {
		t.Errorf("operatorTimeout: %v, %+v", err, withTimeout)
	}
	if got := c.Providers(GroupKind{Group: "monitoring.coreos.com", Kind: "ServiceMonitor"}); len(got) != 3 {
		t.Errorf("ServiceMonitor providers: %d, want kube-prometheus-stack, prometheus-operator-crds, prometheus-operator", len(got))
	}
	if p := c.Platforms(); len(p) != 1 || p[0].Installs(GroupKind{Group: "talos.dev", Kind: "ServiceAccount"}) == nil {
		t.Errorf("platforms: %+v", p)
	}
}

func TestEnabled(t *testing.T) {
	cm := Install{EnabledBy: []string{"crds.enabled", "installCRDs"}}
	on := Install{EnabledBy: []string{"crds.install"}, EnabledByDefault: true}
	tests := []struct {
		name          string
		in            Install
		values        map[string]any
		want, wantSet bool
	}{
		{"always", Install{}, nil, true, true},
		{"cert-manager without values", cm, nil, false, false},
		{"cert-manager values without the switch", cm, map[string]any{"replicaCount": 2}, false, true},
		{"crds.enabled", cm, map[string]any{"crds": map[string]any{"enabled": true}}, true, true},
		{"installCRDs, the chart's older switch, still honoured", cm, map[string]any{"installCRDs": true}, true, true},
		{"string true", cm, map[string]any{"installCRDs": "true"}, true, true},
		{"default on", on, map[string]any{}, true, true},
		{"switched off", on, map[string]any{"crds": map[string]any{"install": false}}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, set := tt.in.Enabled(tt.values)
			if got != tt.want || set != tt.wantSet {
				t.Errorf("Enabled = %v, %v; want %v, %v", got, set, tt.want, tt.wantSet)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"a/*/b", "a/x/y/b", true},
		{"a/*/b", "a/b", false},
		{"a*", "a", true},
		{"*/r/x", "host/r/x", true},
		{"a", "ab", false},
		{"a*b*c", "a-b-b-c", true},
	}
	for _, tt := range tests {
		if got := match(tt.pattern, tt.s); got != tt.want {
			t.Errorf("match(%q, %q) = %v", tt.pattern, tt.s, got)
		}
	}
}

func TestBeforeFlux(t *testing.T) {
	for _, e := range builtinCatalog(t).Entries {
		if e.BeforeFlux != "" && len(e.Charts) == 0 {
			t.Errorf("%s: beforeFlux without a chart to recognise it by", e.Name)
		}
	}
	if e := builtinCatalog(t).Chart("cilium"); e == nil || e.BeforeFlux == "" {
		t.Errorf("cilium is a CNI: installed before Flux")
	}
}
