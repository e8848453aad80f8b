package audit

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// brief renders a hazard as "CODE severity ks object [provider=..]".
func brief(h Hazard) string {
	s := strings.Join([]string{string(h.Code), string(h.Severity), h.Kustomization.Name, h.Object.String()}, " ")
	if h.Provider != nil {
		s += " provider=" + h.Provider.Name
	}
	if h.Trigger != nil {
		s += " trigger=" + h.Trigger.Kind
	}
	return s
}

func objects(us ...*unstructured.Unstructured) []*unstructured.Unstructured { return us }

func TestAudit(t *testing.T) {
	operators := ks{name: "operators", checks: []string{"apiextensions.k8s.io/v1 CustomResourceDefinition cdis.cdi.kubevirt.io"}, objects: objects(cdiCRD())}
	config := ks{name: "config", deps: []string{"operators"}, wait: true, objects: objects(cdiCR())}
	tests := []struct {
		name string
		kss  []ks
		cfg  *Config
		opts Options
		want []string
		// origins maps "kustomization Kind" to the expected origin.
		origins map[string]Origin
	}{{
		name:    "builtin and flux kinds",
		kss:     []ks{{name: "a", objects: objects(cmap(nil), obj("apps/v1", "Deployment", "default/d"), obj("kustomize.toolkit.fluxcd.io/v1", "Kustomization", "flux-system/b"), obj("source.toolkit.fluxcd.io/v1", "GitRepository", "flux-system/r"), crd("example.com", "Thing"), obj("apiregistration.k8s.io/v1", "APIService", "v1.example.com"))}},
		origins: map[string]Origin{"a ConfigMap": OriginBuiltin, "a Deployment": OriginBuiltin, "a Kustomization": OriginFlux, "a GitRepository": OriginFlux, "a CustomResourceDefinition": OriginBuiltin, "a APIService": OriginBuiltin},
	}, {
		// source-watcher's ArtifactGenerator is outside toolkit.fluxcd.io.
		name: "flux extension kinds",
		kss: []ks{{name: "a", objects: objects(
			obj("source.extensions.fluxcd.io/v1beta1", "ArtifactGenerator", "flux-system/g"),
			obj("source.toolkit.fluxcd.io/v1", "ExternalArtifact", "flux-system/e"),
			obj("image.toolkit.fluxcd.io/v1beta2", "ImagePolicy", "flux-system/p"),
			obj("notification.toolkit.fluxcd.io/v1", "Receiver", "flux-system/rc"),
			obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "flux-system/h"))}},
		origins: map[string]Origin{"a ArtifactGenerator": OriginFlux, "a ExternalArtifact": OriginFlux, "a ImagePolicy": OriginFlux, "a Receiver": OriginFlux, "a HelmRelease": OriginFlux},
	}, {
		// Kustomize gives objects of kinds it does not know the namespace of
		// the kustomization; the API server drops it for a cluster-scoped
		// kind, as it does for a built-in one whose file sets a namespace.
		name: "cluster-scoped objects are named without a namespace",
		kss: []ks{
			{name: "crds", objects: objects(obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "gadgets.example.com",
				"spec", map[string]any{"group": "example.com", "scope": "Cluster", "names": map[string]any{"kind": "Gadget"}}))},
			{name: "app", objects: objects(obj("example.com/v1", "Gadget", "default/g"),
				obj("rbac.authorization.k8s.io/v1", "ClusterRole", "default/r", "rules", []any{map[string]any{"verbs": []any{"${VERB}"}}}),
				obj("v1", "ConfigMap", "default/c", "data", map[string]any{"k": "${V}"}))},
		},
		want: []string{
			"MISSING_EDGE warning app Gadget/g provider=crds",
			"LITERAL_SUBSTITUTION_TOKEN warning app ClusterRole/r",
			"LITERAL_SUBSTITUTION_TOKEN warning app ConfigMap/default/c",
		},
	}, {
		// A CDI given a namespace by kustomize still matches a health check
		// that names it without one, once its CRD says it is cluster-scoped.
		name: "health check on a cluster-scoped trigger that kustomize namespaced",
		kss: []ks{
			{name: "operators", checks: []string{"apiextensions.k8s.io/v1 CustomResourceDefinition cdis.cdi.kubevirt.io"}, objects: objects(
				obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "cdis.cdi.kubevirt.io",
					"spec", map[string]any{"group": "cdi.kubevirt.io", "scope": "Cluster", "names": map[string]any{"kind": "CDI"}}))},
			{name: "config", deps: []string{"operators"}, checks: []string{"cdi.kubevirt.io/v1beta1 CDI cdi"},
				objects: objects(obj("cdi.kubevirt.io/v1beta1", "CDI", "cdi-system/cdi"))},
			{name: "vms", deps: []string{"config"}, objects: objects(volume())}},
		cfg: cdiConfig,
	}, {
		name:    "CRD in the same Kustomization",
		kss:     []ks{{name: "a", objects: objects(widgetCRD(), widget())}},
		origins: map[string]Origin{"a Widget": OriginSamePass},
	}, {
		name: "CRD in a transitive ancestor without wait: Flux waits for CRDs it applies",
		kss: []ks{
			{name: "crds", objects: objects(widgetCRD())},
			{name: "mid", deps: []string{"crds"}},
			{name: "app", deps: []string{"mid"}, objects: objects(widget())},
		},
		origins: map[string]Origin{"app Widget": OriginAncestor},
	}, {
		name: "CRD in a Kustomization that is not an ancestor",
		kss: []ks{
			{name: "crds", objects: objects(widgetCRD())},
			{name: "app", objects: objects(widget())},
		},
		want:    []string{"MISSING_EDGE warning app Widget/default/w provider=crds"},
		origins: map[string]Origin{"app Widget": OriginUnordered},
	}, {
		name: "unknown kind is a notice",
		kss:  []ks{{name: "app", objects: objects(widget(), cmap(nil))}},
		want: []string{"UNKNOWN_KIND notice app Widget/default/w"},
	}, {
		name: "unknown kind is an error with --strict",
		kss:  []ks{{name: "app", objects: objects(widget())}},
		opts: Options{Strict: true},
		want: []string{"UNKNOWN_KIND error app Widget/default/w"},
	}, {
		name: "runtime kinds in the same pass as their trigger (the seed's deadlock)",
		kss:  []ks{operators, {name: "config", deps: []string{"operators"}, wait: true, objects: objects(cdiCR(), profile("longhorn"), profile("longhorn-vm"))}},
		cfg:  cdiConfig,
		want: []string{
			"SECOND_ORDER_SAME_PASS error config StorageProfile/longhorn provider=config trigger=CDI",
			"SECOND_ORDER_SAME_PASS error config StorageProfile/longhorn-vm provider=config trigger=CDI",
		},
		origins: map[string]Origin{"config CDI": OriginAncestor, "config StorageProfile": OriginRuntime},
	}, {
		name: "runtime kind after a trigger applied with wait: true (the repair)",
		kss: []ks{operators, config,
			{name: "config-cdi", deps: []string{"config"}, wait: true, objects: objects(profile("longhorn"))},
			{name: "vms", deps: []string{"config-cdi"}, objects: objects(volume())}},
		cfg:     cdiConfig,
		origins: map[string]Origin{"config-cdi StorageProfile": OriginRuntime, "vms DataVolume": OriginRuntime},
	}, {
		name: "runtime kind with only the trigger's Kustomization as ancestor: kinds are checked, not objects",
		kss: []ks{operators, config,
			{name: "config-cdi", deps: []string{"config"}, wait: true, objects: objects(profile("longhorn"))},
			{name: "vms", deps: []string{"config"}, objects: objects(volume())}},
		cfg: cdiConfig,
	}, {
		name: "runtime kind after a trigger with a health check on it",
		kss: []ks{operators,
			{name: "config", deps: []string{"operators"}, checks: []string{"cdi.kubevirt.io/v1beta1 CDI cdi"}, objects: objects(cdiCR())},
			{name: "vms", deps: []string{"config"}, objects: objects(volume())}},
		cfg: cdiConfig,
	}, {
		name: "runtime kind after a trigger applied without wait: true",
		kss: []ks{operators,
			{name: "config", deps: []string{"operators"}, checks: []string{"cdi.kubevirt.io/v1beta1 CDI other"}, objects: objects(cdiCR())},
			{name: "vms", deps: []string{"config"}, objects: objects(volume())}},
		cfg:  cdiConfig,
		want: []string{"UNGUARDED_PROVIDER warning vms DataVolume/vms/disk provider=config trigger=CDI"},
	}, {
		name: "runtime kind whose trigger is applied by a Kustomization that is not an ancestor",
		kss:  []ks{operators, config, {name: "vms", deps: []string{"operators"}, objects: objects(volume())}},
		cfg:  cdiConfig,
		want: []string{"MISSING_EDGE warning vms DataVolume/vms/disk provider=config trigger=CDI"},
	}, {
		name: "runtime kind whose trigger nothing applies",
		kss:  []ks{{name: "vms", objects: objects(volume())}},
		cfg:  cdiConfig,
		want: []string{"MISSING_EDGE error vms DataVolume/vms/disk trigger=CDI"},
	}, {
		name: "chart kind in the same pass as its HelmRelease",
		kss:  []ks{{name: "infra", wait: true, objects: objects(release(), issuer())}},
		cfg:  cdiConfig,
		want: []string{"SECOND_ORDER_SAME_PASS error infra ClusterIssuer/letsencrypt provider=infra trigger=HelmRelease"},
	}, {
		name: "chart kind after a HelmRelease with a health check on it",
		kss: []ks{
			{name: "infra", checks: []string{"helm.toolkit.fluxcd.io/v2 HelmRelease cert-manager/cert-manager"}, objects: objects(release())},
			{name: "issuers", deps: []string{"infra"}, objects: objects(issuer())}},
		cfg:     cdiConfig,
		origins: map[string]Origin{"issuers ClusterIssuer": OriginChart, "infra HelmRelease": OriginFlux},
	}, {
		name: "chart kind after an unguarded HelmRelease",
		kss: []ks{
			{name: "infra", objects: objects(release())},
			{name: "issuers", deps: []string{"infra"}, objects: objects(issuer())}},
		cfg:  cdiConfig,
		want: []string{"UNGUARDED_PROVIDER warning issuers ClusterIssuer/letsencrypt provider=infra trigger=HelmRelease"},
	}, {
		name: "chart kind whose HelmRelease nothing applies",
		kss:  []ks{{name: "issuers", objects: objects(issuer())}},
		cfg:  cdiConfig,
		want: []string{"MISSING_EDGE error issuers ClusterIssuer/letsencrypt trigger=HelmRelease"},
	}, {
		// flux2-hub-spoke-example: the hub applies each spoke's HelmReleases
		// (spec.kubeConfig on the release) and issuers (spec.kubeConfig on
		// the Kustomization); a spoke's kinds come from its own release only.
		name: "hub and spoke: each spoke's chart kinds from its own release",
		kss: []ks{
			{name: "controllers", namespace: "staging", wait: true, objects: objects(spokeRelease("staging"))},
			{name: "configs", namespace: "staging", deps: []string{"controllers"}, kubeConfig: "kubeconfig", objects: objects(issuer())},
			{name: "controllers", namespace: "production", wait: true, objects: objects(spokeRelease("production"))},
			{name: "configs", namespace: "production", deps: []string{"controllers"}, kubeConfig: "kubeconfig", objects: objects(issuer())},
		},
		cfg:     hubConfig,
		origins: map[string]Origin{"configs ClusterIssuer": OriginChart},
	}, {
		name: "hub and spoke: a release in another spoke is no origin",
		kss: []ks{
			{name: "controllers", namespace: "staging", wait: true, objects: objects(spokeRelease("staging"))},
			{name: "configs", namespace: "production", deps: []string{"staging/controllers"}, kubeConfig: "kubeconfig", objects: objects(issuer())},
		},
		cfg:  &Config{ChartCRDs: hubConfig.ChartCRDs[:1]},
		want: []string{"MISSING_EDGE error configs ClusterIssuer/letsencrypt trigger=HelmRelease"},
	}, {
		name: "hub and spoke: a CRD applied to the hub is no origin in a spoke",
		kss: []ks{
			{name: "crds", wait: true, objects: objects(widgetCRD())},
			{name: "app", deps: []string{"crds"}, kubeConfig: "spoke", objects: objects(widget())},
		},
		want: []string{"UNKNOWN_KIND notice app Widget/default/w"},
	}, {
		name: "kind applied by an unrendered ancestor declared in kustomizationCRDs",
		kss: []ks{
			{name: "kyverno", unrendered: true},
			{name: "policies", deps: []string{"kyverno"}, objects: objects(policy())},
		},
		cfg:     kyvernoConfig,
		origins: map[string]Origin{"policies ClusterPolicy": OriginKustomization},
	}, {
		name: "kind of kustomizationCRDs applied without dependsOn on its Kustomization",
		kss: []ks{
			{name: "kyverno", unrendered: true},
			{name: "policies", objects: objects(policy())},
		},
		cfg:  kyvernoConfig,
		want: []string{"MISSING_EDGE warning policies ClusterPolicy/require-labels provider=kyverno"},
	}, {
		// flux2-multi-tenancy: kyverno (wait: true) applies the Kustomization
		// kyverno-controller, which applies kyverno's CRDs from kyverno's own
		// repository; policies depends on kyverno, so kyverno-controller is
		// Ready first.
		name: "kustomizationCRDs of a Kustomization applied by an ancestor with wait: true",
		kss: []ks{
			{name: "kyverno", wait: true},
			{name: "kyverno-controller", unrendered: true, appliedBy: "kyverno"},
			{name: "policies", deps: []string{"kyverno"}, objects: objects(policy())},
		},
		cfg:     &Config{KustomizationCRDs: []KustomizationCRD{{Kustomization: NamespacedName{Namespace: "flux-system", Name: "kyverno-controller"}, Kinds: kyvernoConfig.KustomizationCRDs[0].Kinds}}},
		origins: map[string]Origin{"policies ClusterPolicy": OriginKustomization},
	}, {
		name: "CRD in a Kustomization applied by an ancestor without wait: the ancestor is Ready first",
		kss: []ks{
			{name: "infra"},
			{name: "crds", appliedBy: "infra", objects: objects(widgetCRD())},
			{name: "app", deps: []string{"infra"}, objects: objects(widget())},
		},
		want: []string{"MISSING_EDGE warning app Widget/default/w provider=crds"},
	}, {
		name: "CRD in a Kustomization applied by an ancestor with wait: true",
		kss: []ks{
			{name: "infra", wait: true},
			{name: "crds", appliedBy: "infra", objects: objects(widgetCRD())},
			{name: "app", deps: []string{"infra"}, objects: objects(widget())},
		},
		origins: map[string]Origin{"app Widget": OriginAncestor},
	}, {
		name: "a Flux object without a namespace",
		kss: []ks{{name: "apps", objects: objects(
			obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "podinfo"),
			obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "apps/fine"),
			obj("rbac.authorization.k8s.io/v1", "ClusterRole", "cluster-scoped-is-fine"),
		)}},
		want: []string{"NAMESPACE_NOT_SPECIFIED error apps HelmRelease/podinfo"},
	}, {
		name: "kustomizationCRDs naming the Kustomization itself (its remote resource holds the CRD)",
		kss: []ks{{name: "gateway", remote: []string{"gateway/kustomization.yaml: remote resource https://example.com/crds.yaml"},
			objects: objects(obj("gateway.networking.k8s.io/v1", "HTTPRoute", "default/web"))}},
		cfg: &Config{KustomizationCRDs: []KustomizationCRD{{Kustomization: NamespacedName{Namespace: "flux-system", Name: "gateway"},
			Kinds: []GroupKind{{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"}}}}},
		origins: map[string]Origin{"gateway HTTPRoute": OriginKustomization},
	}, {
		name: "kustomizationCRDs naming a Kustomization the repository does not define",
		kss:  []ks{{name: "policies", objects: objects(policy())}},
		cfg:  kyvernoConfig,
		want: []string{"MISSING_EDGE error policies ClusterPolicy/require-labels"},
	}, {
		name: "literal token without postBuild",
		kss: []ks{{name: "apps", objects: objects(
			cmap(map[string]any{"url": "https://${CLUSTER_DOMAIN}/${PATH:=x}", "${KEY}": "v"}),
			obj("v1", "ConfigMap", "default/script", "metadata", map[string]any{"name": "script", "namespace": "default",
				"annotations": map[string]any{substituteKey: "disabled"}}, "data", map[string]any{"sh": "echo ${HOME}"}),
			obj("v1", "ConfigMap", "default/dollar", "data", map[string]any{"a": "$HOME ${} ${1X}"}),
		)}},
		want: []string{"LITERAL_SUBSTITUTION_TOKEN warning apps ConfigMap/default/cm"},
	}, {
		// xunholy/k8s-gitops: its kustomize-mutating-webhook gives every
		// Kustomization a postBuild as it is created.
		name: "a webhook that gives every Kustomization a postBuild, as a HelmRelease",
		kss: []ks{
			{name: "webhook", objects: objects(helmRelease("flux-system/kustomize-mutating-webhook", "kustomize-mutating-webhook", nil))},
			{name: "apps", objects: objects(cmap(map[string]any{"url": "https://${CLUSTER_DOMAIN}"}))},
		},
	}, {
		name: "the same webhook, installed before Flux",
		kss:  []ks{{name: "apps", objects: objects(cmap(map[string]any{"url": "https://${CLUSTER_DOMAIN}"}))}},
		opts: Options{Bootstrap: &Bootstrap{Releases: []BootstrapRelease{{File: "bootstrap/helmfile.yaml.gotmpl",
			Namespace: "flux-system", Name: "kustomize-mutating-webhook", Chart: "kustomize-mutating-webhook/"}}}},
	}, {
		name: "another chart's webhook does not",
		kss: []ks{
			{name: "webhook", objects: objects(helmRelease("flux-system/other-webhook", "kustomize-webhook", nil))},
			{name: "apps", objects: objects(cmap(map[string]any{"url": "https://${CLUSTER_DOMAIN}"}))},
		},
		want: []string{"LITERAL_SUBSTITUTION_TOKEN warning apps ConfigMap/default/cm"},
	}, {
		name: "token with postBuild is render's business",
		kss:  []ks{{name: "apps", postBuild: true, objects: objects(cmap(map[string]any{"url": "${CLUSTER_DOMAIN}"}))}},
	}, {
		name: "cycle and dangling dependency, and the kinds are still audited",
		kss: []ks{
			{name: "a", deps: []string{"b"}, objects: objects(widgetCRD())},
			{name: "b", deps: []string{"a", "ghost"}, objects: objects(widget())},
			{name: "c", objects: objects(widget())},
		},
		want: []string{
			"CYCLE error a Kustomization/flux-system/a",
			"DANGLING_DEPENDENCY error b Kustomization/flux-system/b",
			"MISSING_EDGE warning c Widget/default/w provider=a",
		},
		origins: map[string]Origin{"b Widget": OriginAncestor},
	}, {
		name: "errors first, then by Kustomization",
		kss: []ks{
			{name: "a", objects: objects(cmap(map[string]any{"k": "${X}"}))},
			{name: "b", objects: objects(widget())},
			{name: "c", objects: objects(obj("example.com/v1", "Gadget", "g"))},
		},
		want: []string{
			"LITERAL_SUBSTITUTION_TOKEN warning a ConfigMap/default/cm",
			"UNKNOWN_KIND notice b Widget/default/w",
			"UNKNOWN_KIND notice c Gadget/g",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Audit(result(tt.kss...), tt.cfg, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range r.Hazards {
				got = append(got, brief(h))
				if h.Message == "" || h.Fix == "" || h.File == "" {
					t.Errorf("%s: message, fix and file must be set: %+v", h.Code, h)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("hazards:\n got %q\nwant %q", got, tt.want)
			}
			origins := map[string]Origin{}
			for _, u := range r.Kinds {
				origins[u.Kustomization.Name+" "+u.Kind] = u.Origin
			}
			for key, want := range tt.origins {
				if origins[key] != want {
					t.Errorf("origin of %s = %q, want %q", key, origins[key], want)
				}
			}
			places := 0
			for _, f := range r.Findings {
				places += len(f.Places)
			}
			if r.Errors()+r.Warnings()+r.Notices() != len(r.Findings) || places != len(r.Hazards) {
				t.Errorf("%d errors + %d warnings + %d notices != %d findings of %d places, for %d hazards",
					r.Errors(), r.Warnings(), r.Notices(), len(r.Findings), places, len(r.Hazards))
			}
		})
	}
}

// TestMessages checks that messages name what a reader needs to act: the
// Kustomizations, the trigger and the files.
func TestMessages(t *testing.T) {
	operators := ks{name: "operators", objects: objects(cdiCRD())}
	tests := []struct {
		name     string
		kss      []ks
		wantMsg  []string
		wantFix  []string
		wantFile string
	}{{
		name:     "same pass",
		kss:      []ks{operators, {name: "platform-config", deps: []string{"operators"}, wait: true, objects: objects(cdiCR(), profile("longhorn"))}},
		wantMsg:  []string{"Kustomization/flux-system/platform-config", "once a CDI is reconciled", "CDI/cdi (platform-config/cdi-cdi.yaml)", "never converges"},
		wantFix:  []string{"move StorageProfile/longhorn to its own Kustomization with dependsOn platform-config"},
		wantFile: "platform-config/storageprofile-longhorn.yaml",
	}, {
		name:     "missing edge across namespaces",
		kss:      []ks{operators, {name: "platform-config", deps: []string{"operators"}, wait: true, objects: objects(cdiCR())}, {name: "vms", namespace: "apps", objects: objects(volume())}},
		wantMsg:  []string{"Kustomization/flux-system/platform-config applies CDI/cdi", "not an ancestor of Kustomization/apps/vms"},
		wantFix:  []string{"add dependsOn flux-system/platform-config to Kustomization/apps/vms"},
		wantFile: "vms/datavolume-disk.yaml",
	}, {
		name:     "unguarded",
		kss:      []ks{operators, {name: "platform-config", deps: []string{"operators"}, objects: objects(cdiCR())}, {name: "vms", deps: []string{"platform-config"}, objects: objects(volume())}},
		wantMsg:  []string{"ancestor Kustomization/flux-system/platform-config", "neither wait: true nor a health check"},
		wantFix:  []string{"set wait: true on Kustomization/flux-system/platform-config, or add a health check on CDI/cdi"},
		wantFile: "vms/datavolume-disk.yaml",
	}, {
		name:     "chart kind whose HelmRelease nothing applies",
		kss:      []ks{{name: "issuers", objects: objects(issuer())}},
		wantMsg:  []string{"installed by the chart of HelmRelease cert-manager/cert-manager, which no Kustomization"},
		wantFix:  []string{"apply the HelmRelease in an ancestor of Kustomization/flux-system/issuers, or correct chartCRDs"},
		wantFile: "issuers/clusterissuer-letsencrypt.yaml",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Audit(result(tt.kss...), cdiConfig, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Hazards) != 1 {
				t.Fatalf("got %d hazards, want 1: %+v", len(r.Hazards), r.Hazards)
			}
			h := r.Hazards[0]
			for _, s := range tt.wantMsg {
				if !strings.Contains(h.Message, s) {
					t.Errorf("message %q does not contain %q", h.Message, s)
				}
			}
			for _, s := range tt.wantFix {
				if !strings.Contains(h.Fix, s) {
					t.Errorf("fix %q does not contain %q", h.Fix, s)
				}
			}
			if h.File != tt.wantFile {
				t.Errorf("file %q, want %q", h.File, tt.wantFile)
			}
		})
	}
}

func TestRules(t *testing.T) {
	codes := []Code{CodeSecondOrderSamePass, CodeOriginCycle, CodeMissingEdge, CodeMutualNeed, CodeUnguardedProvider, CodeUnknownKind,
		CodeLiteralSubstitutionToken, CodeNamespaceNotSpecified, CodeCycle, CodeDanglingDependency, CodeBuildFailed}
	rules := Rules()
	if len(rules) != len(codes) {
		t.Fatalf("%d rules, want %d", len(rules), len(codes))
	}
	for i, r := range rules {
		if r.Code != codes[i] || r.Name == "" || r.Summary == "" || severityRank(r.Severity) > severityRank(SeverityNotice) {
			t.Errorf("rule %d: %+v", i, r)
		}
		if got := codeRank(r.Code); got != i {
			t.Errorf("rank of %s = %d, want %d", r.Code, got, i)
		}
	}
}

func TestUnknownKindNamesTheLikelyChart(t *testing.T) {
	tests := []struct {
		name    string
		kss     []ks
		wantFix string
	}{{
		name: "a release named after the group",
		kss: []ks{
			{name: "controllers", wait: true, objects: objects(release())},
			{name: "configs", deps: []string{"controllers"}, objects: objects(issuer())},
		},
		wantFix: "if the chart of HelmRelease cert-manager/cert-manager (applied by Kustomization/flux-system/controllers) installs it, declare it in standup.yaml chartCRDs",
	}, {
		name: "a release whose chart is named after the group",
		kss: []ks{
			// A chart the catalog does not know: a guess, not a fact.
			{name: "controllers", wait: true, objects: objects(obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "security/policy",
				"spec", map[string]any{"chart": map[string]any{"spec": map[string]any{"chart": "gatekeeper"}}}))},
			{name: "policies", deps: []string{"controllers"}, objects: objects(obj("gatekeeper.sh/v1", "Config", "config"))},
		},
		wantFix: "if the chart of HelmRelease security/policy (applied by Kustomization/flux-system/controllers) installs it",
	}, {
		name: "an unrendered ancestor",
		kss: []ks{
			{name: "kyverno", unrendered: true},
			{name: "policies", deps: []string{"kyverno"}, objects: objects(policy())},
		},
		wantFix: "if its ancestor Kustomization/flux-system/kyverno (not rendered: it builds from another source) applies the CRD, declare it in standup.yaml kustomizationCRDs",
	}, {
		name: "a remote resource the build left out",
		kss: []ks{{name: "gateway", remote: []string{"gateway/kustomization.yaml: remote resource https://example.com/gateway-api/standard-install.yaml"},
			objects: objects(obj("gateway.networking.k8s.io/v1", "HTTPRoute", "default/web"))}},
		wantFix: "if gateway/kustomization.yaml: remote resource https://example.com/gateway-api/standard-install.yaml holds its CRD (Kustomization/flux-system/gateway's build left it out offline), declare it in standup.yaml kustomizationCRDs",
	}, {
		// A generator's remote file cannot hold a CRD (toboshii/home-ops's
		// dashboards): no hint.
		name: "a remote file of a generator is no origin",
		kss: []ks{{name: "configs", remote: []string{"configs/kustomization.yaml: remote file https://raw.githubusercontent.com/fluxcd/flux2/v0.31.4/manifests/monitoring/monitoring-config/dashboards/cluster.json (configMapGenerator dashboards)"},
			objects: objects(issuer())}},
		wantFix: "declare where ClusterIssuer.cert-manager.io's CRD comes from in standup.yaml",
	}, {
		name:    "no release to suggest",
		kss:     []ks{{name: "configs", objects: objects(issuer())}},
		wantFix: "declare where ClusterIssuer.cert-manager.io's CRD comes from in standup.yaml (bootstrapCRDs, chartCRDs, runtimeCRDs or kustomizationCRDs)",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Audit(result(tt.kss...), nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Hazards) != 1 || r.Hazards[0].Code != CodeUnknownKind {
				t.Fatalf("hazards %v, want one UNKNOWN_KIND", r.Hazards)
			}
			if fix := r.Hazards[0].Fix; !strings.HasPrefix(fix, tt.wantFix) {
				t.Errorf("fix %q\nwant it to start with %q", fix, tt.wantFix)
			}
		})
	}
}

// The fix for a same-pass hazard asks for wait: true only when the
// Kustomization does not already wait for the provider.
func TestSamePassFixKnowsTheGuard(t *testing.T) {
	for _, tt := range []struct {
		name    string
		wait    bool
		wantFix string
	}{
		{name: "unguarded", wantFix: "move ClusterIssuer/letsencrypt to its own Kustomization with dependsOn infra; infra needs wait: true (or a health check on HelmRelease/cert-manager/cert-manager)"},
		{name: "wait: true", wait: true, wantFix: "move ClusterIssuer/letsencrypt to its own Kustomization with dependsOn infra (which already waits for HelmRelease/cert-manager/cert-manager)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Audit(result(ks{name: "infra", wait: tt.wait, objects: objects(release(), issuer())}), cdiConfig, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Hazards) != 1 || r.Hazards[0].Fix != tt.wantFix {
				t.Fatalf("hazards %+v\nwant one with fix %q", r.Hazards, tt.wantFix)
			}
		})
	}
}

