package audit

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kubestandup/standup/pkg/render"
)

// TestCatalogOrigins checks what the audit concludes with no standup.yaml,
// from what the catalog knows of a repository's charts, manifests and
// operators, and what a standup.yaml declaration overrides.
func TestCatalogOrigins(t *testing.T) {
	issuerKS := func(name string, deps ...string) ks { return ks{name: name, deps: deps, objects: objects(issuer())} }
	tests := []struct {
		name    string
		kss     []ks
		cfg     *Config
		want    []string
		origins map[string]Origin
	}{{
		// The corpus's true positive: onedr0p's cert-manager Kustomization
		// without its bootstrap.
		name: "ClusterIssuer in the same pass as the cert-manager chart",
		kss:  []ks{{name: "cert-manager", objects: objects(certManager(), issuer())}},
		want: []string{"SECOND_ORDER_SAME_PASS error cert-manager ClusterIssuer/letsencrypt provider=cert-manager trigger=HelmRelease"},
	}, {
		name:    "the chart's release applied and waited for first",
		kss:     []ks{{name: "cert-manager", wait: true, objects: objects(certManager())}, issuerKS("issuers", "cert-manager")},
		origins: map[string]Origin{"issuers ClusterIssuer": OriginChart},
	}, {
		name: "the chart's release applied first, without wait",
		kss:  []ks{{name: "cert-manager", objects: objects(certManager())}, issuerKS("issuers", "cert-manager")},
		want: []string{"UNGUARDED_PROVIDER warning issuers ClusterIssuer/letsencrypt provider=cert-manager trigger=HelmRelease"},
	}, {
		name: "nothing orders the consumer after the release: a retry",
		kss:  []ks{{name: "cert-manager", wait: true, objects: objects(certManager())}, issuerKS("issuers")},
		want: []string{"MISSING_EDGE warning issuers ClusterIssuer/letsencrypt provider=cert-manager trigger=HelmRelease"},
	}, {
		// cert-manager's chart templates its CRDs only with crds.enabled
		// (or installCRDs): without, the release is no origin.
		name: "a release whose values leave the CRDs out",
		kss:  []ks{{name: "cert-manager", objects: objects(helmRelease("cert-manager/cert-manager", "cert-manager", map[string]any{"replicaCount": 2}), issuer())}},
		want: []string{"UNKNOWN_KIND notice cert-manager ClusterIssuer/letsencrypt"},
	}, {
		// valuesFrom may switch cert-manager's CRDs on: a deadlock audit
		// cannot prove is a warning.
		name: "a release completed by valuesFrom",
		kss: []ks{{name: "cert-manager", objects: objects(obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "cert-manager/cert-manager", "spec", map[string]any{
			"chart":      map[string]any{"spec": map[string]any{"chart": "cert-manager"}},
			"valuesFrom": []any{map[string]any{"kind": "ConfigMap", "name": "values"}}}), issuer())}},
		want: []string{"SECOND_ORDER_SAME_PASS warning cert-manager ClusterIssuer/letsencrypt provider=cert-manager trigger=HelmRelease"},
	}, {
		name: "a suspended release installs nothing",
		kss: []ks{{name: "cert-manager", objects: objects(obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "cert-manager/cert-manager", "spec", map[string]any{
			"chart": map[string]any{"spec": map[string]any{"chart": "cert-manager"}}, "suspend": true,
			"values": map[string]any{"crds": map[string]any{"enabled": true}}}), issuer())}},
		want: []string{"UNKNOWN_KIND notice cert-manager ClusterIssuer/letsencrypt"},
	}, {
		// kube-prometheus-stack ships its CRDs in crds/: install.crds: Skip
		// leaves them out.
		name: "a crds/ directory skipped",
		kss: []ks{{name: "monitoring", objects: objects(
			obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "o11y/kps", "spec", map[string]any{
				"chart":   map[string]any{"spec": map[string]any{"chart": "kube-prometheus-stack"}},
				"install": map[string]any{"crds": "Skip"}}),
			obj("monitoring.coreos.com/v1", "ServiceMonitor", "o11y/sm"))}},
		want: []string{"UNKNOWN_KIND notice monitoring ServiceMonitor/o11y/sm"},
	}, {
		name: "a chartRef to an OCIRepository names the chart",
		kss: []ks{{name: "cert-manager", objects: objects(
			obj("source.toolkit.fluxcd.io/v1", "OCIRepository", "cert-manager/cert-manager", "spec", map[string]any{"url": "oci://quay.io/jetstack/charts/cert-manager"}),
			obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "cert-manager/cert-manager", "spec", map[string]any{
				"chartRef": map[string]any{"kind": "OCIRepository", "name": "cert-manager"},
				"values":   map[string]any{"crds": map[string]any{"enabled": true}}}),
			issuer())}},
		want: []string{"SECOND_ORDER_SAME_PASS error cert-manager ClusterIssuer/letsencrypt provider=cert-manager trigger=HelmRelease"},
	}, {
		// A *Class kind is applied in its own stage, before the release.
		name: "a GatewayClass before the envoy-gateway release",
		kss: []ks{{name: "gateway", objects: objects(helmRelease("network/envoy-gateway", "gateway-helm", nil),
			obj("gateway.networking.k8s.io/v1", "GatewayClass", "envoy"))}},
		want: []string{"SECOND_ORDER_SAME_PASS error gateway GatewayClass/envoy provider=gateway trigger=HelmRelease"},
	}, {
		// --custom-apply-stage-kinds puts the release in a stage before the
		// rest: the first pass fails, the retry converges.
		name: "the release in a custom stage before its consumer",
		kss:  []ks{{name: "cert-manager", objects: objects(certManager(), issuer())}},
		cfg:  &Config{CustomApplyStageKinds: []GroupKind{{Group: hrGroup, Kind: hrKind}}},
		want: []string{"SECOND_ORDER_SAME_PASS warning cert-manager ClusterIssuer/letsencrypt provider=cert-manager trigger=HelmRelease"},
	}, {
		// The seed's operator, known to the catalog: no standup.yaml needed.
		name: "a runtime kind of a known operator in its trigger's pass",
		kss:  []ks{{name: "operators", objects: objects(cdiCRD())}, {name: "config", deps: []string{"operators"}, wait: true, objects: objects(cdiCR(), profile("longhorn"))}},
		want: []string{"SECOND_ORDER_SAME_PASS error config StorageProfile/longhorn provider=config trigger=CDI"},
	}, {
		name: "a remote manifest the catalog knows is a CRD",
		kss: []ks{{name: "crds", remote: []string{"crds/kustomization.yaml: remote resource https://github.com/cert-manager/cert-manager/releases/download/v1.8.2/cert-manager.crds.yaml"}},
			issuerKS("issuers", "crds")},
		origins: map[string]Origin{"issuers ClusterIssuer": OriginAncestor},
	}, {
		// standup.yaml overrides the catalog kind by kind: here it says the
		// CRD comes from another release.
		name: "standup.yaml overrides the catalog",
		kss:  []ks{{name: "cert-manager", objects: objects(certManager(), issuer())}, {name: "other", wait: true, objects: objects(release())}},
		cfg: &Config{ChartCRDs: []ChartCRD{{HelmRelease: NamespacedName{Namespace: "cert-manager", Name: "cert-manager"},
			Kinds: []GroupKind{{Group: "cert-manager.io", Kind: "Issuer"}}}}},
		want: []string{"SECOND_ORDER_SAME_PASS error cert-manager ClusterIssuer/letsencrypt provider=cert-manager trigger=HelmRelease"},
	}, {
		name:    "standup.yaml declares it installed before Flux",
		kss:     []ks{{name: "cert-manager", objects: objects(certManager(), issuer())}},
		cfg:     &Config{BootstrapCRDs: &BootstrapCRDs{Groups: []string{"cert-manager.io"}}},
		origins: map[string]Origin{"cert-manager ClusterIssuer": OriginBootstrap},
	}, {
		// Cilium is the CNI: Flux's pods need it, so it was installed first.
		name:    "a CNI's kinds exist before Flux",
		kss:     []ks{{name: "cilium", objects: objects(helmRelease("kube-system/cilium", "cilium", nil), obj("cilium.io/v2alpha1", "CiliumLoadBalancerIPPool", "pool"))}},
		origins: map[string]Origin{"cilium CiliumLoadBalancerIPPool": OriginBootstrap},
	}, {
		name:    "a platform's kinds exist before Flux",
		kss:     []ks{{name: "a", objects: objects(obj("talos.dev/v1alpha1", "ServiceAccount", "kube-system/talos"))}},
		origins: map[string]Origin{"a ServiceAccount": OriginPlatform},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Audit(result(tt.kss...), tt.cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range r.Hazards {
				got = append(got, brief(h))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("hazards:\n got %q\nwant %q", got, tt.want)
			}
			for key, want := range tt.origins {
				for _, u := range r.Kinds {
					if u.Kustomization.Name+" "+u.Kind == key && u.Origin != want {
						t.Errorf("origin of %s = %q, want %q", key, u.Origin, want)
					}
				}
			}
		})
	}
}

