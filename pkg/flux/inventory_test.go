package flux

import (
	"reflect"
	"testing"

	"github.com/kubestandup/standup/pkg/tiers"
)

func TestParseInventoryID(t *testing.T) {
	tests := []struct {
		id      string
		want    InventoryEntry
		wantErr bool
	}{
		{
			id:   "_storageprofiles.cdi.kubevirt.io_apiextensions.k8s.io_CustomResourceDefinition",
			want: InventoryEntry{Name: "storageprofiles.cdi.kubevirt.io", Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"},
		},
		{
			id:   "default_cm1__ConfigMap",
			want: InventoryEntry{Namespace: "default", Name: "cm1", Kind: "ConfigMap"},
		},
		{
			id:   "cdi_cdi_cdi.kubevirt.io_CDI",
			want: InventoryEntry{Namespace: "cdi", Name: "cdi", Group: "cdi.kubevirt.io", Kind: "CDI"},
		},
		{
			id:   "flux-system_platform-config_kustomize.toolkit.fluxcd.io_Kustomization",
			want: InventoryEntry{Namespace: "flux-system", Name: "platform-config", Group: "kustomize.toolkit.fluxcd.io", Kind: "Kustomization"},
		},
		{
			// RBAC names carry a colon, stored as a double underscore.
			id:   "_system__controller__cdi_rbac.authorization.k8s.io_ClusterRole",
			want: InventoryEntry{Name: "system:controller:cdi", Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"},
		},
		{
			id:   "_longhorn_storage.k8s.io_StorageClass",
			want: InventoryEntry{Name: "longhorn", Group: "storage.k8s.io", Kind: "StorageClass"},
		},
		{id: "", wantErr: true},
		{id: "no-separator", wantErr: true},
		{id: "ns_name", wantErr: true},
		{id: "ns_name_group_", wantErr: true},
		{id: "ns__group_Kind", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got, err := ParseInventoryID(tt.id)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseInventoryID(%q) error = %v, wantErr %v", tt.id, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("ParseInventoryID(%q) = %+v, want %+v", tt.id, got, tt.want)
			}
		})
	}
}

func TestInventoryEntryString(t *testing.T) {
	tests := []struct {
		e    InventoryEntry
		want string
	}{
		{InventoryEntry{Name: "longhorn", Group: "cdi.kubevirt.io", Kind: "StorageProfile"}, "StorageProfile/longhorn"},
		{InventoryEntry{Namespace: "default", Name: "cm1", Kind: "ConfigMap"}, "ConfigMap/default/cm1"},
	}
	for _, tt := range tests {
		if got := tt.e.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestCRDsInInventory(t *testing.T) {
	tests := []struct {
		name string
		ids  []string
		want []string
	}{
		{name: "empty", ids: nil, want: nil},
		{
			name: "mixed, unsorted, duplicate and malformed",
			ids: []string{
				"_storageprofiles.cdi.kubevirt.io_apiextensions.k8s.io_CustomResourceDefinition",
				"default_cm1__ConfigMap",
				"_cdis.cdi.kubevirt.io_apiextensions.k8s.io_CustomResourceDefinition",
				"garbage",
				"_cdis.cdi.kubevirt.io_apiextensions.k8s.io_CustomResourceDefinition",
				// same kind name in another group is not a CRD
				"_x_example.com_CustomResourceDefinition",
			},
			want: []string{"cdis.cdi.kubevirt.io", "storageprofiles.cdi.kubevirt.io"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CRDsInInventory(tt.ids); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("CRDsInInventory() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestKustomizationsInInventory(t *testing.T) {
	tests := []struct {
		name string
		ids  []string
		want []tiers.ID
	}{
		{name: "empty", ids: nil, want: nil},
		{
			name: "children in inventory order; other kinds, a Kustomization kind of another group, and malformed ids skipped",
			ids: []string{
				"flux-system_platform_kustomize.toolkit.fluxcd.io_Kustomization",
				"default_cm1__ConfigMap",
				"garbage",
				"apps_web_kustomize.toolkit.fluxcd.io_Kustomization",
				"apps_web_kustomize.config.k8s.io_Kustomization",
			},
			want: []tiers.ID{
				{Kind: KindKustomization, Namespace: "flux-system", Name: "platform"},
				{Kind: KindKustomization, Namespace: "apps", Name: "web"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := KustomizationsInInventory(tt.ids); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("KustomizationsInInventory() = %v, want %v", got, tt.want)
			}
		})
	}
}

func FuzzParseInventoryID(f *testing.F) {
	for _, s := range []string{
		"_storageprofiles.cdi.kubevirt.io_apiextensions.k8s.io_CustomResourceDefinition",
		"default_cm1__ConfigMap",
		"_system__controller__cdi_rbac.authorization.k8s.io_ClusterRole",
		"___",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		e, err := ParseInventoryID(id)
		if err != nil {
			return
		}
		if e.Kind == "" || e.Name == "" {
			t.Fatalf("ParseInventoryID(%q) = %+v: accepted an entry without kind or name", id, e)
		}
		_ = e.String()
		_ = CRDsInInventory([]string{id})
	})
}