// A kustomizationCRDs entry naming a Kustomization the repository does not
// define says so, rather than suggest a dependsOn that would dangle.
func TestKustomizationCRDsNamingAnAbsentKustomization(t *testing.T) {
	r, err := Audit(result(ks{name: "policies", objects: objects(policy())}), kyvernoConfig, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Hazards) != 1 {
		t.Fatalf("hazards %+v, want one", r.Hazards)
	}
	h := r.Hazards[0]
	if !strings.Contains(h.Message, "applied by Kustomization/flux-system/kyverno, which the repository does not define") || strings.Contains(h.Fix, "dependsOn") {
		t.Errorf("message %q / fix %q: want the absent Kustomization named and no dependsOn suggested", h.Message, h.Fix)
	}
}

// TestSamePassFixKnowsHelmOwnership: the chart form of the deadlock, with a
// chart that ships the CRD in templates/ (cert-manager) and a release that
// refuses to take ownership, says that a pre-applied CRD needs Helm's
// ownership metadata; a release that takes ownership (helm-controller's
// default) does not.
func TestSamePassFixKnowsHelmOwnership(t *testing.T) {
	for _, noTake := range []bool{false, true} {
		hr := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "cert-manager/cert-manager", "spec", map[string]any{
			"chart":   map[string]any{"spec": map[string]any{"chart": "cert-manager"}},
			"values":  map[string]any{"crds": map[string]any{"enabled": true}},
			"install": map[string]any{"disableTakeOwnership": noTake},
		})
		r, err := Audit(result(ks{name: "infra", wait: true, objects: objects(hr, issuer())}), nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Hazards) != 1 {
			t.Fatalf("disableTakeOwnership=%v: hazards %+v, want the same-pass deadlock", noTake, r.Hazards)
		}
		says := strings.Contains(r.Hazards[0].Fix, "must carry Helm's ownership metadata for HelmRelease/cert-manager/cert-manager")
		if says != noTake {
			t.Errorf("disableTakeOwnership=%v: the fix mentions Helm's ownership metadata = %v:\n%s", noTake, says, r.Hazards[0].Fix)
		}
	}
}
