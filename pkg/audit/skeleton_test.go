package audit

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/tiers"
)

// live makes a ClusterCRD of group/kind with labels and annotations given as
// "key=value" pairs ("@key=value" for an annotation).
func live(group, kind string, meta ...string) ClusterCRD {
	c := ClusterCRD{Name: strings.ToLower(kind) + "s." + group, Defines: GroupKind{Group: group, Kind: kind}, Labels: map[string]string{}, Annotations: map[string]string{}}
	for _, m := range meta {
		k, v, _ := strings.Cut(m, "=")
		if a, ok := strings.CutPrefix(k, "@"); ok {
			c.Annotations[a] = v
		} else {
			c.Labels[k] = v
		}
	}
	return c
}

func owned(c ClusterCRD, apiVersion, kind, name string) ClusterCRD {
	c.Owners = append(c.Owners, Object{APIVersion: apiVersion, Kind: kind, Name: name})
	return c
}

func gk(group, kind string) GroupKind { return GroupKind{Group: group, Kind: kind} }

func TestBuildSkeleton(t *testing.T) {
	cdi := "cdi.kubevirt.io"
	// The checkout: platform ships the CDI CRD and its CR, apps a Widget CRD,
	// and a HelmRelease whose release Helm names "cm-cert-manager".
	hr := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "flux-system/cert-manager", "spec", map[string]any{"targetNamespace": "cm"})
	checkout := result(
		ks{name: "platform", wait: true, objects: []*unstructured.Unstructured{cdiCRD(), cdiCR(), hr}},
		ks{name: "apps", deps: []string{"platform"}, objects: []*unstructured.Unstructured{widgetCRD()}},
	)
	tests := []struct {
		name           string
		cfg            *Config
		live           []ClusterCRD
		inventories    map[tiers.ID][]string
		want           []CRDFinding
		runtime        []RuntimeCRD
		charts         []ChartCRD
		kustomizations []KustomizationCRD
		produced       int
		placeholder    int
	}{
		{
			name:     "produced and Flux CRDs are not findings",
			live:     []ClusterCRD{live(cdi, "CDI"), live("example.com", "Widget"), live("kustomize.toolkit.fluxcd.io", "Kustomization")},
			produced: 2,
		},
		{
			name: "runtime CRD owned by its trigger",
			live: []ClusterCRD{owned(live(cdi, "StorageProfile"), "cdi.kubevirt.io/v1beta1", "CDI", "cdi")},
			want: []CRDFinding{{CRD: "storageprofiles." + cdi, Defines: gk(cdi, "StorageProfile"), Source: SourceRuntime, Trigger: ptr.To(gk(cdi, "CDI")),
				Reason: "no Kustomization or chart applied it; it is owned by CDI/cdi"}},
			runtime: []RuntimeCRD{{Trigger: gk(cdi, "CDI"), Kinds: []GroupKind{gk(cdi, "StorageProfile")}}},
		},
		{
			name: "runtime CRDs without owner: the trigger is the group's only shipped kind",
			live: []ClusterCRD{live(cdi, "StorageProfile"), live(cdi, "DataVolume", "@"+preAppliedAnnotation+"=Kustomization/flux-system/apps")},
			want: []CRDFinding{
				{CRD: "datavolumes." + cdi, Defines: gk(cdi, "DataVolume"), Source: SourceRuntime, Trigger: ptr.To(gk(cdi, "CDI")),
					Reason: "no Kustomization or chart applied it; the trigger is a guess: CDI.cdi.kubevirt.io is the only kind of group cdi.kubevirt.io whose CRD this checkout ships; standup pre-applied it for Kustomization/flux-system/apps"},
				{CRD: "storageprofiles." + cdi, Defines: gk(cdi, "StorageProfile"), Source: SourceRuntime, Trigger: ptr.To(gk(cdi, "CDI")),
					Reason: "no Kustomization or chart applied it; the trigger is a guess: CDI.cdi.kubevirt.io is the only kind of group cdi.kubevirt.io whose CRD this checkout ships"},
			},
			runtime: []RuntimeCRD{{Trigger: gk(cdi, "CDI"), Kinds: []GroupKind{gk(cdi, "DataVolume"), gk(cdi, "StorageProfile")}}},
		},
		{
			name: "an owner of a built-in kind is no trigger; an unknown group gets the placeholder",
			live: []ClusterCRD{owned(live("ops.example.org", "Backup"), "v1", "Namespace", "ops")},
			want: []CRDFinding{{CRD: "backups.ops.example.org", Defines: gk("ops.example.org", "Backup"), Source: SourceRuntime, Trigger: ptr.To(gk("ops.example.org", TriggerPlaceholder)),
				Reason: "no Kustomization or chart applied it, and nothing tells which object makes the operator create it: name the trigger kind"}},
			runtime:     []RuntimeCRD{{Trigger: gk("ops.example.org", TriggerPlaceholder), Kinds: []GroupKind{gk("ops.example.org", "Backup")}}},
			placeholder: 1,
		},
		{
			name: "chart CRDs: helm-controller labels, then Helm's release annotations matched with the checkout",
			live: []ClusterCRD{
				live("cert-manager.io", "ClusterIssuer", "@meta.helm.sh/release-name=cm-cert-manager", "@meta.helm.sh/release-namespace=cm"),
				live("monitoring.coreos.com", "Prometheus", "helm.toolkit.fluxcd.io/name=kps", "helm.toolkit.fluxcd.io/namespace=monitoring"),
				live("traefik.io", "IngressRoute", "@meta.helm.sh/release-name=traefik", "@meta.helm.sh/release-namespace=edge"),
			},
			want: []CRDFinding{
				{CRD: "clusterissuers.cert-manager.io", Defines: gk("cert-manager.io", "ClusterIssuer"), Source: SourceChart, HelmRelease: &NamespacedName{Namespace: "flux-system", Name: "cert-manager"},
					Reason: "installed by Helm release cm/cm-cert-manager, which is HelmRelease/flux-system/cert-manager in this checkout"},
				{CRD: "ingressroutes.traefik.io", Defines: gk("traefik.io", "IngressRoute"), Source: SourceChart, HelmRelease: &NamespacedName{Namespace: "edge", Name: "traefik"},
					Reason: "installed by Helm release edge/traefik; no HelmRelease of this checkout has that release name, so check the HelmRelease's name"},
				{CRD: "prometheuss.monitoring.coreos.com", Defines: gk("monitoring.coreos.com", "Prometheus"), Source: SourceChart, HelmRelease: &NamespacedName{Namespace: "monitoring", Name: "kps"},
					Reason: "labelled by helm-controller as installed by HelmRelease/monitoring/kps"},
			},
			charts: []ChartCRD{
				{HelmRelease: NamespacedName{Namespace: "flux-system", Name: "cert-manager"}, Kinds: []GroupKind{gk("cert-manager.io", "ClusterIssuer")}},
				{HelmRelease: NamespacedName{Namespace: "edge", Name: "traefik"}, Kinds: []GroupKind{gk("traefik.io", "IngressRoute")}},
				{HelmRelease: NamespacedName{Namespace: "monitoring", Name: "kps"}, Kinds: []GroupKind{gk("monitoring.coreos.com", "Prometheus")}},
			},
		},
		{
			name: "applied by a Kustomization the checkout does not render: inventory, then labels",
			live: []ClusterCRD{
				live("a.example.org", "Alpha"),
				live("b.example.org", "Beta", "kustomize.toolkit.fluxcd.io/name=infra", "kustomize.toolkit.fluxcd.io/namespace=other"),
			},
			inventories: map[tiers.ID][]string{{Kind: "Kustomization", Namespace: "tenants", Name: "shared"}: {"alphas.a.example.org"}},
			want: []CRDFinding{
				{CRD: "alphas.a.example.org", Defines: gk("a.example.org", "Alpha"), Source: SourceKustomization, Kustomization: &NamespacedName{Namespace: "tenants", Name: "shared"},
					Reason: "applied by Kustomization/tenants/shared, which this checkout does not render"},
				{CRD: "betas.b.example.org", Defines: gk("b.example.org", "Beta"), Source: SourceKustomization, Kustomization: &NamespacedName{Namespace: "other", Name: "infra"},
					Reason: "applied by Kustomization/other/infra, which this checkout does not render"},
			},
			kustomizations: []KustomizationCRD{
				{Kustomization: NamespacedName{Namespace: "tenants", Name: "shared"}, Kinds: []GroupKind{gk("a.example.org", "Alpha")}},
				{Kustomization: NamespacedName{Namespace: "other", Name: "infra"}, Kinds: []GroupKind{gk("b.example.org", "Beta")}},
			},
		},
		{
			name: "kinds standup.yaml declares are reported, not declared again",
			cfg:  cdiConfig,
			live: []ClusterCRD{live(cdi, "StorageProfile"), live("cert-manager.io", "ClusterIssuer")},
			want: []CRDFinding{
				{CRD: "clusterissuers.cert-manager.io", Defines: gk("cert-manager.io", "ClusterIssuer"), Source: SourceDeclared, Reason: "standup.yaml declares it installed by the chart of HelmRelease/cert-manager/cert-manager"},
				{CRD: "storageprofiles." + cdi, Defines: gk(cdi, "StorageProfile"), Source: SourceDeclared, Reason: "standup.yaml declares it created at runtime by CDI.cdi.kubevirt.io"},
			},
		},
		{
			name: "a kind kustomizationCRDs declares is reported, not declared again",
			cfg: &Config{KustomizationCRDs: []KustomizationCRD{{Kustomization: NamespacedName{Namespace: "tenants", Name: "shared"},
				Kinds: []GroupKind{gk("a.example.org", "Alpha")}}}},
			live:        []ClusterCRD{live("a.example.org", "Alpha")},
			inventories: map[tiers.ID][]string{{Kind: "Kustomization", Namespace: "tenants", Name: "shared"}: {"alphas.a.example.org"}},
			want: []CRDFinding{{CRD: "alphas.a.example.org", Defines: gk("a.example.org", "Alpha"), Source: SourceDeclared,
				Reason: "standup.yaml declares it applied by Kustomization/tenants/shared"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sk, err := BuildSkeleton(checkout, tt.cfg, tt.live, tt.inventories)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tt.want, sk.Findings) {
				t.Errorf("findings:\n got %s\nwant %s", show(sk.Findings), show(tt.want))
			}
			if !reflect.DeepEqual(tt.runtime, sk.Config.RuntimeCRDs) {
				t.Errorf("runtimeCRDs:\n got %s\nwant %s", show(sk.Config.RuntimeCRDs), show(tt.runtime))
			}
			if !reflect.DeepEqual(tt.charts, sk.Config.ChartCRDs) {
				t.Errorf("chartCRDs:\n got %s\nwant %s", show(sk.Config.ChartCRDs), show(tt.charts))
			}
			if !reflect.DeepEqual(tt.kustomizations, sk.Config.KustomizationCRDs) {
				t.Errorf("kustomizationCRDs:\n got %s\nwant %s", show(sk.Config.KustomizationCRDs), show(tt.kustomizations))
			}
			if sk.Produced != tt.produced || sk.Placeholders != tt.placeholder {
				t.Errorf("produced %d, placeholders %d; want %d, %d", sk.Produced, sk.Placeholders, tt.produced, tt.placeholder)
			}
		})
	}
}