// TestOriginCycle: a CRD whose origin waits for the Kustomization that
// needs it is a deadlock, not a retry.
func TestOriginCycle(t *testing.T) {
	tests := []struct {
		name      string
		kss       []ks
		want      []string
		wantCycle string
	}{{
		name: "the release's Kustomization depends on the consumer",
		kss: []ks{
			{name: "cert-manager", deps: []string{"issuers"}, wait: true, objects: objects(certManager())},
			{name: "issuers", objects: objects(issuer())},
		},
		want:      []string{"ORIGIN_CYCLE error issuers ClusterIssuer/letsencrypt provider=cert-manager trigger=HelmRelease"},
		wantCycle: "flux-system/cert-manager -> flux-system/issuers",
	}, {
		// Each Kustomization applies the chart the other needs, in the pass
		// that needs the other's.
		name: "two releases needing each other's kinds",
		kss: []ks{
			{name: "a", objects: objects(certManager(), obj("monitoring.coreos.com/v1", "ServiceMonitor", "default/sm"))},
			{name: "b", objects: objects(helmRelease("o11y/kps", "kube-prometheus-stack", nil), obj("cert-manager.io/v1", "Certificate", "default/c"))},
		},
		want: []string{
			"ORIGIN_CYCLE error a ServiceMonitor/default/sm provider=b trigger=HelmRelease",
			"ORIGIN_CYCLE error b Certificate/default/c provider=a trigger=HelmRelease",
		},
	}, {
		// What the consumer waits for is stuck for a reason of its own:
		// that is the error; the consumer's own finding stays a warning.
		name: "an origin blocked elsewhere",
		kss: []ks{
			{name: "cert-manager", deps: []string{"missing"}, objects: objects(certManager())},
			{name: "issuers", objects: objects(issuer())},
		},
		want: []string{
			"DANGLING_DEPENDENCY error cert-manager Kustomization/flux-system/cert-manager",
			"MISSING_EDGE warning issuers ClusterIssuer/letsencrypt provider=cert-manager trigger=HelmRelease",
		},
	}, {
		// A Kustomization that builds from another source may apply the
		// CRD: a deadlock audit cannot prove is a warning.
		name: "an opaque Kustomization may hold the CRD",
		kss:  []ks{{name: "cert-manager", objects: objects(certManager(), issuer())}, {name: "vendor", unrendered: true}},
		want: []string{"SECOND_ORDER_SAME_PASS warning cert-manager ClusterIssuer/letsencrypt provider=cert-manager trigger=HelmRelease"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Audit(result(tt.kss...), nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range r.Hazards {
				got = append(got, brief(h))
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("hazards:\n got %q\nwant %q", got, tt.want)
			}
			if tt.wantCycle != "" && !strings.Contains(r.Hazards[0].Message, tt.wantCycle) {
				t.Errorf("message %q does not show the cycle %q", r.Hazards[0].Message, tt.wantCycle)
			}
			for _, h := range r.Hazards {
				if h.Code == CodeMissingEdge && (h.Retry != "" || !strings.Contains(h.Message, "never gets that far")) {
					t.Errorf("a blocked origin promises no retry: %+v", h)
				}
			}
		})
	}
}

// TestRetryNamesTheDelay: a warning says when the retry comes, from
// spec.retryInterval, else spec.interval.
func TestRetryNamesTheDelay(t *testing.T) {
	res := result(ks{name: "cert-manager", wait: true, objects: objects(certManager())}, ks{name: "issuers", objects: objects(issuer())})
	id := res.Objects[1].ID
	res.Definitions[id].Object.Object["spec"].(map[string]any)["interval"] = "30m"
	r, err := Audit(res, nil, Options{})
	if err != nil || len(r.Hazards) != 1 {
		t.Fatalf("%v %+v", err, r)
	}
	if h := r.Hazards[0]; h.Retry != "30m" || !strings.Contains(h.Message, "a retry after 30m (its interval)") {
		t.Errorf("retry %q, message %q", h.Retry, h.Message)
	}
	res.Definitions[id].Object.Object["spec"].(map[string]any)["retryInterval"] = "2m"
	r, _ = Audit(res, nil, Options{})
	if h := r.Hazards[0]; h.Retry != "2m" || !strings.Contains(h.Message, "a retry after 2m (its retryInterval)") {
		t.Errorf("retry %q, message %q", h.Retry, h.Message)
	}
}

// TestFindingsGroupPlaces: a kind used in many places is one finding per
// code, listing every place.
func TestFindingsGroupPlaces(t *testing.T) {
	var kss []ks
	kss = append(kss, ks{name: "cert-manager", wait: true, objects: objects(certManager())})
	for _, n := range []string{"a", "b", "c"} {
		kss = append(kss, ks{name: n, objects: objects(obj("cert-manager.io/v1", "Certificate", n+"/one"), obj("cert-manager.io/v1", "Certificate", n+"/two"))})
	}
	kss = append(kss, ks{name: "w", objects: objects(widget(), obj("example.com/v1", "Widget", "default/w2"))})
	r, err := Audit(result(kss...), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) != 2 || len(r.Hazards) != 8 {
		t.Fatalf("%d findings of %d places, want 2 of 8: %+v", len(r.Findings), len(r.Hazards), r.Findings)
	}
	edge, unknown := r.Findings[0], r.Findings[1]
	if edge.Code != CodeMissingEdge || len(edge.Places) != 6 || edge.Kustomizations() != 3 || edge.Severity != SeverityWarning {
		t.Errorf("finding %s %s: %d places in %d Kustomizations", edge.Code, edge.Kind, len(edge.Places), edge.Kustomizations())
	}
	if !strings.Contains(edge.Fix, "add dependsOn flux-system/cert-manager to each Kustomization listed") || strings.Contains(edge.Message, "Certificate/a/one") {
		t.Errorf("a group's texts speak for all places: %q / %q", edge.Message, edge.Fix)
	}
	if unknown.Code != CodeUnknownKind || len(unknown.Places) != 2 || unknown.Severity != SeverityNotice || r.Notices() != 1 || r.Warnings() != 1 {
		t.Errorf("finding %+v", unknown)
	}
}

// TestBuildFailedIsAFinding: a Kustomization whose build fails is one
// finding naming its file and the reason; the rest is still audited.
func TestBuildFailedIsAFinding(t *testing.T) {
	res := result(ks{name: "good", objects: objects(cmap(nil))}, ks{name: "bad", unrendered: true})
	bad := res.Objects[1].ID
	res.Failed = []render.BuildFailure{{ID: bad, File: "apps/bad/kustomization.yaml", Err: errors.New("apps/bad/kustomization.yaml: a Component listed under resources")}}
	r, err := Audit(res, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) != 1 || r.Errors() != 1 || r.Failed != 1 || r.Unrendered != 0 || r.Kustomizations != 1 {
		t.Fatalf("report %+v", r)
	}
	h := r.Findings[0].Places[0]
	if h.Code != CodeBuildFailed || h.Kustomization != bad || h.File != "apps/bad/kustomization.yaml" || !strings.Contains(h.Message, "a Component listed under resources") {
		t.Errorf("finding %+v", h)
	}
}
