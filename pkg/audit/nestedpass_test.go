package audit

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// child is the Kustomization object flux-system/name, as its parent
// applies it.
func child(name string) *unstructured.Unstructured {
	return obj("kustomize.toolkit.fluxcd.io/v1", "Kustomization", "flux-system/"+name)
}

func externalSecret(name string) *unstructured.Unstructured {
	return obj("external-secrets.io/v1", "ExternalSecret", name)
}

// TestNestedSamePass: a Kustomization that applies kind K in the same
// pass as it creates the Kustomization whose HelmRelease's chart installs
// K's CRD deadlocks: the dry-run of the pass fails on K, so the child is
// never created (budimanjojo/home-cluster's cluster-apps and its
// ExternalSecrets, from components at the namespace level).
func TestNestedSamePass(t *testing.T) {
	eso := helmRelease("external-secrets/external-secrets", "external-secrets", nil)
	tests := []struct {
		name string
		kss  []ks
		cfg  *Config
		want []string
		// wantMsg and wantFix are in the first hazard's texts.
		wantMsg, wantFix []string
	}{{
		name: "the parent creates the chart's Kustomization",
		kss: []ks{
			{name: "cluster-apps", objects: objects(obj("v1", "Namespace", "default"), child("external-secrets"), externalSecret("default/cluster-vars"), externalSecret("kube-system/cluster-vars"))},
			{name: "external-secrets", appliedBy: "cluster-apps", wait: true, objects: objects(eso)},
		},
		want: []string{
			"SECOND_ORDER_SAME_PASS error cluster-apps ExternalSecret/default/cluster-vars provider=external-secrets trigger=HelmRelease",
			"SECOND_ORDER_SAME_PASS error cluster-apps ExternalSecret/kube-system/cluster-vars provider=external-secrets trigger=HelmRelease",
		},
		wantMsg: []string{
			"ExternalSecret.external-secrets.io's CRD is installed by the chart of HelmRelease external-secrets/external-secrets",
			"Kustomization/flux-system/external-secrets applies HelmRelease/external-secrets/external-secrets",
			"Kustomization/flux-system/cluster-apps applies ExternalSecret.external-secrets.io in the same pass as it creates Kustomization/flux-system/external-secrets (clusters/test/external-secrets.yaml)",
			"so Kustomization/flux-system/external-secrets is never created, HelmRelease/external-secrets/external-secrets never applied, and the pass never converges",
		},
		wantFix: []string{"move ExternalSecret/default/cluster-vars out of flux-system/cluster-apps, to a Kustomization of its own with dependsOn flux-system/external-secrets (which already waits for HelmRelease/external-secrets/external-secrets)"},
	}, {
		// The child is stuck for a reason of its own too (it needs a kind
		// of a sibling that deadlocks on itself): that once hid the
		// parent's deadlock behind a MISSING_EDGE warning.
		name: "the child is also blocked elsewhere",
		kss: []ks{
			{name: "cluster-apps", objects: objects(child("cert-manager"), child("external-secrets"), externalSecret("default/cluster-vars"))},
			{name: "cert-manager", appliedBy: "cluster-apps", objects: objects(certManager(), issuer())},
			{name: "external-secrets", appliedBy: "cluster-apps", objects: objects(eso, obj("cert-manager.io/v1", "Certificate", "external-secrets/webhook"))},
		},
		want: []string{
			"SECOND_ORDER_SAME_PASS error cert-manager ClusterIssuer/letsencrypt provider=cert-manager trigger=HelmRelease",
			"SECOND_ORDER_SAME_PASS error cluster-apps ExternalSecret/default/cluster-vars provider=external-secrets trigger=HelmRelease",
			"MISSING_EDGE warning external-secrets Certificate/external-secrets/webhook provider=cert-manager trigger=HelmRelease",
		},
		wantFix: []string{"external-secrets; flux-system/external-secrets needs wait: true (or a health check on HelmRelease/external-secrets/external-secrets)"},
	}, {
		name: "two Kustomizations removed",
		kss: []ks{
			{name: "cluster-apps", objects: objects(child("infra"), externalSecret("default/cluster-vars"))},
			{name: "infra", appliedBy: "cluster-apps", objects: objects(child("external-secrets"))},
			{name: "external-secrets", appliedBy: "infra", wait: true, objects: objects(eso)},
		},
		want: []string{"SECOND_ORDER_SAME_PASS error cluster-apps ExternalSecret/default/cluster-vars provider=external-secrets trigger=HelmRelease"},
		wantMsg: []string{
			"as it creates Kustomization/flux-system/infra (clusters/test/infra.yaml), which creates Kustomization/flux-system/external-secrets (clusters/test/external-secrets.yaml)",
			"so Kustomization/flux-system/infra is never created",
		},
	}, {
		// A plain CRD in the child: the same deadlock, with no trigger.
		name: "the child applies the CRD itself",
		kss: []ks{
			{name: "apps", objects: objects(child("crds"), widget())},
			{name: "crds", appliedBy: "apps", objects: objects(widgetCRD())},
		},
		want:    []string{"SECOND_ORDER_SAME_PASS error apps Widget/default/w provider=crds"},
		wantMsg: []string{"the CRD of Widget.example.com is applied by Kustomization/flux-system/crds", "so Kustomization/flux-system/crds is never created, and the pass"},
		wantFix: []string{"with dependsOn flux-system/crds"},
	}, {
		// With Kustomization in --custom-apply-stage-kinds the child is
		// created before the stage that fails: the retry converges. But
		// the child exists only once its parent has applied it, so the
		// parent can never have dependsOn it: a MUTUAL_NEED.
		name: "the child is created in an earlier stage",
		kss: []ks{
			{name: "cluster-apps", objects: objects(child("external-secrets"), externalSecret("default/cluster-vars"))},
			{name: "external-secrets", appliedBy: "cluster-apps", wait: true, objects: objects(eso)},
		},
		cfg:     &Config{CustomApplyStageKinds: []GroupKind{{Group: "kustomize.toolkit.fluxcd.io", Kind: "Kustomization"}}},
		want:    []string{"MUTUAL_NEED warning cluster-apps ExternalSecret/default/cluster-vars provider=external-secrets trigger=HelmRelease"},
		wantMsg: []string{"it cannot turn Ready before Kustomization/flux-system/cluster-apps has applied its objects (flux-system/external-secrets -> flux-system/cluster-apps), so dependsOn flux-system/external-secrets would deadlock the cold start"},
	}, {
		// Under a root that deadlocks, a cycle through dependsOn is still
		// a cycle: with every other finding fixed, kube-prometheus-stack
		// still waits for volsync (budimanjojo's volsync PrometheusRule).
		name: "a cycle under a root deadlock",
		kss: []ks{
			{name: "cluster-apps", objects: objects(child("external-secrets"), child("kps"), child("volsync"), externalSecret("default/cluster-vars"))},
			{name: "external-secrets", appliedBy: "cluster-apps", wait: true, objects: objects(eso)},
			{name: "kps", appliedBy: "cluster-apps", deps: []string{"volsync"}, wait: true, objects: objects(helmRelease("observability/kps", "kube-prometheus-stack", nil))},
			{name: "volsync", appliedBy: "cluster-apps", objects: objects(obj("monitoring.coreos.com/v1", "PrometheusRule", "volsync-system/volsync"))},
		},
		want: []string{
			"SECOND_ORDER_SAME_PASS error cluster-apps ExternalSecret/default/cluster-vars provider=external-secrets trigger=HelmRelease",
			"ORIGIN_CYCLE error volsync PrometheusRule/volsync-system/volsync provider=kps trigger=HelmRelease",
		},
	}, {
		// A sibling, not a child: created by another Kustomization, it
		// acts without the consumer, and the retry converges.
		name: "the chart's Kustomization is a sibling",
		kss: []ks{
			{name: "cluster", objects: objects(child("apps"), child("external-secrets"))},
			{name: "apps", appliedBy: "cluster", objects: objects(externalSecret("default/cluster-vars"))},
			{name: "external-secrets", appliedBy: "cluster", wait: true, objects: objects(eso)},
		},
		want: []string{"MISSING_EDGE warning apps ExternalSecret/default/cluster-vars provider=external-secrets trigger=HelmRelease"},
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
				t.Fatalf("hazards:\n got %q\nwant %q", got, tt.want)
			}
			h := r.Hazards[0] // when no place deadlocks in a pass
			for _, x := range r.Hazards {
				if x.Code == CodeSecondOrderSamePass && x.Object.Kind != "ClusterIssuer" {
					h = x
					break
				}
			}
			for _, s := range tt.wantMsg {
				if !strings.Contains(h.Message, s) {
					t.Errorf("message %q does not say %q", h.Message, s)
				}
			}
			for _, s := range tt.wantFix {
				if !strings.Contains(h.Fix, s) {
					t.Errorf("fix %q does not say %q", h.Fix, s)
				}
			}
		})
	}
}

// TestNestedSamePassGroup: every object of the kind in the parent shares
// one message, and the finding's fix speaks for all of them.
func TestNestedSamePassGroup(t *testing.T) {
	r, err := Audit(result(
		ks{name: "cluster-apps", objects: objects(child("external-secrets"), externalSecret("a/x"), externalSecret("b/x"))},
		ks{name: "external-secrets", appliedBy: "cluster-apps", wait: true, objects: objects(helmRelease("external-secrets/external-secrets", "external-secrets", nil))},
	), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) != 1 || r.Errors() != 1 {
		t.Fatalf("findings %+v", r.Findings)
	}
	f := r.Findings[0]
	if f.Message != f.Places[0].Message || strings.Contains(f.Message, "ExternalSecret/a/x") {
		t.Errorf("message %q: not the places' shared one", f.Message)
	}
	if want := "move the ExternalSecret objects listed out of the Kustomization that creates flux-system/external-secrets, to a Kustomization of their own with dependsOn flux-system/external-secrets"; !strings.HasPrefix(f.Fix, want) {
		t.Errorf("fix %q, want it to start %q", f.Fix, want)
	}
}