func TestClusterCRDOf(t *testing.T) {
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{
			Name:   "storageprofiles.cdi.kubevirt.io",
			Labels: map[string]string{"app": "cdi"},
			OwnerReferences: []metav1.OwnerReference{
				{APIVersion: "v1", Kind: "Namespace", Name: "cdi"},
				{APIVersion: "cdi.kubevirt.io/v1beta1", Kind: "CDI", Name: "cdi", Controller: ptr.To(true)},
			},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kube-apiserver", Subresource: "status"}, {Manager: "cdi-operator"}, {Manager: "standup"}, {Manager: "cdi-operator"}},
		},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: "cdi.kubevirt.io", Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "StorageProfile"}},
	}
	got := ClusterCRDOf(crd)
	want := ClusterCRD{
		Name: "storageprofiles.cdi.kubevirt.io", Defines: gk("cdi.kubevirt.io", "StorageProfile"), Labels: map[string]string{"app": "cdi"},
		Owners:   []Object{{APIVersion: "cdi.kubevirt.io/v1beta1", Kind: "CDI", Name: "cdi"}, {APIVersion: "v1", Kind: "Namespace", Name: "cdi"}},
		Managers: []string{"cdi-operator", "standup"},
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("ClusterCRDOf:\n got %s\nwant %s", show(got), show(want))
	}
	if preAppliedAnnotation != crds.PreAppliedForAnnotation {
		t.Errorf("preAppliedAnnotation = %q, want crds.PreAppliedForAnnotation %q", preAppliedAnnotation, crds.PreAppliedForAnnotation)
	}
}

// A skeleton with a placeholder trigger must not pass for a real standup.yaml.
func TestSkeletonPlaceholderRefused(t *testing.T) {
	sk, err := BuildSkeleton(result(ks{name: "apps"}), nil, []ClusterCRD{live("ops.example.org", "Backup")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sk.Placeholders != 1 || !slices.ContainsFunc(sk.Config.RuntimeCRDs, func(r RuntimeCRD) bool { return r.Trigger.Kind == TriggerPlaceholder }) {
		t.Fatalf("want one placeholder trigger, got %+v", sk.Config.RuntimeCRDs)
	}
	err = sk.Config.Validate()
	want := "runtimeCRDs[0].trigger.kind is still the skeleton's TODO: name the kind whose objects make the operator create Backup.ops.example.org"
	if err == nil || err.Error() != want {
		t.Fatalf("Validate() = %v, want %q", err, want)
	}
}

// show renders v as JSON, pointers followed, for a readable mismatch.
func show(v any) string {
	data, _ := json.MarshalIndent(v, "", "  ")
	return string(data)
}
