package audit

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestMutualNeedFixtures: issue 35. Two Kustomizations that need each
// other's kinds are no MISSING_EDGE, whose dependsOn would deadlock the
// cold start. When each applies the other's kind in the stage of its own
// HelmRelease (budimanjojo/home-cluster's external-secrets and grafana),
// neither HelmRelease is ever applied: ORIGIN_CYCLE both ways, even though
// grafana also deadlocks on a dashboard of its own (which once hid the
// cycle behind a MISSING_EDGE warning). When each applies its CRD, in its
// first stage, the cold start converges on a retry: MUTUAL_NEED, whose fix
// moves objects.
func TestMutualNeedFixtures(t *testing.T) {
	tests := []struct {
		fixture string
		want    []string
		// says maps a place's "Kustomization Kind" to what its message and
		// fix say.
		says map[string][]string
	}{{
		fixture: "charts",
		want: []string{
			"ORIGIN_CYCLE error external-secrets GrafanaDashboard/external-secrets/external-secrets provider=grafana trigger=HelmRelease",
			"SECOND_ORDER_SAME_PASS error grafana GrafanaDashboard/observability/grafana-operator provider=grafana trigger=HelmRelease",
			"ORIGIN_CYCLE error grafana ExternalSecret/observability/grafana-admin-password provider=external-secrets trigger=HelmRelease",
		},
		says: map[string][]string{
			"external-secrets GrafanaDashboard": {"(observability/grafana -> external-secrets/external-secrets)", "neither ever converges", "move GrafanaDashboard/external-secrets/external-secrets after it"},
			"grafana ExternalSecret":            {"(external-secrets/external-secrets -> observability/grafana)", "neither ever converges"},
		},
	}, {
		fixture: "crds",
		want: []string{
			"MUTUAL_NEED warning left Doohickey/default/one provider=right",
			"MUTUAL_NEED warning right Gadget/default/one provider=left",
		},
		says: map[string][]string{
			"left Doohickey": {
				"the CRD of Doohickey.example.com is applied by Kustomization/flux-system/right (right/all.yaml)",
				"it cannot turn Ready before Kustomization/flux-system/left has applied its objects (flux-system/right -> flux-system/left), so dependsOn flux-system/right would deadlock the cold start",
				"the pass converges on a retry after 1m (its retryInterval)",
				"move Doohickey/default/one out of flux-system/left, into flux-system/right (which applies the CRD) or to a Kustomization of its own with dependsOn flux-system/right",
				"or move the Gadget objects of flux-system/right (flux-system/left provides their kind) out of it the same way, after which flux-system/left can have dependsOn flux-system/right",
			},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			root := filepath.Join("testdata", "mutual-need", tt.fixture)
			r := auditDir(t, root, "clusters/home")
			var got []string
			for _, h := range r.Hazards {
				got = append(got, brief(h))
				for _, s := range tt.says[h.Kustomization.Name+" "+h.Object.Kind] {
					if !strings.Contains(h.Message+" fix: "+h.Fix, s) {
						t.Errorf("%s: %q\nfix: %q\ndoes not say %q", h.Kustomization, h.Message, h.Fix, s)
					}
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("hazards:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func grafanaOperator() *unstructured.Unstructured {
	return helmRelease("observability/grafana-operator", "grafana-operator", nil)
}

func kubePrometheusStack() *unstructured.Unstructured {
	return helmRelease("observability/kube-prometheus-stack", "kube-prometheus-stack", nil)
}

func dashboard(name string) *unstructured.Unstructured {
	return obj("grafana.integreatly.org/v1beta1", "GrafanaDashboard", name)
}

func prometheusRule(name string) *unstructured.Unstructured {
	return obj("monitoring.coreos.com/v1", "PrometheusRule", name)
}

// TestMutualNeed: a need that no dependsOn can meet without a deadlock is
// an ORIGIN_CYCLE when it deadlocks already, through whatever chain of
// dependsOn and needs (with every other finding taken as fixed), and a
// MUTUAL_NEED when it converges on a retry; a need whose edge can be added
// stays a MISSING_EDGE.
func TestMutualNeed(t *testing.T) {
	tests := []struct {
		name string
		kss  []ks
		want []string
		// wantChain is in the message of the first place of each code.
		wantChain map[Code]string
	}{{
		// xunholy/k8s-gitops: grafana dependsOn cert-manager, which
		// applies a PrometheusRule whose CRD kube-prometheus-stack's chart
		// installs, and kube-prometheus-stack applies GrafanaDashboards in
		// the pass of its own HelmRelease, and a ScrapeConfig that
		// deadlocks it on its own as well.
		name: "a cycle through a dependsOn, under the provider's own deadlock",
		kss: []ks{
			{name: "cert-manager", wait: true, objects: objects(certManager(), prometheusRule("cert-manager/rules"))},
			{name: "grafana", deps: []string{"cert-manager"}, wait: true, objects: objects(grafanaOperator())},
			{name: "kps", wait: true, objects: objects(kubePrometheusStack(), dashboard("observability/nodes"), obj("monitoring.coreos.com/v1alpha1", "ScrapeConfig", "observability/jetkvm"))},
		},
		want: []string{
			"ORIGIN_CYCLE error cert-manager PrometheusRule/cert-manager/rules provider=kps trigger=HelmRelease",
			"SECOND_ORDER_SAME_PASS error kps ScrapeConfig/observability/jetkvm provider=kps trigger=HelmRelease",
			"ORIGIN_CYCLE error kps GrafanaDashboard/observability/nodes provider=grafana trigger=HelmRelease",
		},
		wantChain: map[Code]string{CodeOriginCycle: "(flux-system/kps -> flux-system/grafana -> flux-system/cert-manager)"},
	}, {
		// c needs a's CRD, a dependsOn b, and b needs c's CRD: c applies
		// its CRD in its first stage, so the cold start converges, but c
		// cannot wait for a, nor b for c.
		name: "a mutual need through a dependsOn",
		kss: []ks{
			{name: "a", deps: []string{"b"}, objects: objects(crd("example.com", "Alpha"))},
			{name: "b", objects: objects(obj("example.com/v1", "Gamma", "default/c"))},
			{name: "c", objects: objects(crd("example.com", "Gamma"), obj("example.com/v1", "Alpha", "default/a"))},
		},
		want: []string{
			"MUTUAL_NEED warning b Gamma/default/c provider=c",
			"MUTUAL_NEED warning c Alpha/default/a provider=a",
		},
		wantChain: map[Code]string{CodeMutualNeed: "(flux-system/c -> flux-system/a -> flux-system/b)"},
	}, {
		// right never reconciles (its dependsOn names nothing): left's
		// pass never converges until that is fixed, and neither edge can
		// be added.
		name: "a mutual need blocked elsewhere",
		kss: []ks{
			{name: "left", objects: objects(widgetCRD(), obj("example.com/v1", "Gizmo", "default/g"))},
			{name: "right", deps: []string{"missing"}, objects: objects(crd("example.com", "Gizmo"), widget())},
		},
		want: []string{
			"DANGLING_DEPENDENCY error right Kustomization/flux-system/right",
			"MUTUAL_NEED warning left Gizmo/default/g provider=right",
			"MUTUAL_NEED warning right Widget/default/w provider=left",
		},
		wantChain: map[Code]string{CodeMutualNeed: "Kustomization/flux-system/right itself never gets that far on a cold start"},
	}, {
		// xunholy/k8s-gitops's silence-operator: cluster-apps creates every
		// Kustomization in the pass of its ExternalSecret, its own
		// deadlock. While kps is stuck, so are grafana (it needs kps's
		// PrometheusRule), external-secrets (grafana's dashboard) and so
		// cluster-apps, which creates silence; but with cluster-apps's own
		// finding fixed, silence does not wait for kps: no cycle. (As the
		// repository is, external-secrets's dashboard does wait for it:
		// grafana is created only once cluster-apps has external-secrets's
		// CRD.)
		name: "a wait through another's same-pass deadlock",
		kss: []ks{
			{name: "cluster-apps", objects: objects(child("external-secrets"), child("grafana"), child("kps"), child("silence"), externalSecret("default/cluster-vars"))},
			{name: "external-secrets", appliedBy: "cluster-apps", wait: true, objects: objects(helmRelease("external-secrets/external-secrets", "external-secrets", nil), dashboard("external-secrets/eso"))},
			{name: "grafana", appliedBy: "cluster-apps", wait: true, objects: objects(grafanaOperator(), prometheusRule("observability/grafana"))},
			{name: "kps", appliedBy: "cluster-apps", wait: true, objects: objects(kubePrometheusStack(), obj("observability.giantswarm.io/v1alpha2", "Silence", "observability/watchdog"))},
			{name: "silence", appliedBy: "cluster-apps", wait: true, objects: objects(helmRelease("observability/silence-operator", "silence-operator", nil))},
		},
		want: []string{
			"SECOND_ORDER_SAME_PASS error cluster-apps ExternalSecret/default/cluster-vars provider=external-secrets trigger=HelmRelease",
			"ORIGIN_CYCLE error external-secrets GrafanaDashboard/external-secrets/eso provider=grafana trigger=HelmRelease",
			"MISSING_EDGE warning grafana PrometheusRule/observability/grafana provider=kps trigger=HelmRelease",
			"MISSING_EDGE warning kps Silence/observability/watchdog provider=silence trigger=HelmRelease",
		},
	}, {
		// The provider needs nothing of the consumer's: the edge is the fix.
		name: "a one-way need",
		kss: []ks{
			{name: "left", objects: objects(widgetCRD())},
			{name: "right", objects: objects(widget())},
		},
		want: []string{"MISSING_EDGE warning right Widget/default/w provider=left"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Audit(result(tt.kss...), nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			seen := map[Code]bool{}
			for _, h := range r.Hazards {
				got = append(got, brief(h))
				if want, ok := tt.wantChain[h.Code]; ok && !seen[h.Code] && !strings.Contains(h.Message, want) {
					t.Errorf("%s at %s: %q does not show the chain %q", h.Code, h.Kustomization, h.Message, want)
				}
				seen[h.Code] = true
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("hazards:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
